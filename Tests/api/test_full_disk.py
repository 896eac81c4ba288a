"""A real full disk: AuthPhone's data on a small tmpfs that a file fills to the last byte.

The server stays up; each write is answered 201 (and then kept) or refused with a clear code
(507 `STORAGE_FULL`, or 503 `DATABASE_ERROR` / `STORAGE_ERROR`); `/ready` says a store is failing
until a write succeeds again once there is room. Started again over the same files, it holds every
acknowledged phone and session and none of the refused ones, and each SQLite file passes
`PRAGMA integrity_check`.

Mounting needs root (or sudo without a password), as `make test`'s package installation does.

Environment: AUTHPHONE_BINARY, the server to start (scripts/api-test.sh sets it).
"""

import contextlib
import errno
import os
import sqlite3
import subprocess

import requests

from client import TIMEOUT, Api, new_phone, new_session
from servers import serving

REFUSALS = {507: {"STORAGE_FULL"}, 503: {"DATABASE_ERROR", "STORAGE_ERROR"}}


def as_root(*command):
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=TIMEOUT)


@contextlib.contextmanager
def small_disk(folder, size="4m"):
    folder.mkdir()
    as_root("mount", "-t", "tmpfs", "-o", f"size={size},mode=1777", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        as_root("umount", "-l", str(folder))


def fill(folder):
    """A file that takes every free byte of the disk; its path."""
    path = folder / "filler"
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as filler:
        while True:
            try:
                filler.write(chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
                if len(chunk) == 1:
                    return path
                chunk = chunk[: len(chunk) // 2]


def readiness(url):
    response = requests.get(url + "/ready", timeout=TIMEOUT)
    return response.status_code, response.json()


def test_a_full_disk_keeps_what_it_acknowledged_and_nothing_it_refused(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        data = disk / "data"
        args = ["--pin-kdf", "fast", "--data-dir", str(data)]
        with serving(tmp_path, args) as (_, url, _):
            api = Api(url)
            new_phone(api, "made with room to spare")
            filler = fill(disk)
            kept_phones, kept_sessions, refused = [], [], []
            for index in range(30):
                for op, body in (("createPhone", {"name": f"phone {index}"}),
                                 ("createSession", {"type": "enrol", "userId": f"user-{index}"})):
                    response, answer = api.call(op, body=body)
                    if response.status_code == 201:
                        (kept_phones if op == "createPhone" else kept_sessions).append(answer["id"])
                    else:
                        assert answer["error"]["code"] in REFUSALS.get(response.status_code, set()), answer
                        refused.append(body.get("name") or body["userId"])
            assert refused, "the disk never filled: every write was acknowledged"
            assert requests.get(url + "/health", timeout=TIMEOUT).text == "ok"
            status, ready = readiness(url)
            assert status == 503 and ready["status"] == "unready", ready
            failing = {name: state for name, state in ready["databases"].items() if state["status"] == "failing"}
            assert any("full" in state.get("message", "") for state in failing.values()), ready

            os.remove(filler)
            # a write to each store that failed makes it ready again
            kept_phones.append(new_phone(api, "made once there was room again")["id"])
            kept_sessions.append(new_session(api, "enrol", "room-again")["id"])
            status, ready = readiness(url)
            assert status == 200, ready

        with serving(tmp_path, args) as (_, url, _):
            api = Api(url)
            phones = api.call("listPhones", expect=200)[1]["phones"]
            assert set(kept_phones) <= {phone["id"] for phone in phones}
            sessions = api.call("listSessions", expect=200)[1]["sessions"]
            assert set(kept_sessions) <= {session["id"] for session in sessions}
            names = {phone["name"] for phone in phones} | {session["userId"] for session in sessions}
            assert not names & set(refused), f"refused writes were kept: {sorted(names & set(refused))}"

        for name in ("phones.sqlite", "backend.sqlite", "push.sqlite"):
            with contextlib.closing(sqlite3.connect(data / name)) as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)], name
