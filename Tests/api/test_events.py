"""A script's phone without a WebSocket and without polling: the screen's actions over HTTP
(`POST /api/phones/{id}/actions`) and the server's events as Server-Sent Events (`GET /api/events`),
read with http.client as a script would, resumed after a dropped connection with `Last-Event-ID`.

Environment: as client.py says.
"""

import requests

from client import BASE_URL, FOREIGN_ORIGIN, NO_PHONE, NO_SESSION, PIN, TIMEOUT, EventStream, new_phone, new_session, uniq, wait_for


def flow_ended(event):
    return event["event"] == "flowEnded"


def test_actions_enrol_a_phone_over_http(api):
    """An enrolment taken step by step by the route, each answer the flow it left; refusals change nothing."""
    phone = new_phone(api, "Actions phone")
    path = {"id": phone["id"]}
    _, idle = api.call("takePhoneAction", "nothingWaiting", path=path, expect=409)
    assert idle["error"]["code"] == "NO_ACTIVE_FLOW"
    api.call("takePhoneAction", path={"id": NO_PHONE}, body={"action": "dance"}, expect=404)
    session = new_session(api, "enrol", uniq("actions"))
    api.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)
    for refused in ("unknownAction", "unknownField"):
        api.call("takePhoneAction", refused, path=path, expect=400)
    _, waiting = api.call("takePhoneAction", "confirmEnrolment", path=path, expect=200)
    assert waiting["flow"]["currentInteraction"]["type"] == "SET_SECOND_FACTOR"
    _, done = api.call("takePhoneAction", "setPin", path=path, expect=200)
    assert done["flow"]["state"] == "DONE" and done["flow"]["id"] == waiting["flow"]["id"]
    assert api.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"] == "enrolled"


def test_events_resume_after_a_dropped_connection(api):
    """A stream dropped mid-flow and resumed with Last-Event-ID gets every event once and in order:
    what it got before and after the drop is exactly what a stream that never dropped got."""
    phone = new_phone(api, "Events phone")
    path = {"id": phone["id"]}
    watched = {"phone": phone["id"]}
    steady = EventStream(BASE_URL, watched)
    dropped = EventStream(BASE_URL, watched)
    session = new_session(api, "enrol", uniq("events"))
    api.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)
    before = dropped.until(lambda e: e["event"] == "interaction")
    assert before[-1]["data"]["flow"]["currentInteraction"]["type"] == "CONFIRM"
    assert before[-1]["data"]["phone"] == phone["id"]
    dropped.drop()

    # the rest of the flow happens while the script is away
    api.call("takePhoneAction", path=path, body={"action": "confirmSession"}, expect=200)
    api.call("takePhoneAction", path=path, body={"action": "inputSecondFactor", "pin": PIN}, expect=200)
    api.call("sendPush", path={"project": "authphone"},
             body={"message": {"token": phone["fcmToken"], "data": {"k": "v"}, "notification": {"title": "Hello"}}},
             expect=200)

    resumed = EventStream(BASE_URL, watched, last_event_id=before[-1]["id"])
    after = resumed.until(lambda e: e["event"] == "push")
    everything = steady.until(lambda e: e["event"] == "push")
    ids = [int(e["id"]) for e in before + after]
    assert ids == sorted(set(ids)), f"repeated or out of order: {ids}"
    assert before + after == everything
    assert [e["event"] for e in after if e["event"] != "flowUpdate"] == ["interaction", "flowEnded", "push"]
    assert after[-2]["data"]["flow"]["state"] == "DONE"
    assert after[-1]["data"]["title"] == "Hello" and after[-1]["data"]["phone"] == phone["id"]
    for stream in (steady, resumed):
        stream.drop()


def test_events_filters_and_refusals(api):
    """Filters by kind and session; a filter naming nothing, a bad Last-Event-ID and a page of
    another site are refused before any stream starts; an id from another run starts with a gap."""
    api.call("streamEvents", "unknownPhone", query={"phone": NO_PHONE}, expect=404)
    api.call("streamEvents", "unknownSession", query={"session": NO_SESSION}, expect=404)
    api.call("streamEvents", "unknownKind", query={"kind": "interaction,flowStarted"}, expect=400)
    api.call("streamEvents", "badLastEventId", headers={"Last-Event-ID": "-1"}, expect=400)
    api.call("streamEvents", query={"phone": ",".join(str(n) for n in range(65))}, expect=400)
    api.call("streamEvents", headers={"Origin": FOREIGN_ORIGIN}, expect=403)

    session = new_session(api, "enrol", uniq("events-session"))
    sessions = EventStream(BASE_URL, {"session": session["id"], "kind": "session"})
    new_session(api, "enrol", uniq("events-other"))  # not this stream's
    api.call("startOutOfBand", path={"id": new_phone(api, "Events scanner")["id"]}, body={"qr": session["qrText"]}, expect=202)
    changed = sessions.next()
    assert changed["event"] == "session" and changed["data"]["session"]["id"] == session["id"]
    assert changed["data"]["session"]["status"] == "redeemed"
    later = EventStream(BASE_URL, {"kind": "session"}, last_event_id=10 ** 19)
    gap = later.next()
    assert gap["event"] == "gap" and "id" not in gap and gap["data"]["oldest"] >= 1
    for stream in (sessions, later):
        stream.drop()


def open_streams():
    """How many event streams the server has open, from its /metrics."""
    for line in requests.get(f"{BASE_URL}/metrics", timeout=TIMEOUT).text.splitlines():
        if line.startswith("authphone_event_streams_open "):
            return float(line.split()[1])
    return 0


def test_a_stream_whose_client_goes_gives_up_its_place_at_once(api):
    """A stream's place (64 at most) is freed as its client goes, not when a keep-alive (15 s)
    finds the connection gone: a script that waits on many streams one after the other is not
    refused for those it closed."""
    before = open_streams()
    stream = EventStream(BASE_URL, {"kind": "push"})
    assert open_streams() == before + 1
    stream.drop()
    wait_for(lambda: open_streams() == before, "the stream's place freed", within=5)
