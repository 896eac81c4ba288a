"""`authphone serve` started by a test itself, on a free port, until the test's block ends.

Environment: AUTHPHONE_BINARY, the server to start (scripts/api-test.sh sets it).
"""

import contextlib
import os
import pathlib
import socket
import subprocess
import tempfile
import time

import pytest
import requests

from client import TIMEOUT

BINARY = os.path.abspath(os.environ.get("AUTHPHONE_BINARY", ".build/debug/authphone"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(folder, args, env=None, port=None, ready_status=200):
    """The server with `args` (and `--port` unless `port` is given, for one that names its own
    port elsewhere), its output in `folder`; yields (process, base URL, log path) once /health
    answers `ready_status`."""
    if port is None:
        port = free_port()
        args = ["--port", str(port), *args]
    log_path = folder / f"server-{port}.log"
    log = open(log_path, "wb")
    process = subprocess.Popen([BINARY, "serve", *args], stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, **(env or {})})
    # reached at its --host (an IPv6 address in brackets), on loopback when that is a wildcard
    host = args[args.index("--host") + 1] if "--host" in args else "127.0.0.1"
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert process.poll() is None, f"the server stopped: {log_path.read_text()}"
            with contextlib.suppress(requests.ConnectionError):
                if requests.get(url + "/health", timeout=1, allow_redirects=False).status_code == ready_status:
                    break
            assert time.monotonic() < deadline, "the server never answered /health"
            time.sleep(0.1)
        yield process, url, log_path
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(TIMEOUT)
        log.close()


@contextlib.contextmanager
def own_server(*args, ready_status=200):
    """A server of the test's own, in memory, with `args`; yields its URL once /health answers
    `ready_status`, and stops it afterwards. Without AUTHPHONE_BINARY the test is skipped."""
    if not os.access(BINARY, os.X_OK):
        pytest.skip(f"no server to start at {BINARY} (AUTHPHONE_BINARY)")
    with tempfile.TemporaryDirectory() as folder, \
            serving(pathlib.Path(folder), ["--in-memory", "--pin-kdf", "fast", *args], ready_status=ready_status) as (_, url, _):
        yield url
