"""What two instances on one PostgreSQL survive (docs/operating.md, "More than one instance"):
an instance killed with SIGKILL loses nothing it acknowledged and the other takes its phones
over; PostgreSQL restarted under load, or stopped (/ready says so within 2 s); an instance paused
past its lease runs none of the phones taken meanwhile; a database that cannot be used stops the
start with the reason. The instances come from instances.py.
"""

import concurrent.futures
import json
import signal
import socket
import subprocess
import threading
import time
import urllib.parse

import websocket

from client import TIMEOUT, EventStream, new_phone, new_session, screen_of, wait_for
from device import Device
from instances import POSTGRES, fresh_database, two_instances, postgres, needs_postgres
from servers import BINARY, free_port

pytestmark = needs_postgres


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
        assert sorted(states) == ["backend", "phones", "push", "sms", "timeline"]
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
    screen is told PHONE_MOVED and closed, its event stream about it ends, its own flow for it is
    no longer under way, and a flow started through A runs on B. The phone nobody took stays on
    A, its flow going on."""
    with two_instances(tmp_path) as (a, b, process_a):
        taken, kept = new_phone(b), new_phone(b)
        screens = {}
        for phone, user in ((taken, "hal"), (kept, "ivy")):
            screens[phone["id"]] = screen_of(a, phone)  # A runs both phones
            a.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": new_session(b, "enrol", user)["qrText"]}, expect=202)
            screens[phone["id"]].flow("WAIT_FOR_INPUT", "CONFIRM")
        assert (flows_underway(a), flows_underway(b)) == (2, 0)
        # a script's event stream about the phone B will take, served by A
        events = EventStream(a.base, {"phone": taken["id"]})
        events_ended = threading.Event()
        threading.Thread(target=lambda: (events.response.read(), events_ended.set()), daemon=True).start()

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
        assert events_ended.wait(10), "A kept the event stream of a phone it no longer runs"
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
