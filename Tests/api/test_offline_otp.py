"""The live walk's offline OTP (docs/behaviour.md#offline-otp): generated on a phone whose backend
is unreachable (a fault) and typed into the relying party's otpLogin, and computed independently
by a device of the test's own on the wire (docs/otp.md); and, on a server whose phones use a
backend that is down, SERVER_CONNECTION_ERROR.

Environment: as client.py says, and
  AUTHPHONE_OFFLINE_URL      optional: a server started with --backend-url AUTHPHONE_OFFLINE_BACKEND,
  AUTHPHONE_OFFLINE_BACKEND  an address where nothing listens (SERVER_CONNECTION_ERROR)
"""

import json
import os
import re
import time

import pytest

from client import (
    BASE_URL, NO_PHONE, NO_SESSION, PIN, Api, describe, enrol_phone, in_background, moment, new_phone, new_session,
    screen_of, uniq,
)
from device import Device, crockford, otp_step
from document import FINISHED

OFFLINE_URL = os.environ.get("AUTHPHONE_OFFLINE_URL", "").rstrip("/")
OFFLINE_BACKEND = os.environ.get("AUTHPHONE_OFFLINE_BACKEND", "").rstrip("/")


def log_in_on_screen(api, phone, user, screen):
    """An online login by QR code on the phone's screen, with the PIN."""
    login = new_session(api, "login", user)
    api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": login["qrText"]}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession"})
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "LOGIN"
    assert api.call("getSession", path={"id": login["id"]}, expect=200)[1]["status"] == "loggedin"


def next_start(screen, predicate, what):
    """The first `session` message of a scanned session the screen has not shown yet that fits."""
    known = {m["session"]["id"] for m in screen.seen if m["type"] == "session"}
    return screen.until(lambda m: m["type"] == "session" and m["session"]["id"] not in known
                        and predicate(m["session"]), what)["session"]


def session_message(screen, session_id, predicate, what):
    return screen.until(lambda m: m["type"] == "session" and m["session"]["id"] == session_id
                        and predicate(m["session"]), what)["session"]


def test_walk_offline_otp(api):
    """The offline OTP (docs/behaviour.md#offline-otp): a login QR code scanned while the backend is unreachable for the phone (a fault):
    502 at once, the session STARTING and retried in the background, the offline OTP generated on
    the phone and typed into the relying party's otpLogin; the server flag, the refusals, the
    lock after 100 wrong codes and its reset by an online login; the offline fault, the account
    choice, a cancel, and an OTP generated while the session was still on its way. Then a device
    of the test's own agrees the OTP key on the wire and computes the codes itself (docs/otp.md)."""
    api.call("setServerFlags", body={"flags": {"ENABLE_OTP": False}}, expect=200)
    _, flags = api.call("getServerFlags", "allOff", expect=200)
    assert flags == {"flags": {"ENABLE_OTP": False, "SKIP_CONFIRMATION": False, "SKIP_SECOND_FACTOR": False}}
    phone = new_phone(api, "OTP phone")
    path = {"id": phone["id"]}
    user = uniq("olivia")
    account = enrol_phone(api, phone, user)
    screen = screen_of(api, phone)
    # The enrolment's session arrived: nothing to generate an OTP for.
    api.call("generateOTP", "notAvailable", path=path, expect=409)
    api.call("updatePhoneSettings", "countdownOutOfRange", path=path, expect=400)
    try:
        # The backend refuses this phone's connections: the scan answers 502 at once, and the
        # session stays STARTING with the OTP on offer while the phone keeps trying.
        api.call("addFault", body={"target": "phone", "phoneId": phone["id"], "kind": "unreachable"}, expect=201)
        login = new_session(api, "login", user)
        scanned = time.time()
        api.call("startOutOfBand", "serverConnectionError", path=path, body={"qr": login["qrText"]}, expect=502)
        answered = time.time()
        started = next_start(screen, lambda s: s["state"] == "STARTING" and s["connectionError"],
                             "the session starting")
        assert started["otpAvailable"] is True and [a["id"] for a in started["accounts"]] == [account]
        assert started["error"]["code"] == "SERVER_CONNECTION_ERROR" and "nextAttemptAt" in started
        # the countdown starts during the scan (dates are whole seconds)
        assert scanned - 1 <= moment(started["otpOfferAt"]) - 60 <= answered + 1, "the default countdown is 60 s"
        session_message(screen, started["id"], lambda s: s["attempts"] >= 2, "a retry in the background")
        _, detail = api.call("getPhone", "sessionStarting", path=path, expect=200)
        assert detail["session"]["id"] == started["id"] and detail["session"]["state"] == "STARTING"
        api.call("startOutOfBand", "flowActive", path=path, body={"qr": login["qrText"]}, expect=409)

        # The OTP, generated on the phone: the session stops.
        api.call("generateOTP", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)
        api.call("generateOTP", "unknownAccount", path=path, expect=400)
        _, stopped = api.call("generateOTP", "onlyAccount", path=path, expect=200)
        assert stopped["state"] == "STOPPED" and stopped["stopReason"] == "OTP_GENERATED"
        assert stopped["otpAccountId"] == account and re.fullmatch(r"[0-9A-Z]{6} [0-9A-Z]{6}", stopped["otp"])
        shown = session_message(screen, started["id"], lambda s: s["state"] == "STOPPED", "the OTP")
        assert shown["otp"] == stopped["otp"]
        api.call("generateOTP", "notAvailable", path=path, body={}, expect=409)
        otp = stopped["otp"]

        # The relying party: off until the server flag is set.
        session = {"id": login["id"]}
        api.call("otpLogin", "otpDisabled", path=session, merge={"otp": otp}, expect=403)
        _, flags = api.call("setServerFlags", "enable", expect=200)
        assert flags == {"flags": {"ENABLE_OTP": True, "SKIP_CONFIRMATION": False, "SKIP_SECOND_FACTOR": False}}
        api.call("setServerFlags", "unknownFlag", expect=400)
        assert api.call("getServerFlags", expect=200)[1] == flags, "a refused change changes nothing"
        api.call("otpLogin", "badFormat", path=session, expect=400)
        wrong = otp[:7] + ("0" if otp[7] != "0" else "1") + otp[8:]
        api.call("otpLogin", "wrongOtp", path=session, merge={"otp": wrong}, expect=403)
        api.call("otpLogin", "sessionNotFound", path={"id": NO_SESSION}, merge={"otp": otp}, expect=404)
        enrolment = new_session(api, "enrol", uniq("nobody"))
        api.call("otpLogin", "notALogin", path={"id": enrolment["id"]}, merge={"otp": otp}, expect=409)
        _, logged = api.call("otpLogin", "otpLogin", path=session, merge={"otp": otp.lower().replace(" ", "-")},
                             expect=200)
        assert logged["status"] == "loggedin" and logged["otplogin"] is True and logged["accountId"] == account
        _, status = api.call("getSession", path=session, expect=200)
        assert status["loggedin"] is True and status["otplogin"] is True
        api.call("otpLogin", "finished", path=session, merge={"otp": otp}, expect=409)

        # 100 wrong codes in a row lock the account's OTP, right codes included ...
        locked = new_session(api, "login", user)
        for value in range(100):
            _, refusal = api.call("otpLogin", path={"id": locked["id"]},
                                  body={"otp": f"{otp[:6]} {crockford(value, 6)}"}, expect=403)
            assert refusal["error"]["code"] == "OTP_REJECTED"
        assert "100 of 100" in refusal["error"]["message"]
        api.call("otpLogin", "locked", path={"id": locked["id"]}, merge={"otp": otp}, expect=429)
    finally:
        api.call("clearFaults", expect=204)

    # ... until the user logs in online with the account.
    log_in_on_screen(api, phone, user, screen)
    _, refusal = api.call("otpLogin", path={"id": locked["id"]}, body={"otp": wrong}, expect=403)
    assert refusal["error"]["code"] == "OTP_REJECTED" and "(1 of 100" in refusal["error"]["message"]

    # A phone that knows it is offline offers the OTP at once; with two accounts at the server
    # it asks which one (the phone cannot tell whose login it is).
    other_user = uniq("oscar")
    other_account = enrol_phone(api, phone, other_user)
    try:
        _, fault = api.call("addFault", "phoneOffline", merge={"phoneId": phone["id"]}, expect=201)
        api.call("addFault", "offlineBackend", expect=400)
        login = new_session(api, "login", user)
        scanned = time.time()
        _, refusal = api.call("startOutOfBand", path=path, body={"qr": login["qrText"]}, expect=502)
        answered = time.time()
        assert refusal["error"]["code"] == "SERVER_CONNECTION_ERROR" and refusal["error"]["sdkCode"] == 70
        offered = next_start(screen, lambda s: s["state"] == "STARTING" and s["connectionError"],
                             "the session starting offline")
        assert scanned - 1 <= moment(offered["otpOfferAt"]) <= answered + 1, "offline: the OTP is offered at once"
        assert sorted(a["id"] for a in offered["accounts"]) == sorted([account, other_account])
        api.call("generateOTP", "accountRequired", path=path, expect=400)
        _, stopped = api.call("generateOTP", "chosenAccount", path=path, merge={"account": other_account},
                              expect=200)
        assert stopped["otpAccountId"] == other_account
        # the other user's code does not log this user in
        api.call("otpLogin", "otherUsersAccount", path={"id": login["id"]}, merge={"otp": stopped["otp"]},
                 expect=403)

        # A cancel on the screen stops a starting session.
        login = new_session(api, "login", user)
        api.call("startOutOfBand", path=path, body={"qr": login["qrText"]}, expect=502)
        starting = next_start(screen, lambda s: s["state"] == "STARTING", "the session")
        screen.send({"action": "cancel"})
        cancelled = session_message(screen, starting["id"], lambda s: s["state"] == "STOPPED", "the cancel")
        assert cancelled["stopReason"] == "USER_CANCELED" and "otp" not in cancelled
        api.call("generateOTP", path=path, body={"account": account}, expect=409)
        api.call("removeFault", path={"id": fault["id"]}, expect=204)

        # An OTP generated while the session is still on its way (a slow backend): the session
        # arrives stopped, and the scan answers 409; the OTP still logs in.
        api.call("addFault", body={"target": "phone", "phoneId": phone["id"], "kind": "latency", "maximumMs": 5000,
                                   "count": 1}, expect=201)
        login = new_session(api, "login", other_user)
        scan = in_background(lambda: Api(BASE_URL).call("startOutOfBand", "sessionStopped", path=path,
                                                        body={"qr": login["qrText"]}, expect=409))
        next_start(screen, lambda s: s["state"] == "STARTING", "the session on its way")
        _, stopped = api.call("generateOTP", path=path, body={"account": other_account}, expect=200)
        scan()
        assert api.call("getSession", path={"id": login["id"]}, expect=200)[1]["status"] == "redeemed"
        _, logged = api.call("otpLogin", path={"id": login["id"]}, body={"otp": stopped["otp"]}, expect=200)
        assert logged["otplogin"] is True and logged["accountId"] == other_account
    finally:
        api.call("clearFaults", expect=204)
    screen.close()

    # A device of the test's own agrees the OTP key at enrolment and computes the codes itself.
    device = Device(api)
    wire_user = uniq("wanda")
    enrol = new_session(api, "enrol", wire_user)
    device.redeem(enrol, None)
    device.confirm(enrol["id"], None)
    api.call("enrolAccount", "badOtpKey", path={"id": enrol["id"]}, merge={"deviceId": device.id}, expect=400)
    wire_account = device.enrol(enrol["id"], "otpKey", otp=True)
    # the previous step's code is accepted once, then the current one, then no other code of that
    # step; should a step end in between, on a fresh account again (steps are 120 s: once at most)
    for _ in range(2):
        step = otp_step()
        first, second, third = (new_session(api, "login", wire_user) for _ in range(3))
        answers = [api.call("otpLogin", path={"id": login["id"]}, body={"otp": device.otp(wire_account, login, at)})
                   for login, at in ((first, step - 1), (second, step), (third, step))]
        if otp_step() == step:
            break
        wire_account = device.enrol_user(wire_user, examples=False, otp=True)
    for response, logged in answers[:2]:
        assert response.status_code == 200, describe(response)
        assert logged["otplogin"] is True and logged["accountId"] == wire_account
    response, refusal = answers[2]
    assert response.status_code == 403, describe(response)
    assert refusal["error"]["code"] == "OTP_REJECTED", "a step that already logged in takes no second code"
    FINISHED.add("otp")


@pytest.mark.skipif(not (OFFLINE_URL and OFFLINE_BACKEND), reason="AUTHPHONE_OFFLINE_URL/_BACKEND are not set")
def test_backend_unreachable():
    """On a server whose phones use a backend that is down: SERVER_CONNECTION_ERROR."""
    offline = Api(OFFLINE_URL)
    phone = new_phone(offline, "Offline phone")
    payload = {"nma_data": {"redeem_url": f"{OFFLINE_BACKEND}/api/backend/redeem", "token": "abc"},
               "nma_data_content_type": "application/json", "nma_data_version": "1"}
    offline.call("startOutOfBand", "serverConnectionError", path={"id": phone["id"]},
                 body={"qr": json.dumps(payload)}, expect=502)
    # no account at that server, so no OTP to offer: the session stopped at the first failure
    _, detail = offline.call("getPhone", path={"id": phone["id"]}, expect=200)
    assert detail["session"]["state"] == "STOPPED" and detail["session"]["stopReason"] == "SERVER_CONNECTION_ERROR"
    assert detail["session"]["accounts"] == [] and detail["session"]["otpAvailable"] is False
    offline.call("generateOTP", "notAvailable", path={"id": phone["id"]}, expect=409)
    FINISHED.add("offline")
