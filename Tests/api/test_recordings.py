"""Recording a walk (docs/recording.md): a walk done through the API is kept as a scenario, with
names for ids and roles for PINs, never their digits; it is downloaded as JSON or as a pytest file
that runs green on a server of its own; `authphone replay` walks it again on a fresh server and
names the first step that answers otherwise; and the recordings are listed, renamed, stopped and
deleted, one recording at a time.

Environment: as client.py says, and AUTHPHONE_BINARY for the servers of the tests' own, the
replays and the exported pytest file (which imports the Python client from clients/python/src).
"""

import json
import os
import subprocess
import sys

import pytest

from client import NO_PHONE, PIN, TIMEOUT, WRONG_PIN, Api, screen_of, wait_for
from document import FINISHED, ROOT
from instances import needs_postgres, two_instances
from servers import BINARY, own_server

CLIENT_SOURCES = ROOT / "clients" / "python" / "src"
NAME = "Blocked PIN, then unblock"
LIFETIME = 300  # the sessions' lifetime by default: the exported test's own server has it too


def seen(state, interaction=None, result=None, error=None):
    """A step's `expect` for the flow it left."""
    flow = {"state": state, "interaction": interaction, "result": result, "error": error}
    return {"flow": {key: value for key, value in flow.items() if value is not None}}


def act(action, expect, **fields):
    return {"do": "act", "phone": "phone 1", "action": action, "expect": expect, **fields}


# The walk below, as its scenario must keep it.
STEPS = [
    {"do": "createPhone", "phone": "phone 1", "name": "Ann's phone"},
    # enrolment: QR code, confirm, a new PIN
    {"do": "startSession", "session": "session 1", "fields": {"type": "enrol", "userId": "ann"}},
    {"do": "scan", "phone": "phone 1", "session": "session 1", "via": "qr", "expect": seen("WAIT_FOR_INPUT", "CONFIRM")},
    act("confirmSession", seen("WAIT_FOR_INPUT", "SET_SECOND_FACTOR", "SUCCESS")),
    act("inputSecondFactor", seen("DONE", result="SUCCESS"), pin="new"),
    {"do": "sessionOutcome", "session": "session 1", "outcome": "enrolled"},
    # a login pushed to the phone's token
    {"do": "startSession", "session": "session 2", "pushTo": "phone 1",
     "fields": {"type": "login", "userId": "ann", "delivery": "push"}},
    {"do": "openPush", "phone": "phone 1", "expect": seen("WAIT_FOR_INPUT", "CONFIRM")},
    act("confirmSession", seen("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "SUCCESS")),
    act("inputSecondFactor", seen("DONE", result="SUCCESS"), pin="enrolled"),
    {"do": "sessionOutcome", "session": "session 2", "outcome": "loggedin"},
    # three wrong PINs block it
    {"do": "startSession", "session": "session 3", "fields": {"type": "login", "userId": "ann"}},
    {"do": "scan", "phone": "phone 1", "session": "session 3", "via": "qr", "expect": seen("WAIT_FOR_INPUT", "CONFIRM")},
    act("confirmSession", seen("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "SUCCESS")),
    act("inputSecondFactor", seen("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "PIN_FAIL"), pin="wrong"),
    act("inputSecondFactor", seen("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "PIN_FAIL"), pin="wrong"),
    act("inputSecondFactor", seen("ERROR", result="PIN_FAIL", error="PIN_BLOCKED"), pin="wrong"),
    {"do": "sessionOutcome", "session": "session 3", "outcome": "failed"},
    {"do": "unblockPin", "user": "ann"},
    # a fault set and lifted: the phone's id is its name
    {"do": "addFault", "fault": "fault 1",
     "spec": {"target": "phone", "phoneId": "phone 1", "kind": "unreachable", "count": 1}},
    {"do": "removeFault", "fault": "fault 1"},
    {"do": "clearFaults"},
    # a transaction pushed to the phone, answered on its screen (the WebSocket)
    {"do": "startSession", "session": "session 4",
     "fields": {"type": "transaction", "userId": "ann", "transaction": "Pay 10 EUR"}},
    {"do": "pushSession", "session": "session 4", "phone": "phone 1"},
    {"do": "openPush", "phone": "phone 1", "expect": seen("WAIT_FOR_INPUT", "CONFIRM")},
    act("confirmSession", seen("WAIT_FOR_INPUT", "CONFIRM_TRANSACTION", "SUCCESS")),
    act("confirmTransaction", seen("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "SUCCESS")),
    act("inputSecondFactor", seen("DONE", result="SUCCESS"), pin="enrolled"),
    {"do": "sessionOutcome", "session": "session 4", "outcome": "signed"},
    # a login left to expire: the clock moves past its end
    {"do": "startSession", "session": "session 5", "fields": {"type": "login", "userId": "ann"}},
    {"do": "advanceClock", "seconds": LIFETIME + 1},
    {"do": "sessionOutcome", "session": "session 5", "outcome": "expired"},
]


def steps_of(api, recording):
    return api.call("getRecording", path={"id": recording}, expect=200)[1]["steps"]


def record_the_walk(api):
    """Walks everything STEPS lists through the API (and the transaction on the phone's screen)
    while a recording runs; answers the recording's id."""
    started = api.call("startRecording", "named", merge={"name": NAME}, expect=201)[1]
    assert (started["state"], started["steps"], started["clock"], started["name"]) == ("recording", 0, "manual", NAME)
    phone = api.call("createPhone", body={"name": "Ann's phone"}, expect=201)[1]
    path = {"id": phone["id"]}

    def screen(body):
        return api.call("takePhoneAction", path=path, body=body, expect=200)[1]["flow"]

    def interaction(flow):
        return flow["state"], flow.get("currentInteraction", {}).get("type"), flow.get("error", {}).get("code")

    def scan(session):
        return api.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)[1]["flow"]

    def open_push():
        message = wait_for(lambda: api.call("getInbox", path=path, expect=200)[1]["messages"], "a push")[0]
        return api.call("openInboxMessage", path={**path, "message": message["id"]}, expect=202)[1]["flow"]

    def session_status(session):
        return api.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"]

    enrol = api.call("createSession", body={"type": "enrol", "userId": "ann"}, expect=201)[1]
    assert interaction(scan(enrol)) == ("WAIT_FOR_INPUT", "CONFIRM", None)
    assert interaction(screen({"action": "confirmSession"})) == ("WAIT_FOR_INPUT", "SET_SECOND_FACTOR", None)
    assert interaction(screen({"action": "inputSecondFactor", "pin": PIN})) == ("DONE", None, None)
    assert session_status(enrol) == "enrolled"

    login = api.call("createSession", body={"type": "login", "userId": "ann", "delivery": "push",
                                            "pushToken": phone["fcmToken"]}, expect=201)[1]
    assert interaction(open_push()) == ("WAIT_FOR_INPUT", "CONFIRM", None)
    assert interaction(screen({"action": "confirmSession"})) == ("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", None)
    assert interaction(screen({"action": "inputSecondFactor", "pin": PIN})) == ("DONE", None, None)
    assert session_status(login) == "loggedin"

    blocked = api.call("createSession", body={"type": "login", "userId": "ann"}, expect=201)[1]
    scan(blocked)
    screen({"action": "confirmSession"})
    for _ in range(2):
        assert interaction(screen({"action": "inputSecondFactor", "pin": WRONG_PIN})) == \
            ("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", None)
    assert interaction(screen({"action": "inputSecondFactor", "pin": WRONG_PIN})) == ("ERROR", None, "PIN_BLOCKED")
    assert session_status(blocked) == "failed"
    assert api.call("unblockPin", body={"userId": "ann"}, expect=200)[1]["unblockedDevices"] == 1

    fault = api.call("addFault", body={"target": "phone", "phoneId": phone["id"], "kind": "unreachable", "count": 1},
                     expect=201)[1]
    api.call("removeFault", path={"id": fault["id"]}, expect=204)
    api.call("clearFaults", expect=204)

    transaction = api.call("createSession", body={"type": "transaction", "userId": "ann", "transaction": "Pay 10 EUR"},
                           expect=201)[1]
    api.call("pushSession", path={"id": transaction["id"]}, body={"pushToken": phone["fcmToken"]}, expect=200)
    phone_screen = screen_of(api, phone)
    try:
        assert interaction(open_push()) == ("WAIT_FOR_INPUT", "CONFIRM", None)
        phone_screen.send({"action": "confirmSession"})
        phone_screen.flow("WAIT_FOR_INPUT", "CONFIRM_TRANSACTION")
        phone_screen.send({"action": "confirmTransaction"})
        phone_screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
        phone_screen.send({"action": "inputSecondFactor", "pin": PIN})
        phone_screen.flow("DONE")
    finally:
        phone_screen.close()
    # the screen shows the flow before the recording has its step: wait for the session's outcome there
    wait_for(lambda: steps_of(api, started["id"])[-1].get("outcome") == "signed", "the transaction's outcome recorded")

    late = api.call("createSession", body={"type": "login", "userId": "ann"}, expect=201)[1]
    api.call("advanceClock", body={"advanceSeconds": LIFETIME + 1}, expect=200)
    assert session_status(late) == "expired"
    stopped = api.call("stopRecording", "stopped", path={"id": started["id"]}, expect=200)[1]
    assert (stopped["state"], stopped["steps"], stopped["full"]) == ("stopped", len(STEPS), False)
    return started["id"]


@pytest.fixture(scope="module")
def walk():
    """The walk, recorded on a server of its own with a manual clock: (its scenario as the JSON
    text downloaded, the response of its pytest download)."""
    with own_server("--clock", "manual") as url:
        api = Api(url)
        recording = record_the_walk(api)
        scenario = api.call("getRecording", "scenario", path={"id": recording}, expect=200)[0]
        pytest_file = api.call("getRecording", "pytest", path={"id": recording}, query={"format": "pytest"}, expect=200)[0]
        FINISHED.add("recordings")
        return scenario.text, pytest_file


def test_the_walk_is_kept_step_by_step(walk):
    scenario = json.loads(walk[0])
    assert (scenario["schema"], scenario["name"], scenario["clock"]) == ("authphone-scenario/1", NAME, "manual")
    for index, (kept, expected) in enumerate(zip(scenario["steps"], STEPS), start=1):
        assert kept == expected, f"step {index}"
    assert len(scenario["steps"]) == len(STEPS)


def test_no_pin_digits_are_kept(walk):
    text, pytest_file = walk
    for digits in (PIN, WRONG_PIN):
        assert digits not in text
        assert digits not in pytest_file.text
    # the pytest file types digits of its own for each role
    assert 'enter_pin("135790")) == ("DONE", None, "SUCCESS", None)  # a new PIN' in pytest_file.text


def test_the_pytest_file_runs_green(walk, tmp_path):
    _, pytest_file = walk
    assert pytest_file.headers["Content-Type"] == "text/x-python; charset=utf-8"
    assert pytest_file.headers["Content-Disposition"] == 'attachment; filename="test_blocked_pin_then_unblock.py"'
    assert pytest_file.headers["Cache-Control"] == "no-store"
    assert 'AuthPhone.start(args=["--clock", "manual"])' in pytest_file.text
    assert "authphone.backend.unblock_pin(\"ann\")" in pytest_file.text
    assert "session_4.push_to(phone_1)" in pytest_file.text
    assert 'fault_1 = authphone.add_fault({"count": 1, "kind": "unreachable", "phoneId": phone_1.id, "target": "phone"})' \
        in pytest_file.text
    if not os.access(BINARY, os.X_OK):
        pytest.skip(f"no server to start at {BINARY} (AUTHPHONE_BINARY)")
    test_file = tmp_path / "test_blocked_pin_then_unblock.py"
    test_file.write_text(pytest_file.text)
    env = {**os.environ, "AUTHPHONE_BINARY": BINARY,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(CLIENT_SOURCES), os.environ.get("PYTHONPATH")]))}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT * 6)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout


def replay(scenario_text, url, tmp_path):
    scenario = tmp_path / "walk.json"
    scenario.write_text(scenario_text)
    return subprocess.run([BINARY, "replay", str(scenario), "--url", url], capture_output=True, text=True, timeout=TIMEOUT * 6)


def test_a_replay_walks_it_again_on_a_fresh_server(walk, tmp_path):
    with own_server("--clock", "manual") as url:
        done = replay(walk[0], url, tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == f'Replaying "{NAME}" ({len(STEPS)} steps) on {url}'
        assert lines[1] == "It was recorded on a server started with --clock manual."
        assert lines[-1] == f"All {len(STEPS)} steps answered as recorded."
        assert [line.split(".")[0] for line in lines[2:-1]] == [str(n) for n in range(1, len(STEPS) + 1)]
        for line in ['1. createPhone phone 1 "Ann\'s phone": done',
                     "3. scan phone 1 session 1: WAIT_FOR_INPUT CONFIRM",
                     "17. act phone 1 inputSecondFactor (pin: wrong): ERROR PIN_FAIL PIN_BLOCKED",
                     "26. act phone 1 confirmSession: WAIT_FOR_INPUT CONFIRM_TRANSACTION",
                     f"31. advanceClock {LIFETIME + 1} s: done",
                     "32. sessionOutcome session 5 expired: expired"]:
            assert line in lines
        # the replay did the walk on that server
        api = Api(url)
        sessions = api.call("listSessions", expect=200)[1]["sessions"]
        assert sorted(session["status"] for session in sessions) == \
            sorted(["enrolled", "loggedin", "failed", "signed", "expired"])
        assert [phone["name"] for phone in api.call("listPhones", expect=200)[1]["phones"]] == ["Ann's phone"]


def test_a_replay_stops_at_the_first_step_that_differs(walk, tmp_path):
    with own_server("--clock", "manual") as url:
        Api(url).call("addFault", body={"target": "backend", "kind": "status", "status": 503}, expect=201)
        done = replay(walk[0], url, tmp_path)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "step 3 (scan phone 1 session 1) differs" in done.stderr
        assert "expected: WAIT_FOR_INPUT CONFIRM" in done.stderr
        assert "2. startSession session 1 enrol ann: done" in done.stdout
        assert "3. " not in done.stdout and "All " not in done.stdout


def test_a_replay_refuses_what_it_cannot_replay(walk, tmp_path):
    with own_server() as url:
        api = Api(url)
        # the walk moved the clock: a server keeping the wall clock's time cannot replay it
        done = replay(walk[0], url, tmp_path)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "replay it on a server started with --clock manual" in done.stderr
        assert api.call("listPhones", expect=200)[1]["phones"] == []
        # a file that is not a scenario is refused whole (exit 2), naming what is wrong
        for text, why in [('{"name": "x"}', "is not a scenario"),
                          ("not JSON", "is not a scenario"),
                          ('{"schema": "authphone-scenario/2", "name": "x", "clock": "system", "steps": []}',
                           "this AuthPhone reads 'authphone-scenario/1'"),
                          ('{"schema": "authphone-scenario/1", "name": "x", "clock": "system", "steps": [{"do": "createPhone", "phone": "phone 1"}]}',
                           "step 1 (createPhone) has no 'name'")]:
            refused = replay(text, url, tmp_path)
            assert refused.returncode == 2, (text, refused.stdout, refused.stderr)
            assert why in refused.stderr, (text, refused.stderr)
        assert api.call("listPhones", expect=200)[1]["phones"] == []


def test_recordings_are_listed_renamed_stopped_and_deleted():
    """On a server keeping the wall clock's time: one recording at a time, and the refusals."""
    with own_server() as url:
        api = Api(url)
        assert api.call("listRecordings", "noRecordings", expect=200)[1] == {"recordings": []}
        refused = api.call("startRecording", "badName", expect=400)[1]
        assert refused["error"]["code"] == "INVALID_FIELD"
        assert api.call("listRecordings", expect=200)[1] == {"recordings": []}
        # the phones there already are the recording's first steps
        api.call("createPhone", body={"name": "Before"}, expect=201)
        first = api.call("startRecording", "unnamed", expect=201)[1]
        assert (first["name"], first["state"], first["clock"], first["steps"]) == ("Walk 1", "recording", "system", 1)
        assert api.call("startRecording", "underWay", expect=409)[1]["error"]["code"] == "RECORDING_UNDER_WAY"
        path = {"id": first["id"]}
        assert api.call("stopRecording", path=path, body={"pad": 1}, expect=400)[1]["error"]["code"] == "BODY_NOT_EXPECTED"
        stopped = api.call("stopRecording", path=path, expect=200)[1]
        assert stopped["state"] == "stopped" and stopped["stoppedAt"] >= stopped["startedAt"]
        assert api.call("stopRecording", path=path, expect=200)[1] == stopped  # stopped once, answered as it is
        # nothing is recorded once it stopped
        api.call("createPhone", body={"name": "After"}, expect=201)
        scenario = api.call("getRecording", path=path, expect=200)[1]
        assert (scenario["clock"], scenario["steps"]) == ("system", [{"do": "createPhone", "phone": "phone 1", "name": "Before"}])
        # renamed, stopped or not; a bad name is refused and the name stays
        assert api.call("renameRecording", "emptyName", path=path, expect=400)[1]["error"]["code"] == "INVALID_FIELD"
        assert api.call("renameRecording", path=path, body={"name": "a\u0000b"}, expect=400)[1]["error"]["code"] == "INVALID_FIELD"
        assert api.call("renameRecording", path=path, body={"name": "x" * 101}, expect=400)[1]["error"]["code"] == "INVALID_FIELD"
        renamed = api.call("renameRecording", "renamed", path=path, expect=200)[1]
        assert renamed == {**stopped, "name": "Enrol ann on her phone"}
        assert api.call("getRecording", path=path, expect=200)[1]["name"] == "Enrol ann on her phone"
        assert api.call("getRecording", "badFormat", path=path, query={"format": "har"}, expect=400)[1]["error"]["code"] == "INVALID_FIELD"
        # a second one records while the first is kept
        second = api.call("startRecording", body={"name": "  Second  "}, expect=201)[1]
        assert (second["name"], second["steps"]) == ("Second", 2)
        listed = api.call("listRecordings", "recorded", expect=200)[1]["recordings"]
        assert [(r["id"], r["state"]) for r in listed] == [(first["id"], "stopped"), (second["id"], "recording")]
        # deleting the one under way ends it: another may start
        api.call("deleteRecording", path={"id": second["id"]}, expect=204)
        third = api.call("startRecording", body={"name": "Third"}, expect=201)[1]
        api.call("deleteRecording", path=path, expect=204)
        assert [r["id"] for r in api.call("listRecordings", expect=200)[1]["recordings"]] == [third["id"]]
        for op, extra in [("getRecording", {}), ("stopRecording", {}), ("deleteRecording", {}),
                          ("renameRecording", {"body": {"name": "x"}})]:
            missing = api.call(op, "recordingNotFound", path=path, expect=404, **extra)[1]
            assert missing["error"] == {"code": "RECORDING_NOT_FOUND", "message": f"no recording has the id '{first['id']}'"}
        api.call("stopRecording", path={"id": third["id"]}, expect=200)
    FINISHED.add("recordings kept")


def test_the_command_line_records_lists_downloads_and_deletes(tmp_path):
    with own_server() as url:
        def run(*args):
            return subprocess.run([BINARY, "record", *args, "--url", url], capture_output=True, text=True, timeout=TIMEOUT)

        started = run("start", "--name", "From the shell")
        assert started.returncode == 0, started.stderr
        recording = started.stdout.strip()
        again = run("start")
        assert again.returncode == 1 and "RECORDING_UNDER_WAY" in again.stderr
        Api(url).call("createPhone", body={"name": "Shell phone"}, expect=201)
        stopped = run("stop", recording)
        assert stopped.returncode == 0 and stopped.stdout.startswith("1 step"), stopped.stderr
        listed = run("list")
        assert listed.stdout.splitlines() == [f"{recording}\tstopped\t1\tFrom the shell"]
        downloaded = run("download", recording, "-o", str(tmp_path / "walk.json"))
        assert downloaded.returncode == 0, downloaded.stderr
        scenario = json.loads((tmp_path / "walk.json").read_text())
        assert scenario["steps"] == [{"do": "createPhone", "phone": "phone 1", "name": "Shell phone"}]
        as_pytest = run("download", recording, "--format", "pytest")
        assert as_pytest.returncode == 0 and "def test_from_the_shell(authphone):" in as_pytest.stdout
        assert run("delete", recording).returncode == 0
        assert run("list").stdout == ""
        gone = run("delete", recording)
        assert gone.returncode == 1 and "RECORDING_NOT_FOUND" in gone.stderr


@needs_postgres
def test_instances_sharing_a_database_do_not_record(tmp_path):
    with two_instances(tmp_path) as (a, b, _):
        for api in (a, b):
            refused = api.call("startRecording", body={"name": "Shared"}, expect=409)[1]
            assert refused["error"]["code"] == "RECORDING_UNAVAILABLE"
            assert api.call("listRecordings", expect=200)[1] == {"recordings": []}


def test_a_fault_on_an_unknown_phone_keeps_its_id():
    """A recording names only what it saw made: a phone id it never met is kept as the server's own."""
    with own_server() as url:
        api = Api(url)
        recording = api.call("startRecording", body={}, expect=201)[1]["id"]
        api.call("addFault", body={"target": "phone", "phoneId": NO_PHONE, "kind": "hang"}, expect=201)
        refused = api.call("removeFault", path={"id": "no-such-fault"}, expect=404)[1]
        assert refused["error"]["code"] == "FAULT_NOT_FOUND"
        api.call("stopRecording", path={"id": recording}, expect=200)
        assert steps_of(api, recording) == [
            {"do": "addFault", "fault": "fault 1", "spec": {"target": "phone", "phoneId": NO_PHONE, "kind": "hang"}},
            {"do": "removeFault", "fault": "no-such-fault", "expect": {"error": "FAULT_NOT_FOUND"}},
        ]
