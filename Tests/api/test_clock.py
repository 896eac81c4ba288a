"""Time under a test's control (docs/recording.md): a server started with `--clock manual` keeps
its time still until `POST /api/clock` moves it on, and its rules read that time (a session
expires the moment the clock passes its end); the wall clock refuses to be moved, and the
manual clock refuses a shared database.

Environment: as client.py says, and AUTHPHONE_BINARY for the servers of the tests' own.
"""

import subprocess

from client import TIMEOUT, Api
from servers import BINARY, own_server


def test_the_wall_clock_refuses_to_be_moved(api):
    clock = api.call("getClock", "wallClock", expect=200)[1]
    assert clock["mode"] == "system"
    refused = api.call("advanceClock", "notManual", expect=409)[1]
    assert refused["error"]["code"] == "CLOCK_NOT_MANUAL"


def test_a_session_expires_when_the_test_moves_the_clock_past_it():
    with own_server("--clock", "manual", "--session-lifetime", "120") as url:
        api = Api(url)
        started = api.call("getClock", expect=200)[1]
        assert started["mode"] == "manual"
        session = api.call("createSession", body={"type": "enrol", "userId": "erin"}, expect=201)[1]
        moved = api.call("advanceClock", body={"advanceSeconds": 119}, expect=200)[1]
        assert api.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"] == "pending"
        api.call("advanceClock", "aMinute", expect=200)
        assert api.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"] == "expired"
        # time does not run backwards, and a refusal moves nothing
        refused = api.call("advanceClock", "backwards", expect=400)[1]
        assert refused["error"]["code"] == "INVALID_FIELD"
        assert api.call("getClock", expect=200)[1]["now"] > moved["now"] > started["now"]


def test_a_manual_clock_is_for_one_instance():
    done = subprocess.run([BINARY, "serve", "--clock", "manual", "--database", "postgres://nobody@127.0.0.1:1/none"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode != 0 and "--clock manual is for one instance" in done.stderr, done.stderr
