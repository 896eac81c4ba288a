"""A script's phone without a WebSocket and without polling: the screen's actions over HTTP
(`POST /api/phones/{id}/actions`) and the server's events as Server-Sent Events (`GET /api/events`),
read with http.client as a script would, resumed after a dropped connection with `Last-Event-ID`.

Environment: as client.py says.
"""

import http.client
import json
import urllib.parse

from client import BASE_URL, FOREIGN_ORIGIN, NO_PHONE, NO_SESSION, PIN, TIMEOUT, new_phone, new_session, uniq
from document import check_schema, schema


class EventStream:
    """One open `/api/events` stream; each data line checked against the document."""

    def __init__(self, query=None, last_event_id=None):
        url = urllib.parse.urlsplit(BASE_URL)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
        headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
        self.connection.request("GET", "/api/events?" + urllib.parse.urlencode(query or {}, doseq=True), headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.read()
        assert self.response.getheader("Content-Type") == "text/event-stream"
        assert self.response.readline() == b": open\n" and self.response.readline() == b"\n"
        self.data = schema("EventData")

    def next(self):
        """The next event as {"id"?, "event", "data"}, comments skipped."""
        event = {}
        while True:
            line = self.response.readline().decode()
            assert line, "the stream ended"
            if line == "\n":
                if event:
                    return event
                continue
            name, _, value = line.rstrip("\n").partition(": ")
            if name:
                event[name] = json.loads(value) if name == "data" else value
                if name == "data":
                    check_schema(event["data"], self.data, f"an event's data {value[:200]}")

    def until(self, predicate):
        """Every event up to and with the first that `predicate` accepts."""
        seen = []
        while not seen or not predicate(seen[-1]):
            seen.append(self.next())
        return seen

    def drop(self):
        """Goes away mid-stream, as a lost connection does."""
        self.connection.close()


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
    steady = EventStream(watched)
    dropped = EventStream(watched)
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

    resumed = EventStream(watched, last_event_id=before[-1]["id"])
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
    sessions = EventStream({"session": session["id"], "kind": "session"})
    new_session(api, "enrol", uniq("events-other"))  # not this stream's
    api.call("startOutOfBand", path={"id": new_phone(api, "Events scanner")["id"]}, body={"qr": session["qrText"]}, expect=202)
    changed = sessions.next()
    assert changed["event"] == "session" and changed["data"]["session"]["id"] == session["id"]
    assert changed["data"]["session"]["status"] == "redeemed"
    later = EventStream({"kind": "session"}, last_event_id=10 ** 19)
    gap = later.next()
    assert gap["event"] == "gap" and "id" not in gap and gap["data"]["oldest"] >= 1
    for stream in (sessions, later):
        stream.drop()
