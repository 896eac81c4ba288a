"""Two AuthPhone instances on two ports sharing one PostgreSQL (docs/operating.md, "More than one
instance"): a phone made on one enrols through a session started on the other's console; a login
pushed through one's FCM endpoint reaches the phone's screen open on the other and is confirmed
there; 20 wrong PINs sent at once through both block the PIN after exactly 3; one instance killed
with SIGKILL loses nothing it acknowledged, and the other carries its phones on.

Both instances are given the same public URL, as instances behind one load balancer are: the QR
codes, the phones' backend and the backend's push endpoint all name it.

Environment: AUTHPHONE_BINARY, and AUTHPHONE_TEST_POSTGRES_URL, a PostgreSQL the test may create
databases on (scripts/api-test.sh starts a throwaway one and sets it).
"""

import concurrent.futures
import contextlib
import copy
import json
import os
import pathlib
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest
import websocket

from client import PIN, TIMEOUT, Api, EventStream, enrolled_token, new_phone, new_session, open_on_screen, screen_of, wait_for
from device import Device
from privacyidea_server import running_privacyidea
from servers import BINARY, free_port, serving

POSTGRES = os.environ.get("AUTHPHONE_TEST_POSTGRES_URL")
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(POSTGRES is None, reason="needs AUTHPHONE_TEST_POSTGRES_URL (scripts/api-test.sh sets it)")


def fresh_database():
    """A database of the test's own on the test PostgreSQL, as a URL."""
    name = "instances_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", POSTGRES, "-qc", f'CREATE DATABASE "{name}"'], check=True, capture_output=True, timeout=TIMEOUT)
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(POSTGRES)._replace(path="/" + name))


@contextlib.contextmanager
def two_instances(tmp_path, database=None, b_options=()):
    """Instances A and B on one database (a fresh one unless given), A's address their public URL,
    B started with `b_options` too; yields their clients."""
    database = database or fresh_database()
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    shared = ["--database", database, "--pin-kdf", "fast", "--public-url", public]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with serving(tmp_path / "a", ["--port", str(port), "--data-dir", str(tmp_path / "a"), *shared], port=port) as (process, a, _), \
            serving(tmp_path / "b", ["--data-dir", str(tmp_path / "b"), *shared, *b_options]) as (_, b, _):
        yield Api(a), Api(b), process


def test_a_phone_made_on_one_enrols_through_a_session_started_on_the_other(tmp_path):
    with two_instances(tmp_path) as (a, b, _):
        phone = new_phone(a)
        session = new_session(b, "enrol", "alice")
        screen = open_on_screen(a, phone, session)
        screen.until(lambda m: m["type"] == "flowUpdate" and "secondFactorInfo" in m["flow"].get("currentInteraction", {}),
                     "the PIN pad")
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        assert screen.flow("DONE")
        screen.close()
        enrolled = b.call("getSession", path={"id": session["id"]}, expect=200)[1]
        assert enrolled["status"] == "enrolled" and enrolled["accountId"]
        assert [p["id"] for p in b.call("listPhones", expect=200)[1]["phones"]] == [phone["id"]]


def test_a_login_pushed_through_one_is_confirmed_on_the_screen_served_by_the_other(tmp_path):
    with two_instances(tmp_path) as (a, b, _):
        phone = new_phone(b)
        screen = open_on_screen(b, phone, new_session(a, "enrol", "bob"))
        screen.until(lambda m: m["type"] == "flowUpdate" and "secondFactorInfo" in m["flow"].get("currentInteraction", {}),
                     "the PIN pad")
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")

        login = a.call("createSession", body={"type": "login", "userId": "bob", "delivery": "push"}, expect=201)[1]
        arrived = screen.until(lambda m: m["type"] == "notification", "the push taken by the other instance")["notification"]

        def logged():
            return next(m["outcome"] for m in a.call("listPushMessages", expect=200)[1]["messages"] if m["id"] == arrived["id"])
        # A logged it as waiting (no screen open there); B, whose screen showed it, as a banner
        wait_for(lambda: logged() == "banner", "the push logged as shown by the screen on the other instance")
        b.call("openInboxMessage", path={"id": phone["id"], "message": arrived["id"]}, expect=202)
        assert logged() == "opened"
        assert screen.flow("WAIT_FOR_INPUT", "CONFIRM")["session"]["id"] == login["id"]
        screen.send({"action": "confirmSession"})
        screen.until(lambda m: m["type"] == "flowUpdate" and "secondFactorInfo" in m["flow"].get("currentInteraction", {}),
                     "the PIN pad")
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")
        screen.close()
        assert a.call("getSession", path={"id": login["id"]}, expect=200)[1]["status"] == "loggedin"


def test_twenty_wrong_pins_through_both_block_the_pin_after_exactly_three(tmp_path):
    with two_instances(tmp_path) as (a, b, _):
        device = Device(a)
        account = device.enrol_user("carol", examples=False)
        sessions = []
        for _ in range(20):
            login = new_session(a, "login", "carol")
            device.redeem(login, None)
            device.confirm(login["id"], None, account)
            sessions.append(login["id"])
        through_b = copy.copy(device)
        through_b.api = b

        def wrong_pin(index):
            return (device if index % 2 else through_b).verify(sessions[index], account, None, right=False, expect=None)

        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(wrong_pin, range(20)))
        assert all(answer.get("result") == "rejected" for answer in answers), answers
        counts = [answer["secondFactor"]["failedAttempts"] for answer in answers]
        assert sorted(set(counts)) == [1, 2, 3] and max(counts) == 3, answers
        # the third failure blocks the PIN; the seventeen after it are refused without being counted
        assert sum(answer["secondFactor"]["isBlocked"] for answer in answers) == 18, answers
        last = new_session(b, "login", "carol")
        device.redeem(last, None)
        device.confirm(last["id"], None, account)
        refused = device.verify(last["id"], account, None, expect=None)
        assert refused["result"] == "rejected" and refused["secondFactor"]["isBlocked"], "the right PIN is refused too"


def test_a_killed_instance_loses_nothing_acknowledged(tmp_path):
    with two_instances(tmp_path) as (a, b, process_a):
        device = Device(a)
        account = device.enrol_user("dora", examples=False)
        login = new_session(a, "login", "dora")
        device.redeem(login, None)
        device.confirm(login["id"], None, account)
        assert device.verify(login["id"], account, None, right=False)["secondFactor"]["failedAttempts"] == 1
        phone = new_phone(a)
        a.call("sendPush", "send", path={"project": "authphone"}, merge={"message": {"token": phone["fcmToken"]}}, expect=200)

        # A killed mid-run: B carries its phones and accounts on, with everything A acknowledged
        process_a.send_signal(signal.SIGKILL)
        process_a.wait(TIMEOUT)
        device.api = b
        assert len(b.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"]) == 1
        assert device.verify(login["id"], account, None, right=False)["secondFactor"]["failedAttempts"] == 2


def postgres(command):
    """`restart_postgres`, `halt_postgres` or `resume_postgres`, by the script that started it."""
    subprocess.run(["bash", "-c", f"source scripts/lib/postgres.sh && {command}"], cwd=REPOSITORY, check=True,
                   timeout=TIMEOUT * 3)


def restart_postgres():
    """PostgreSQL stopped (its connections cut) and started again."""
    postgres("restart_postgres")


def test_ready_answers_unready_within_two_seconds_of_postgresql_stopping(tmp_path):
    """A readiness probe waits a second or two: during an outage /ready answers 503 within that,
    each store failing (not 20 s, each store waiting its pool's 5 s in turn), and ready again after."""
    with two_instances(tmp_path) as (a, _, _):
        assert a.http.get(a.base + "/ready", timeout=TIMEOUT).status_code == 200
        postgres("halt_postgres")
        try:
            started = time.monotonic()
            response = a.http.get(a.base + "/ready", timeout=TIMEOUT)
            took = time.monotonic() - started
        finally:
            postgres("resume_postgres")
        assert response.status_code == 503 and took < 2, (response.status_code, f"{took:.1f} s")
        states = response.json()["databases"]
        assert sorted(states) == ["backend", "phones", "push", "timeline"]
        assert all(state["status"] == "failing" for state in states.values()), states
        wait_for(lambda: a.http.get(a.base + "/ready", timeout=TIMEOUT).status_code == 200, "ready again", within=TIMEOUT)


def test_postgresql_restarted_under_load_loses_nothing_acknowledged(tmp_path):
    with two_instances(tmp_path) as (a, b, _):
        acknowledged, answers = {"phones": set(), "sessions": set()}, []
        stop = threading.Event()

        def write_through(api):
            """Phones and sessions made through `api` until told to stop: what it acknowledged, and how
            every request was answered."""
            while not stop.is_set():
                for op, body, kind in (("createPhone", {"name": "restart"}, "phones"),
                                       ("createSession", {"type": "enrol", "userId": "erin"}, "sessions")):
                    response, made = api.call(op, body=body)
                    answers.append((api.base, op, response.status_code, (made or {}).get("error", {}).get("code")))
                    if response.status_code == 201:
                        acknowledged[kind].add(made["id"])

        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            writers = [pool.submit(write_through, api) for api in (a, b, a, b)]
            time.sleep(1)
            restart_postgres()
            restarted = len(answers)
            # both reconnect by themselves: each acknowledges writes again soon after
            deadline = time.monotonic() + TIMEOUT
            while not all(any(base == api.base and status == 201 for base, _, status, _ in answers[restarted:]) for api in (a, b)):
                assert time.monotonic() < deadline, "an instance did not come back after the restart"
                time.sleep(0.1)
            stop.set()
            for writer in writers:
                writer.result(TIMEOUT)

        refused = [answer for answer in answers if answer[2] != 201]
        assert all(status == 503 and code in ("STORAGE_ERROR", "DATABASE_ERROR") for _, _, status, code in refused), refused
        phones = {phone["id"] for phone in b.call("listPhones", expect=200)[1]["phones"]}
        assert acknowledged["phones"] <= phones, "a phone acknowledged before the restart is gone"
        for session in acknowledged["sessions"]:
            a.call("getSession", path={"id": session}, expect=200)


def test_a_phones_requests_through_either_instance_meet_its_one_flow(tmp_path):
    with two_instances(tmp_path) as (a, b, _):
        phone = new_phone(a)
        screen = screen_of(b, phone)  # the first instance to serve the phone runs its flows: B
        session = new_session(a, "enrol", "fay")
        path = {"id": phone["id"]}
        # scanned and confirmed through A, which hands both to B, where the screen shows them
        a.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)
        screen.flow("WAIT_FOR_INPUT", "CONFIRM")
        a.call("takePhoneAction", path=path, body={"action": "confirmSession"}, expect=200)
        screen.until(lambda m: m["type"] == "flowUpdate" and "secondFactorInfo" in m["flow"].get("currentInteraction", {}),
                     "the PIN pad")
        # a second screen, opened on A, is joined to the flow on B
        second = screen_of(a, phone)
        second.send({"action": "inputSecondFactor", "pin": PIN})
        assert second.flow("DONE")
        assert screen.flow("DONE")
        second.close()
        assert a.call("getPhone", path=path, expect=200)[1]["flow"]["state"] == "DONE"
        assert b.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"] == "enrolled"

        # a push taken by A, for a phone that opens pushes at once, is opened by the phone's flow on B
        a.call("updatePhoneSettings", path=path, body={"openPushesAtOnce": True}, expect=200)
        login = a.call("createSession", body={"type": "login", "userId": "fay", "delivery": "push"}, expect=201)[1]
        assert screen.flow("WAIT_FOR_INPUT", "CONFIRM")["session"]["id"] == login["id"]
        screen.close()


def open_streams(api):
    """How many event streams the instance serves itself, from its /metrics."""
    for line in api.http.get(api.base + "/metrics", timeout=TIMEOUT).text.splitlines():
        if line.startswith("authphone_event_streams_open "):
            return float(line.split()[1])
    return 0


def test_a_stream_about_a_phone_opened_on_the_other_instance_carries_its_flow_and_pushes(tmp_path):
    """A script's stream about a phone reaches whichever instance the load balancer picks: it is
    served by the phone's home, where its flow runs, and carries the pushes another instance took."""
    with two_instances(tmp_path) as (a, b, _):
        phone = new_phone(a)
        path = {"id": phone["id"]}
        b.call("getPhone", path=path, expect=200)  # B serves it first: B runs its flows
        stream = EventStream(a.base, {"phone": phone["id"]})
        assert (open_streams(a), open_streams(b)) == (0, 1), "the stream is not served by the phone's home"

        session = new_session(a, "enrol", "gil")
        outcome = EventStream(b.base, {"session": session["id"], "kind": "session"})  # as `wait_outcome` waits
        a.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)
        a.call("takePhoneAction", "confirmEnrolment", path=path, expect=200)
        a.call("takePhoneAction", "setPin", path=path, expect=200)
        enrolment = stream.until(lambda e: e["event"] == "flowEnded")
        assert [e["event"] for e in enrolment if e["event"] == "interaction"] == ["interaction", "interaction"], enrolment
        assert enrolment[-1]["data"]["flow"]["state"] == "DONE", enrolment[-1]
        statuses = [e["data"]["session"]["status"] for e in outcome.until(lambda e: e["data"]["session"]["status"] == "enrolled")]
        assert statuses[0] == "redeemed", statuses
        outcome.drop()

        # the backend (A, the public URL) pushes through A's FCM endpoint: B's stream tells of it
        login = a.call("createSession", body={"type": "login", "userId": "gil", "delivery": "push"}, expect=201)[1]
        pushed = stream.until(lambda e: e["event"] == "push")[-1]
        assert pushed["data"]["phone"] == phone["id"], pushed
        assert pushed["data"]["message"] in [m["id"] for m in b.call("getInbox", path=path, expect=200)[1]["messages"]]
        ids = [int(e["id"]) for e in enrolment + [pushed]]
        assert ids == sorted(set(ids)), ids
        assert a.call("getSession", path={"id": login["id"]}, expect=200)[1]["status"] == "pending"

        # phones at home on both: no one stream carries them all
        other = new_phone(a)
        a.call("getPhone", path={"id": other["id"]}, expect=200)
        _, refused = a.call("streamEvents", "phonesOnSeveralInstances", query={"phone": f"{phone['id']},{other['id']}"}, expect=409)
        assert refused["error"]["code"] == "PHONES_ON_SEVERAL_INSTANCES"

        # the client going ends the home's stream at once too (not at a keep-alive, 15 s on)
        stream.drop()
        wait_for(lambda: open_streams(b) == 0, "the home's stream to end with its client's", within=5)


def test_a_push_the_taker_never_hands_over_is_opened_by_the_phones_home(tmp_path):
    """A push A takes for a phone at home on B, which opens pushes at once, is opened by B, which
    hears of it from the database once A has committed it. A hands nothing over: here A cannot even
    reach B (B names an address nobody listens at), as an A killed right after taking it could not."""
    nobody = f"http://127.0.0.1:{free_port()}"
    with two_instances(tmp_path, b_options=["--instance-url", nobody]) as (a, b, _):
        phone = new_phone(b)
        path = {"id": phone["id"]}
        screen = screen_of(b, phone)  # B runs the phone; every request for it goes to B here
        session = new_session(b, "enrol", "kim")
        b.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)
        screen.flow("WAIT_FOR_INPUT", "CONFIRM")
        screen.send({"action": "confirmSession"})
        screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")
        b.call("updatePhoneSettings", path=path, body={"openPushesAtOnce": True}, expect=200)

        # the backend (A, the public URL) pushes through A's FCM endpoint, which takes the push
        login = a.call("createSession", body={"type": "login", "userId": "kim", "delivery": "push"}, expect=201)[1]
        assert screen.flow("WAIT_FOR_INPUT", "CONFIRM")["session"]["id"] == login["id"]
        assert b.call("getInbox", path=path, expect=200)[1]["messages"] == []
        screen.close()


def test_a_privacyidea_challenge_pushed_through_one_is_shown_by_the_phones_home(tmp_path):
    """privacyIDEA (its own Firebase provider) pushes a login through A, the public URL, for a
    phone at home on B: B's screen shows the challenge, and the phone's answer logs the user in."""
    with two_instances(tmp_path) as (a, b, _), running_privacyidea(a.base, TIMEOUT) as privacyidea:
        phone = new_phone(a)
        path = {"id": phone["id"]}
        screen = screen_of(b, phone)  # B runs the phone
        user = privacyidea.new_user("instances")
        with privacyidea.firebase_push("authphone"):
            serial = enrolled_token(a, privacyidea, phone, user)
            started = privacyidea.admin.validate_check(user, "")
            assert started.authentication == "CHALLENGE", started
            shown = screen.until(lambda m: m["type"] == "privacyIDEA" and m["privacyIDEA"]["kind"] == "CHALLENGE"
                                 and m["privacyIDEA"]["state"] == "WAIT_FOR_INPUT", "the pushed challenge on B's screen")
            assert shown["privacyIDEA"]["serial"] == serial
            accepted = a.call("answerPrivacyIDEA", "accept", path=path, expect=200)[1]["privacyIDEA"]
            assert accepted["outcome"] == "ACCEPTED", accepted
            assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
        screen.close()


def test_a_killed_instances_phones_are_taken_over_once_it_is_seen_dead(tmp_path):
    with two_instances(tmp_path) as (a, b, process_a):
        phone = new_phone(b)
        screen_of(a, phone).close()  # A runs the phone's flows
        path = {"id": phone["id"]}
        process_a.send_signal(signal.SIGKILL)
        process_a.wait(TIMEOUT)

        # until A is seen dead its phone is refused with a clear 503; then B takes it and serves it
        deadline = time.monotonic() + TIMEOUT
        while True:
            response, body = b.call("getPhone", path=path)
            if response.status_code == 200:
                break
            assert (response.status_code, body["error"]["code"]) == (503, "PHONE_HOME_UNREACHABLE"), body
            assert time.monotonic() < deadline, "B never took over A's phone"
            time.sleep(0.5)
        # B runs the phone now: its screen opens there (the backend, at A's address, died with A)
        screen_of(b, phone).close()
        b.call("updatePhoneSettings", path=path, body={"openPushesAtOnce": True}, expect=200)


def transactions(database):
    """The database's transactions so far: (committed, rolled back), as PostgreSQL counts them."""
    time.sleep(2)  # each server process reports its counts once it has been idle a second
    row = subprocess.run(["psql", database, "-tAc", "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()"],
                         check=True, capture_output=True, text=True, timeout=TIMEOUT).stdout.strip()
    committed, rolled_back = row.split("|")
    return int(committed), int(rolled_back)


def test_twenty_users_logging_in_at_once_through_both_meet_no_database_error(tmp_path):
    """20 users log in at once through both instances for 60 s (the load generator, each login
    pushed, confirmed and PIN-checked): none is refused with DATABASE_ERROR, and a login's writes
    seldom collide with another user's (a collision is a transaction PostgreSQL rolls back and the
    server runs again; a sequential scan at SERIALIZABLE made every login collide with the others)."""
    database = fresh_database()
    with two_instances(tmp_path, database) as (a, b, _):
        report_file = tmp_path / "load.json"
        before = transactions(database)
        subprocess.run([BINARY, "load", "--url", a.base, "--url", b.base, "--phones", "20", "--duration", "60", "--quiet",
                        "--json", str(report_file)], check=True, capture_output=True, timeout=180)
        committed, rolled_back = (after - earlier for after, earlier in zip(transactions(database), before))
        report = json.loads(report_file.read_text())
        share = rolled_back / (committed + rolled_back)
        print(f"{report['completed']} logins, {committed} transactions committed, {rolled_back} rolled back ({share:.1%})")
        assert report["errors"].get("DATABASE_ERROR", 0) == 0, report["errors"]
        assert report["completed"] >= 100, report
        assert share < 0.04, f"{share:.1%} of the transactions lost a race to another"


def flows_underway(api):
    """How many flows the instance runs itself, of every type, from its /metrics."""
    lines = api.http.get(api.base + "/metrics", timeout=TIMEOUT).text.splitlines()
    return sum(float(line.split()[1]) for line in lines if line.startswith("authphone_flows_underway{"))


def told_until_closed(screen):
    """The messages a screen is told until the server closes it."""
    told = []
    while True:
        try:
            text = screen.ws.recv()
        except websocket.WebSocketConnectionClosedException:
            return told
        if not text:  # the close frame
            return told
        told.append(json.loads(text))


def test_an_instance_paused_past_its_lease_runs_none_of_the_phones_taken_meanwhile(tmp_path):
    """The split brain: A, home to two phones with a flow each, is paused (SIGSTOP) past its lease
    while B takes one of them. Resumed, A runs none of that phone: its requests reach B, its old
    screen is told PHONE_MOVED and closed, its own flow for it is no longer under way, and a flow
    started through A runs on B. The phone nobody took stays on A, its flow going on."""
    with two_instances(tmp_path) as (a, b, process_a):
        taken, kept = new_phone(b), new_phone(b)
        screens = {}
        for phone, user in ((taken, "hal"), (kept, "ivy")):
            screens[phone["id"]] = screen_of(a, phone)  # A runs both phones
            a.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": new_session(b, "enrol", user)["qrText"]}, expect=202)
            screens[phone["id"]].flow("WAIT_FOR_INPUT", "CONFIRM")
        assert (flows_underway(a), flows_underway(b)) == (2, 0)

        process_a.send_signal(signal.SIGSTOP)
        try:
            time.sleep(12)  # A's lease is 10 s: B sees it dead (a stopped A would hold B's requests, not refuse them)
            path = {"id": taken["id"]}
            assert b.call("getPhone", path=path, expect=200)[1].get("flow") is None, "B took the phone, with no flow"
        finally:
            process_a.send_signal(signal.SIGCONT)
        time.sleep(3)  # A's next beat, which once renewed its lease without asking which phones it still had

        assert a.call("getPhone", path=path, expect=200)[1].get("flow") is None, "A answers from its old flow"
        told = told_until_closed(screens[taken["id"]])
        assert [m["error"]["code"] for m in told if m["type"] == "error"] == ["PHONE_MOVED"], told
        assert (flows_underway(a), flows_underway(b)) == (1, 0)

        # a flow started through A runs on B, and a screen opened on A is joined to it
        joined = screen_of(a, taken)
        a.call("startOutOfBand", path=path, body={"qr": new_session(a, "enrol", "jon")["qrText"]}, expect=202)
        joined.flow("WAIT_FOR_INPUT", "CONFIRM")
        joined.send({"action": "confirmSession"})
        joined.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
        joined.close()
        assert b.call("getPhone", path=path, expect=200)[1]["flow"]["state"] == "WAIT_FOR_INPUT"

        # the phone B never asked for stays on A, its screen and flow going on
        screens[kept["id"]].send({"action": "confirmSession"})
        screens[kept["id"]].flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
        screens[kept["id"]].close()
        assert (flows_underway(a), flows_underway(b)) == (1, 1)


def test_a_database_that_cannot_be_used_stops_the_start_with_the_reason(tmp_path):
    missing = urllib.parse.urlunsplit(urllib.parse.urlsplit(POSTGRES)._replace(path="/no_such_database"))
    closed = f"postgres://authphone@127.0.0.1:{free_port()}/authphone?sslmode=disable"
    # a user who may log in and nothing more: AuthPhone cannot make its schemas
    database = fresh_database()
    subprocess.run(["psql", POSTGRES, "-qc", "DROP ROLE IF EXISTS no_rights; CREATE ROLE no_rights LOGIN"], check=True, timeout=TIMEOUT)
    no_rights = urllib.parse.urlunsplit(urllib.parse.urlsplit(database)._replace(netloc="no_rights@" + urllib.parse.urlsplit(database).netloc.split("@")[-1]))
    # a host that takes the connection and never answers: the start gives up after --database-timeout
    silent = socket.create_server(("127.0.0.1", 0))
    mute = f"postgres://authphone@127.0.0.1:{silent.getsockname()[1]}/authphone?sslmode=disable"
    with silent:
        for url, reason in ((missing, 'database "no_such_database" does not exist'), (closed, "refused"),
                            (no_rights, "permission denied for database"), (mute, "did not answer within 2")):
            started = time.monotonic()
            refused = subprocess.run([BINARY, "serve", "--port", str(free_port()), "--data-dir", str(tmp_path), "--database", url,
                                      "--database-timeout", "2"], capture_output=True, timeout=TIMEOUT)
            message = refused.stderr.decode() + refused.stdout.decode()
            assert refused.returncode != 0 and reason in message.lower(), message
            assert "PSQLError" not in message, message
            assert time.monotonic() - started < 4, "the start waited for the pool instead of saying why at once"
