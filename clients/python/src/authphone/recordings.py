"""Walks recorded on the server (docs/recording.md): started, stopped, and kept as a scenario that
`authphone replay` walks again or as a pytest file (`ap.recordings`)."""

from __future__ import annotations

import os
from urllib.parse import quote

from ._http import JSON, Http


class Recording:
    """One recording: `id`, `name`, `state` (recording or stopped) and `steps`, as last read."""

    def __init__(self, http: Http, data: JSON) -> None:
        self._http = http
        self.id: str = data["id"]
        self.data = data
        self._path = f"/api/recordings/{quote(self.id, safe='')}"

    def __repr__(self) -> str:
        return f"Recording(id={self.id!r}, name={self.name!r}, state={self.state!r}, steps={self.steps})"

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def state(self) -> str:
        return str(self.data["state"])

    @property
    def steps(self) -> int:
        return int(self.data["steps"])

    def stop(self) -> Recording:
        """Stops recording; the walk is kept as it stands."""
        self.data = self._http.json("POST", f"{self._path}/stop")
        return self

    def rename(self, name: str) -> Recording:
        self.data = self._http.json("PATCH", self._path, body={"name": name})
        return self

    def scenario(self, path: str | os.PathLike[str] | None = None) -> JSON:
        """The walk as its JSON scenario (`authphone-scenario/1`); also written to `path` when given."""
        response = self._http.request("GET", self._path)
        if path is not None:
            with open(path, "wb") as file:
                file.write(response.content)
        scenario: JSON = response.json()
        return scenario

    def pytest(self, path: str | os.PathLike[str] | None = None) -> str:
        """The walk as a pytest file's text; also written to `path` when given."""
        text = self._http.request("GET", self._path, params={"format": "pytest"}).text
        if path is not None:
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
        return text

    def delete(self) -> None:
        self._http.request("DELETE", self._path)


class Recordings:
    """The server's recordings (`ap.recordings`)."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def start(self, name: str | None = None) -> Recording:
        """Starts recording what the server sees done; ConflictError `RECORDING_UNDER_WAY` while
        another records."""
        body = {} if name is None else {"name": name}
        return Recording(self._http, self._http.json("POST", "/api/recordings", body=body))

    def list(self) -> list[Recording]:
        """Every recording kept, oldest first."""
        return [Recording(self._http, r) for r in self._http.json("GET", "/api/recordings")["recordings"]]
