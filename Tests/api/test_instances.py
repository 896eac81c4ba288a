"""What two instances on one PostgreSQL share (docs/operating.md, "More than one instance"): a
phone made on one enrols through a session started on the other's console; a login pushed
through one's FCM endpoint reaches the phone's screen open on the other; 20 wrong PINs sent at
once through both block the PIN after exactly 3; a phone's requests, streams and pushes meet its
one flow on its home, whichever instance they reach; 20 users logging in at once through both
meet no DATABASE_ERROR. The instances come from instances.py.
"""

import concurrent.futures
import copy
import json
import subprocess
import time

import requests

from client import PIN, TIMEOUT, EventStream, enrolled_token, new_phone, new_session, open_on_screen, screen_of, wait_for
from device import Device
from instances import fresh_database, two_instances, needs_postgres
from privacyidea_server import running_privacyidea
from servers import BINARY, free_port

pytestmark = needs_postgres


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
        # the session's creation, which A tells B of through PostgreSQL, may reach B after the stream opened
        assert statuses[1 if statuses[0] == "pending" else 0] == "redeemed", statuses
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


def test_a_text_one_instance_takes_reaches_the_screen_and_the_stream_on_the_other(tmp_path):
    """An SMS gateway behind a load balancer: the instance a sender reaches is not the one the
    phone's screen and a script's stream are open on (docs/sms.md)."""
    with two_instances(tmp_path) as (a, b, _):
        phone = new_phone(a)
        b.call("getPhone", path={"id": phone["id"]}, expect=200)  # B serves it first: B is its home
        screen = screen_of(b, phone)
        stream = EventStream(b.base, {"phone": phone["id"], "kind": "sms"})
        account = a.call("getSMSAccount", expect=200)[1]
        assert b.call("getSMSAccount", expect=200)[1] == account  # one account for the cluster
        sent = requests.post(a.base + "/sms/send", data={"to": phone["number"], "text": "Your code is 161803"},
                             auth=(account["accountSid"], account["authToken"]), timeout=TIMEOUT)
        assert sent.status_code == 200, sent.text
        shown = screen.until(lambda m: m["type"] == "textMessage", "the text on the other instance's screen")["textMessage"]
        assert (shown["id"], shown["code"]) == (sent.json()["id"], "161803")
        event = stream.until(lambda e: e["event"] == "sms")[-1]
        assert event["data"]["sms"]["id"] == shown["id"]
        stream.drop()
        screen.close()
