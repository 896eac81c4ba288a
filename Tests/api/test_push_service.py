"""The live walk's push story: FCM's sends to a phone and its inbox, FCM's refusals, the push log
and the composer's kept state, and a session pushed from its card with the timeline of its
exchanges (JSON and HAR).

Environment: as client.py says.
"""

import json

import requests

from client import BASE_URL, NO_PHONE, NO_SESSION, TIMEOUT, new_phone, new_session, origin_of, payload_of, uniq
from device import Device
from document import FINISHED, OPS


def test_walk_push_service(api):
    """FCM sends to a phone, its inbox, and FCM's refusals."""
    phone = new_phone(api, "Inbox phone")
    token = phone["fcmToken"]
    api.call("sendPush", "send", path={"project": "authphone"}, merge={"message": {"token": token}}, expect=200)
    api.call("sendPush", "validateOnly", path={"project": "authphone"}, merge={"message": {"token": token}},
             expect=200)
    _, inbox = api.call("getInbox", path={"id": phone["id"]}, expect=200)
    assert len(inbox["messages"]) == 1, "validate_only must not deliver"
    message = inbox["messages"][0]
    assert message["message"]["data"] == {"hello": "world"} and message["message"]["from"] == "authphone"
    api.call("openInboxMessage", "plainMessage", path={"id": phone["id"], "message": message["id"]}, expect=400)
    assert len(api.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"]) == 1, \
        "a message that did not open must stay"
    api.call("clearInbox", path={"id": phone["id"]}, expect=204)
    api.call("getInbox", "empty", path={"id": phone["id"]}, expect=200)
    api.call("getInbox", "phoneNotFound", path={"id": NO_PHONE}, expect=404)

    # To the phone's Firebase installation id, which its token carries; never two targets.
    assert token.startswith(phone["fid"] + ":")
    api.call("sendPush", "fid", path={"project": "authphone"}, merge={"message": {"fid": phone["fid"]}}, expect=200)
    api.call("sendPush", "twoTargets", path={"project": "authphone"},
             merge={"message": {"token": token, "fid": phone["fid"]}}, expect=400)
    # A pasted push lands in the inbox as a delivered one does; one without a payload does not.
    _, pasted = api.call("receivePush", "loginPush", path={"id": phone["id"]}, expect=201)
    api.call("receivePush", "pushWithoutPayload", path={"id": phone["id"]}, expect=400)
    api.call("receivePush", "notOnlyPush", path={"id": phone["id"]}, expect=400)
    api.call("receivePush", "phoneNotFound", path={"id": NO_PHONE}, body={"push": {"data": {}}}, expect=404)
    _, inbox = api.call("getInbox", path={"id": phone["id"]}, expect=200)
    assert [m["id"] for m in inbox["messages"]][-1] == pasted["id"] and len(inbox["messages"]) == 2
    api.call("clearInbox", path={"id": phone["id"]}, expect=204)
    api.call("clearInbox", "phoneNotFound", path={"id": NO_PHONE}, expect=404)

    # A push whose payload points at no redeem route: the phone refuses it before any request.
    server = origin_of(payload_of(new_session(api, "enrol", uniq("nobody"))["qrText"])["nma_data"]["redeem_url"])
    nma_data = json.dumps({"redeem_url": f"{server}/nowhere", "token": "abc"}, separators=(",", ":"))
    api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": token, "data": {
        "nma_data": nma_data, "nma_data_content_type": "application/json", "nma_data_version": "1"}}}, expect=200)
    message = api.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"][0]
    api.call("openInboxMessage", "notTheRedeemRoute", path={"id": phone["id"], "message": message["id"]}, expect=403)

    api.call("sendPush", "unregistered", path={"project": "authphone"}, expect=404)
    api.call("sendPush", "senderIdMismatch", path={"project": "other"}, merge={"message": {"token": token}},
             expect=403)
    api.call("sendPush", "noTarget", path={"project": "authphone"}, expect=400)
    big = json.dumps({"message": {"token": token, "data": {"pad": "x" * 70_000}}}).encode()
    api.call("sendPush", "payloadTooLarge", path={"project": "authphone"}, raw=big, expect=400)

    busy = new_phone(api, "Busy phone")
    for index in range(30):
        api.call("sendPush", path={"project": "authphone"},
                 body={"message": {"token": busy["fcmToken"], "data": {"n": str(index)}}}, expect=200)
    api.call("sendPush", "quotaExceeded", path={"project": "authphone"},
             body={"message": {"token": busy["fcmToken"], "data": {"n": "31"}}}, expect=429)
    FINISHED.add("push")


def test_walk_push_log(api):
    """The push log lists every send, from anyone, with its outcome; filters it; the composer's
    state is kept per console."""
    phone = new_phone(api, "Logged phone")
    token = phone["fcmToken"]
    name = api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": token, "data": {"k": "v"}}},
                    expect=200)[1]["name"]
    api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": token, "topic": "news"}},
             expect=400)
    _, log = api.call("listPushMessages", "pushLog", query={"phone": phone["id"]}, expect=200)
    assert [m["outcome"] for m in log["messages"]] == ["INVALID_ARGUMENT", "inbox"]
    assert log["messages"][0]["rule"] == "oneTarget" and log["messages"][1]["name"] == name
    assert all(m["sender"] == "127.0.0.1" and m["target"] == token for m in log["messages"])
    api.call("listPushMessages", "unknownOutcome", query={"outcome": "lost"}, expect=400)
    api.call("listPushMessages", "phoneNotFound", query={"phone": NO_PHONE}, expect=404)

    console = uniq("walk")
    api.call("getComposerState", "nothingKept", path={"console": console}, expect=200)
    api.call("getComposerState", "invalidConsole", path={"console": "no way"}, expect=400)
    _, kept = api.call("saveComposerState", "lastMessage", path={"console": console}, expect=200)
    assert api.call("getComposerState", path={"console": console}, expect=200)[1] == kept
    api.call("saveComposerState", "extraField", path={"console": console}, expect=400)
    assert api.call("getComposerState", path={"console": console}, expect=200)[1] == kept, "a refusal changed it"
    FINISHED.add("push log")


def test_walk_timeline(api):
    """The session card's "Push to phone", and the timeline of the session and the phone, as JSON
    and as HAR; a session a phone has taken is not pushed again."""
    phone = new_phone(api, "Timeline phone")
    user = uniq("timeline")
    Device(api).enrol_user(user, examples=False)  # a login needs a user with an account
    session = new_session(api, "login", user)
    _, pushed = api.call("pushSession", "pushSession", path={"id": session["id"]}, merge={"pushToken": phone["fcmToken"]},
                         expect=200)
    assert pushed["delivery"] == "push" and pushed["dispatch"] == "dispatched" and pushed["status"] == "pending"
    api.call("pushSession", "badToken", path={"id": session["id"]}, expect=400)
    api.call("pushSession", "sessionNotFound", path={"id": NO_SESSION}, body={"pushToken": phone["fcmToken"]}, expect=404)
    _, timeline = api.call("getSessionTimeline", "sessionTimeline", path={"id": session["id"]}, expect=200)
    assert [(hop["from"], hop["to"]) for hop in timeline["hops"]] == [("backend", "push"), ("push", "phone")]
    assert "…" in timeline["hops"][0]["pushToken"] and phone["fcmToken"] not in json.dumps(timeline)
    _, mine = api.call("getPhoneTimeline", "phoneTimeline", path={"id": phone["id"]}, expect=200)
    assert mine == timeline
    url = f"{BASE_URL}/api/backend/sessions/{session['id']}/timeline"
    har = requests.get(url, params={"format": "har"}, timeout=TIMEOUT)
    parsed = api.check(OPS["getSessionTimeline"], har, None)
    assert parsed["log"]["version"] == "1.2" and len(parsed["log"]["entries"]) == 2
    assert har.headers["Content-Disposition"] == f'attachment; filename="session-{session["id"]}.har"'
    api.check(OPS["getSessionTimeline"], requests.get(url, params={"format": "xml"}, timeout=TIMEOUT), "badFormat")
    # a phone has taken it: it is no longer pushed
    requests.post(f"{BASE_URL}/api/phones/{phone['id']}/oob", json={"qr": session["qrText"]}, timeout=TIMEOUT)
    api.call("pushSession", "finished", path={"id": session["id"]}, expect=409)
    FINISHED.add("timeline")
