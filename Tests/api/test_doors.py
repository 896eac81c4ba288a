"""Who may call (docs/protocol.md): every state-changing route refuses a foreign Origin and a body
that is not JSON (or too large); the WebSockets refuse a foreign Origin as a plain request does,
and refuse what is not a message; every operation answers only to the server's own names; and on a
server of the test's own with an access key, every operation needs it.

Environment: as client.py says, and AUTHPHONE_BINARY for the server with an access key.
"""

import json
import secrets
import urllib.parse
import uuid

import pytest
import websocket

from client import BASE_URL, FOREIGN_ORIGIN, NO_PHONE, NO_SESSION, TIMEOUT, Api, Screen, new_phone, new_session, uniq
from document import FINISHED, OPS, check_schema, pointer, schema
from servers import own_server


def test_cross_site_guard_on_every_state_changing_route(api):
    """Every POST, PATCH and DELETE: a foreign Origin is refused; every POST and PATCH: a non-JSON body, and
    (where the route reads one) an oversized body."""
    phone = new_phone(api, "Guarded phone")
    session = new_session(api, "enrol", uniq("guard"))
    ids = {"id": phone["id"], "message": str(uuid.uuid4()), "account": str(uuid.uuid4()), "project": "authphone",
           "console": uniq("guard"), "serial": "PIPU404", "rule": str(uuid.uuid4())}
    session_ids = {"id": session["id"]}
    for op in OPS.values():
        if op.method not in ("post", "put", "patch", "delete"):
            continue
        path = session_ids if "/api/backend/sessions/" in op.path else ids
        example = next(iter(op.request_examples), None)
        api.call(op.id, "forbiddenOrigin", path=path, body=op.request_examples[example][0] if example else None,
                 headers={"Origin": FOREIGN_ORIGIN}, expect=403)
        if op.method == "delete":
            continue
        api.call(op.id, "unsupportedMediaType", path=path, raw=b'{"name": "x"}', content_type="text/plain",
                 expect=415)
        big = json.dumps({"pad": "x" * 70_000}).encode()
        if "bodyTooLarge" in op.response_examples:
            api.call(op.id, "bodyTooLarge", path=path, raw=big, expect=413)
    FINISHED.add("guard")


@pytest.mark.parametrize("stream", ["phone", "console"])
def test_websocket_refuses_foreign_origin(api, stream):
    """A refused upgrade answers as a plain request does: 403 FORBIDDEN_ORIGIN with the error body."""
    phone = new_phone(api, "WebSocket phone")
    path = f"/api/phones/{phone['id']}/stream" if stream == "phone" else "/api/backend/stream"
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(BASE_URL.replace("http", "ws", 1) + path, origin=FOREIGN_ORIGIN, timeout=TIMEOUT)
    assert refused.value.status_code == 403
    body = json.loads(refused.value.resp_body)
    check_schema(body, schema("ForbiddenOriginError"), "a refused upgrade's body")
    assert body == pointer("#/components/examples/ForbiddenOrigin")["value"]


def test_websocket_refusals_and_own_origin(api):
    """A phone that does not exist has no stream; one that does refuses what is not a message of
    its own, and takes its own site's page (the foreign Origin: test_websocket_refuses_foreign_origin)."""
    phone = new_phone(api, "WebSocket phone")
    ws_base = BASE_URL.replace("http", "ws", 1)
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(f"{ws_base}/api/phones/{NO_PHONE}/stream", timeout=TIMEOUT)
    screen = Screen(BASE_URL, phone["id"])
    assert screen.next()["type"] == "phone"
    for text, code in [("not json", "MALFORMED_MESSAGE"), ('{"action": "fly"}', "MALFORMED_MESSAGE"),
                       ('{"action": "inputSecondFactor"}', "MISSING_FIELD"), ('{"action": "cancel"}', "NO_ACTIVE_FLOW")]:
        screen.ws.send(text)
        assert screen.until(lambda m: m["type"] == "error", f"the refusal of {text}")["error"]["code"] == code
    screen.close()
    same_site = websocket.create_connection(f"{ws_base}/api/phones/{phone['id']}/stream", origin=BASE_URL,
                                            timeout=TIMEOUT)
    same_site.close()


def sweep_path(op):
    return {"id": NO_PHONE if "/api/phones/" in op.path else NO_SESSION, "message": str(uuid.uuid4()),
            "account": str(uuid.uuid4()), "project": "authphone", "console": "console", "serial": "PIPU404",
            "rule": str(uuid.uuid4())}


def test_doors_refuse_foreign_hosts(api):
    """Every operation answers only to the server's own names: 421 UNKNOWN_HOST otherwise."""
    for op in OPS.values():
        api.call(op.id, "unknownHost", path=sweep_path(op), headers={"Host": "evil.example"}, expect=421)
    FINISHED.add("doors")


@pytest.fixture(scope="module")
def keyed():
    """A server of the test's own with an access key and a push token."""
    key, token = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
    # "=" keeps a key that starts with "-" a value
    with own_server(f"--access-key={key}", f"--push-token={token}") as url:
        yield Api(url), key, token


# Operations a server with an access key answers without it, and why.
KEYLESS = {"issueAccessToken": "the token endpoint: the signed assertion it is sent is the proof",
           **dict.fromkeys(["health", "ready"], "the probes: an orchestrator's liveness and readiness probes hold no key"),
           **dict.fromkeys(["sendSMSByQuery", "sendSMS", "createTwilioMessage", "getTwilioMessage"],
                           "the SMS gateway's doors: the SMS account's credentials (HTTP basic auth) are the proof")}


def test_doors_need_the_access_key(keyed):
    """With an access key every operation but the token endpoint needs it; with a push token the
    FCM route needs that."""
    api, key, token = keyed
    for op in OPS.values():
        if op.id not in KEYLESS:
            api.call(op.id, "accessKeyRequired", path=sweep_path(op), expect=401)
    grant = OPS["issueAccessToken"].request_examples["unsupportedGrantType"][0]
    api.call("issueAccessToken", "unsupportedGrantType", raw=urllib.parse.urlencode(grant).encode(),
             content_type="application/x-www-form-urlencoded", expect=400)
    api.call("health", "ok", expect=200)
    assert api.call("ready", expect=200)[1]["status"] == "ready"
    send = {"message": {"token": "not-registered", "data": {"k": "v"}}}
    api.call("sendPush", "unauthenticated", path={"project": "authphone"}, body=send,
             headers={"Authorization": f"Bearer {key}"}, expect=401)
    api.call("sendPush", "unregistered", path={"project": "authphone"}, body=send,
             headers={"Authorization": f"Bearer {token}"}, expect=404)
    FINISHED.add("keyed")
