"""The live walk's first story: a phone, an enrolment by QR code on its screen, a login from a
pushed notification, a login found by the pull fallback and cancelled, a QR code's picture as the
camera sees it, and the refusals around them; and, on a server whose sessions live 10 s, the
expired token and session refusals.

Environment: as client.py says, and
  AUTHPHONE_EXPIRY_URL  optional: a server started with --session-lifetime 10, for the expiry
                        examples (TOKEN_EXPIRED, SESSION_EXPIRED)
"""

import json
import os
import time
import uuid

import pytest
import websocket

from client import (
    BASE_URL, NO_PHONE, NO_SESSION, PIN, TIMEOUT, WRONG_PIN, Api, Screen, moment, new_phone, new_session, origin_of,
    payload_of, screen_of, svg_to_png, uniq, wait_for,
)
from device import Device
from document import FINISHED, OPS, check_schema, schema

EXPIRY_URL = os.environ.get("AUTHPHONE_EXPIRY_URL", "").rstrip("/")

# What the enrolment leaves for the login that follows it: the phone, the user and the account.
WALK = {}


def test_walk_phones_and_enrolment(api):
    """A phone, an enrolment by QR code on its screen, and the refusals around them."""
    api.call("health", "ok", expect=200)
    console = websocket.create_connection(BASE_URL.replace("http", "ws", 1) + "/api/backend/stream", timeout=TIMEOUT)

    # A phone, and the ways to get it wrong.
    _, phone = api.call("createPhone", "qaPhone", expect=201)
    api.call("createPhone", "emptyName", expect=400)
    api.call("createPhone", "missingName", expect=400)
    api.call("createPhone", body={"name": "same-site phone"}, headers={"Origin": BASE_URL}, expect=201)
    _, phones = api.call("listPhones", "onePhone", expect=200)
    assert phone in phones["phones"]
    _, detail = api.call("getPhone", "newPhone", path={"id": phone["id"]}, expect=200)
    assert {k: detail[k] for k in phone} == phone and "flow" not in detail
    api.call("getPhone", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    # a stale phone link is still the phone page, which says so
    _, missing = api.call("phonePage", path={"id": NO_PHONE}, expect=404)
    assert "<title>No such phone" in missing

    # An enrolment session, shown on the console.
    user = uniq("alice")
    _, session = api.call("createSession", "enrol", merge={"userId": user}, expect=201)
    assert session["userId"] == user and session["displayName"] == "Alice"
    server = origin_of(payload_of(session["qrText"])["nma_data"]["redeem_url"])
    _, svg = api.call("getSessionQRCode", path={"id": session["id"]}, expect=200)
    assert svg.startswith("<svg")
    api.call("getSessionQRCode", "sessionNotFound", path={"id": NO_SESSION}, expect=404)
    api.call("getSession", "sessionNotFound", path={"id": NO_SESSION}, expect=404)

    # The phone scans the QR code.
    screen = Screen(BASE_URL, phone["id"])
    hello = screen.next()
    assert hello["type"] == "phone" and hello["phone"]["id"] == phone["id"]
    _, started = api.call("startOutOfBand", "enrolQr", path={"id": phone["id"]}, merge={"qr": session["qrText"]},
                          expect=202)
    assert started["flow"]["session"]["id"] == session["id"]
    _, sessions = api.call("listSessions", "oneSession", expect=200)
    assert sessions["sessions"][0]["id"] == session["id"]
    api.call("startOutOfBand", "flowActive", path={"id": phone["id"]}, body={"qr": session["qrText"]}, expect=409)

    # Refusals of the payload, on a phone without a flow.
    other = new_phone(api, "Refusing phone")
    for name in ("malformedQr", "emptyQr", "twoPayloads", "notAnObject", "ftpLink", "joseContentType", "version2",
                 "missingNmaData", "pushWithoutPayload", "foreignServer"):
        api.call("startOutOfBand", name, path={"id": other["id"]})
    for name in ("unknownToken", "notTheRedeemRoute"):
        request = OPS["startOutOfBand"].request_examples[name][0]
        api.call("startOutOfBand", name, path={"id": other["id"]},
                 merge={"qr": request["qr"].replace("http://127.0.0.1:49111", server)})
    api.call("startOutOfBand", "enrolQrUsed", path={"id": other["id"]}, body={"qr": session["qrText"]},
             expect=410)
    api.call("startOutOfBand", "phoneNotFound", path={"id": NO_PHONE}, body={"qr": session["qrText"]}, expect=404)

    # The user confirms and sets a PIN on the screen.
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    refused = screen.until(lambda m: m["type"] == "error", "the refusal of a PIN before the confirmation")
    assert refused["error"]["code"] == "UNEXPECTED_INPUT"
    screen.send({"action": "confirmSession"})
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": "12"})
    assert screen.until(lambda m: m["type"] == "error", "a short PIN refused")["error"]["code"] == "INVALID_PIN_FORMAT"
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    done = screen.flow("DONE")
    assert done["type"] == "ENROL"
    screen.close()
    _, detail = api.call("getPhone", "enrolled", path={"id": phone["id"]}, expect=200)
    assert [a["userId"] for a in detail["accounts"]] == [user] and detail["flow"]["state"] == "DONE"
    _, enrolled = api.call("getSession", path={"id": session["id"]}, expect=200)
    assert enrolled["status"] == "enrolled" and enrolled["accountId"] == detail["accounts"][0]["id"]

    # Settings: on and off again (the next test wants pushes in the inbox).
    _, changed = api.call("updatePhoneSettings", "openPushesAtOnce", path={"id": phone["id"]}, expect=200)
    assert changed["settings"]["openPushesAtOnce"] is True
    _, changed = api.call("updatePhoneSettings", path={"id": phone["id"]}, body={"openPushesAtOnce": False},
                          expect=200)
    assert changed["settings"]["openPushesAtOnce"] is False
    api.call("updatePhoneSettings", "notABoolean", path={"id": phone["id"]}, expect=400)
    api.call("updatePhoneSettings", "phoneNotFound", path={"id": NO_PHONE}, body={"openPushesAtOnce": True},
             expect=404)

    # The console saw the session change, each time the whole session, up to its end.
    seen = []
    deadline = time.monotonic() + TIMEOUT
    while not any(s["id"] == session["id"] and s["status"] == "enrolled" for s in seen):
        assert time.monotonic() < deadline, f"the console never showed the enrolment: {seen[-3:]}"
        message = json.loads(console.recv())
        check_schema(message, schema("ConsoleMessage"), "a console message")
        seen.append(message["session"])
    console.close()
    statuses = [s["status"] for s in seen if s["id"] == session["id"]]
    assert statuses[:1] == ["pending"] and statuses[-1] == "enrolled", statuses
    WALK.update(phone=phone, user=user, account=detail["accounts"][0]["id"])
    FINISHED.add("phones")


def test_walk_login_by_push_and_cancel(api):
    """The enrolled user logs in from a pushed notification, then cancels a login by link."""
    if "phones" not in FINISHED:
        pytest.skip("needs test_walk_phones_and_enrolment")
    phone, user, account = WALK["phone"], WALK["user"], WALK["account"]
    screen = screen_of(api, phone)

    _, session = api.call("createSession", "loginByPush", merge={"userId": user}, expect=201)
    note = screen.until(lambda m: m["type"] == "notification", "the pushed notification")["notification"]
    _, inbox = api.call("getInbox", "loginPush", path={"id": phone["id"]}, expect=200)
    assert [m["id"] for m in inbox["messages"]] == [note["id"]]
    api.call("openInboxMessage", "messageNotFound", path={"id": phone["id"], "message": str(uuid.uuid4())}, body=None,
             expect=404)
    api.call("openInboxMessage", "phoneNotFound", path={"id": NO_PHONE, "message": note["id"]}, expect=404)
    _, started = api.call("openInboxMessage", "loginPush", path={"id": phone["id"], "message": note["id"]}, expect=202)
    assert started["flow"]["session"]["id"] == session["id"]
    _, inbox = api.call("getInbox", "empty", path={"id": phone["id"]}, expect=200)

    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession", "account": account})
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": WRONG_PIN})
    failed = screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"].get("previousInteractionResult", {})
                          .get("type") == "PIN_FAIL" and m["flow"]["state"] == "WAIT_FOR_INPUT", "a PIN_FAIL")["flow"]
    assert failed["secondFactorAccount"]["failedAttempts"] == 1
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "LOGIN"
    api.call("getSession", "loggedIn", path={"id": session["id"]}, expect=200)

    # A login found by the pull fallback, opened by its deep link, cancelled on the screen.
    _, session = api.call("createSession", "login", merge={"userId": user}, expect=201)
    _, pending = api.call("getPendingOperations", "oneLogin", path={"id": phone["id"]}, expect=200)
    assert [(o["sessionId"], o["payload"]) for o in pending["operations"]] == [(session["id"], session["qrText"])]
    api.call("startOutOfBand", "loginLink", path={"id": phone["id"]}, merge={"link": session["deepLink"]}, expect=202)
    api.call("getPendingOperations", "none", path={"id": phone["id"]}, expect=200)
    api.call("getPendingOperations", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "cancel"})
    assert screen.flow("ERROR")["error"]["code"] == "USER_CANCELED"
    api.call("getSession", "canceled", path={"id": session["id"]}, expect=200)

    # A phone that opens pushes at once: the pushed login is on the screen without an open.
    api.call("updatePhoneSettings", path={"id": phone["id"]}, body={"openPushesAtOnce": True}, expect=200)
    _, pushed = api.call("createSession", body={"type": "login", "userId": user, "delivery": "push"}, expect=201)
    assert screen.flow("WAIT_FOR_INPUT", "CONFIRM")["session"]["id"] == pushed["id"]
    wait_for(lambda: not api.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"],
             "the opened push leaving the inbox")
    screen.send({"action": "cancel"})
    screen.flow("ERROR")
    screen.close()

    # Pushes nobody receives, and sessions that are not sessions.
    api.call("createSession", "pushNobody", merge={"userId": uniq("bob")}, expect=201)
    api.call("createSession", "pushUnknownToken", merge={"userId": uniq("bob")}, expect=201)
    api.call("createSession", "badType", expect=400)
    api.call("createSession", "emptyUser", expect=400)

    # A session whose push someone else sends (the push composer): the backend pushes nothing
    # and says how it goes; a push token for the backend to push to does not go with it.
    _, external = api.call("createSession", "externalPush", merge={"userId": user}, expect=201)
    assert (external["delivery"], external.get("dispatch")) == ("external", None), external
    refused = api.call("createSession", body={"type": "login", "userId": user, "delivery": "external", "pushToken": "t"},
                       expect=400)[1]
    assert refused["error"]["code"] == "INVALID_FIELD" and "pushToken" in refused["error"]["message"], refused

    # A push carrying an enrolment, handed to a new phone directly.
    pushed = new_phone(api, "Push phone")
    enrol = new_session(api, "enrol", uniq("grace"), displayName="Grace Hopper")
    data = payload_of(enrol["qrText"])
    request = OPS["startOutOfBand"].request_examples["enrolPush"][0]
    api.call("startOutOfBand", "enrolPush", path={"id": pushed["id"]}, merge={"push": {"message": {
        "token": pushed["fcmToken"],
        "data": {**request["push"]["message"]["data"],
                 "nma_data": json.dumps(data["nma_data"], separators=(",", ":"), sort_keys=True)}}}}, expect=202)
    FINISHED.add("login")


def test_walk_qr_pictures(api):
    """A picture of a QR code, as the phone's camera would see it."""
    phone = new_phone(api, "Camera phone")
    session = new_session(api, "enrol", uniq("judy"), displayName="Judy")
    _, svg = api.call("getSessionQRCode", path={"id": session["id"]}, expect=200)
    picture = svg_to_png(svg)
    response, started = api.call("startOutOfBandFromImage", path={"id": phone["id"]}, raw=picture,
                                 content_type="image/png")
    api.check(OPS["startOutOfBandFromImage"], response, "enrolImage")
    assert started["flow"]["session"]["id"] == session["id"]
    api.call("startOutOfBandFromImage", "notAnImage", path={"id": phone["id"]}, raw=b"hello",
             content_type="image/png", expect=400)
    blank = svg_to_png('<svg viewBox="0 0 29 29"></svg>')
    api.call("startOutOfBandFromImage", "noQrCode", path={"id": phone["id"]}, raw=blank, content_type="image/png",
             expect=422)
    # a camera's frame without a code is no error (a camera sends many), and starts nothing
    response, _ = api.call("startOutOfBandFromImage", path={"id": phone["id"]}, raw=blank, content_type="image/png",
                           query={"frame": ""}, expect=204)
    assert response.content == b""
    assert api.call("getPhone", path={"id": phone["id"]}, expect=200)[1]["flow"]["id"] == started["flow"]["id"]
    api.call("startOutOfBandFromImage", "imageTooLarge", path={"id": phone["id"]}, raw=bytes(8 * 1024 * 1024 + 1),
             content_type="image/png", expect=413)
    api.call("startOutOfBandFromImage", "phoneNotFound", path={"id": NO_PHONE}, raw=picture,
             content_type="image/png", expect=404)
    FINISHED.add("pictures")


@pytest.mark.skipif(not EXPIRY_URL, reason="AUTHPHONE_EXPIRY_URL is not set")
def test_expiry():
    """On a server whose sessions live 10 s: the expired token and session refusals."""
    short = Api(EXPIRY_URL)
    phone = new_phone(short, "Late phone")
    device = Device(short)
    late_user = uniq("late")
    Device(short).enrol_user(late_user, examples=False)  # a login needs a user with an account
    scanned = new_session(short, "login", late_user)
    late_enrol = new_session(short, "enrol", uniq("late"))
    redeemed = new_session(short, "enrol", uniq("late"))
    late_login = new_session(short, "login", late_user)
    short.call("setServerFlags", body={"flags": {"ENABLE_OTP": True}}, expect=200)
    device.redeem(redeemed, "enrol")
    for session in (scanned, late_enrol, redeemed, late_login):  # the server's own clock says when
        wait_for(lambda: short.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"] == "expired",
                 f"the expiry of {session['id']}", within=moment(session["expiresAt"]) - time.time() + TIMEOUT)
    short.call("startOutOfBand", "tokenExpired", path={"id": phone["id"]}, body={"qr": scanned["qrText"]}, expect=410)
    token = payload_of(scanned["qrText"])["nma_data"]["token"]
    short.call("redeemToken", "tokenExpired", body=device.redeeming(token), expect=410)
    short.call("startOutOfBand", "enrolQrExpired", path={"id": phone["id"]}, body={"qr": late_enrol["qrText"]}, expect=410)
    short.call("confirmSession", "sessionExpired", path={"id": redeemed["id"]},
               body={"deviceId": device.id, "deviceSignature": device.confirming(redeemed["id"])}, expect=410)
    short.call("otpLogin", "sessionExpired", path={"id": late_login["id"]}, body={"otp": "2XPP7Q R5BDD0"}, expect=410)
    assert short.call("getSession", path={"id": scanned["id"]}, expect=200)[1]["status"] == "expired"
    FINISHED.add("expiry")
