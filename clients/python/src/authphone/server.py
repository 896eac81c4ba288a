"""Running the authphone binary for a test run: on a free port, in memory, stopped afterwards."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence

import httpx

from .errors import ServerStartError


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """The authphone binary: `binary`, else $AUTHPHONE_BINARY, else `authphone` on the PATH."""
    chosen = binary or os.environ.get("AUTHPHONE_BINARY") or shutil.which("authphone")
    if not chosen:
        raise ServerStartError("no authphone binary: pass binary=…, set AUTHPHONE_BINARY or put authphone on the PATH")
    if not os.access(chosen, os.X_OK):
        raise ServerStartError(f"{os.fspath(chosen)} is not an executable file")
    return os.fspath(chosen)


def free_port() -> int:
    """A port nothing listens on now (the server takes it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LocalServer:
    """`authphone serve --in-memory` on a free loopback port; `stop()` ends it."""

    def __init__(self, binary: str, args: Sequence[str], ready_within: float) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile()
        command = [binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--in-memory", *args]
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            self._wait_until_ready(ready_within)
        except BaseException:
            self.stop()
            raise

    def _wait_until_ready(self, within: float) -> None:
        deadline = time.monotonic() + within
        while True:
            if self.process.poll() is not None:
                raise ServerStartError(f"authphone exited with {self.process.returncode}: {self.output()}")
            try:
                if httpx.get(f"{self.url}/ready", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise ServerStartError(f"authphone did not answer /ready within {within:g} s: {self.output()}")
            time.sleep(0.05)  # the process gives no other sign that it listens

    def output(self) -> str:
        """What the server printed so far (its last 4 KiB)."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4096:]

    def stop(self) -> None:
        """Ends the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
