"""Talking to a running AuthPhone as the API tests do: a client that checks every answer against
the document (document.py), the phone's screen over its WebSocket, and the steps many tests take
(a phone, a session, an enrolment on the screen).

The servers are started by the caller (scripts/api-test.sh). Environment:
  AUTHPHONE_URL      the server under test (default http://127.0.0.1:8080)
  AUTHPHONE_TIMEOUT  seconds to wait for each step (default 20)
"""

import base64
import copy
import datetime
import http.client
import json
import os
import re
import secrets
import struct
import threading
import time
import urllib.parse
import zlib

import pytest
import requests
import websocket
from google.auth import crypt, jwt

from document import OPS, REPLAYED, check_schema, same_shape, schema

BASE_URL = os.environ.get("AUTHPHONE_URL", "http://127.0.0.1:8080").rstrip("/")
TIMEOUT = float(os.environ.get("AUTHPHONE_TIMEOUT", "20"))

FOREIGN_ORIGIN = "https://evil.example"
NO_PHONE = "00000000-0000-4000-8000-000000000000"
NO_SESSION = "9d1d2b0e-0000-4000-8000-000000000000"
PIN = "260418"
WRONG_PIN = "999888"

# Headers every answer carries (the doors of docs/protocol.md, "Who may call").
SECURITY_HEADERS = {"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"}

# Operations whose answer carries no Content-Type today (see test_openapi_yaml_content_type).
NO_CONTENT_TYPE = {"getOpenAPI"}


_UNSET = object()


def deep_merge(base, changes):
    result = copy.deepcopy(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = value
    return result


def describe(response):
    return f"{response.request.method} {response.request.url} -> {response.status_code}: {response.text[:800]}"


class Api:
    """A client that checks every answer against the document."""

    def __init__(self, base_url):
        self.base = base_url
        self.http = requests.Session()

    def url(self, op, path):
        def fill(match):
            name = match.group(1)
            assert name in path, f"{op}: no value for the path parameter {name}"
            return urllib.parse.quote(str(path[name]), safe="")
        return self.base + re.sub(r"\{(\w+)\}", fill, op.path)

    def call(self, op_id, example=None, *, path=None, body=_UNSET, merge=None, raw=None, headers=None,
             content_type="application/json", expect=None, query=None):
        """Sends op_id's request example `example` (or `body`, or the bytes `raw`), with `merge`
        merged into it, and checks the answer; returns (response, parsed body)."""
        op = OPS[op_id]
        if example is not None:
            assert example in op.response_examples or example in op.request_examples, \
                f"{op} documents no example named {example}"
        if body is _UNSET:
            body = None
            if example in op.request_examples:
                body, key = op.request_examples[example]
                body = copy.deepcopy(body)
                REPLAYED.add(key)
        if merge:
            body = deep_merge(body or {}, merge)
        request_headers = {}
        if op.method in ("post", "put", "patch") and content_type:
            request_headers["Content-Type"] = content_type
        request_headers.update(headers or {})
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        response = self.http.request(op.method.upper(), self.url(op, path or {}), params=query, data=data,
                                     headers=request_headers, timeout=TIMEOUT, allow_redirects=False)
        parsed = self.check(op, response, example)
        if expect is not None:
            assert response.status_code == expect, f"expected {expect}: {describe(response)}"
        return response, parsed

    def check(self, op, response, example):
        status = str(response.status_code)
        missing = SECURITY_HEADERS - set(response.headers)
        assert not missing, f"{op} answered without {sorted(missing)}: {describe(response)}"
        documented = op.op["responses"]
        assert status in documented, f"{op} answered the undocumented status {status}: {describe(response)}"
        content = documented[status].get("content")
        if not content:
            assert not response.content, f"{op} documents no body for {status}: {describe(response)}"
            parsed = None
            media_type = None
        else:
            header = response.headers.get("Content-Type")
            if header is None and op.id in NO_CONTENT_TYPE and len(content) == 1:
                media_type = next(iter(content))
            else:
                assert header, f"{op} answered {status} without a Content-Type: {describe(response)}"
                media_type = header.split(";")[0].strip().lower()
            assert media_type in content, \
                f"{op} answered {status} as {media_type}, documented: {sorted(content)}: {describe(response)}"
            if media_type == "text/event-stream":
                parsed = None  # a stream that stays open: its reader reads it (test_events.py)
            elif media_type == "application/json":
                try:
                    parsed = response.json()
                except ValueError:
                    pytest.fail(f"{op} answered {status} with invalid JSON: {describe(response)}")
            else:
                parsed = response.text
            if "schema" in content[media_type]:
                check_schema(parsed, content[media_type]["schema"], f"{op}'s {status} answer")
        if example in op.response_examples:
            example_status, example_type, value, key = op.response_examples[example]
            assert status == example_status, \
                f"{op}: the example {example} is documented as {example_status}, the server answered {describe(response)}"
            assert media_type == example_type, f"{op}: the example {example} is {example_type}, the answer {media_type}"
            if isinstance(value, (dict, list)):
                same_shape(parsed, value, f"{op} {example}")
            REPLAYED.add(key)
        return parsed


def payload_of(qr_text):
    """The out-of-band payload a QR text carries."""
    return json.loads(base64.urlsafe_b64decode(qr_text + "=" * (-len(qr_text) % 4)))


def push_data(qr_text):
    """The out-of-band payload of a QR text as FCM's data map (all strings), as a push carries it."""
    payload = payload_of(qr_text)
    return {"nma_data": json.dumps(payload["nma_data"], separators=(",", ":")),
            "nma_data_content_type": payload["nma_data_content_type"], "nma_data_version": payload["nma_data_version"]}


# privacyIDEA's SCOPES (privacyidea/lib/smsprovider/FirebaseProvider.py), which it asks google-auth for.
PRIVACYIDEA_SCOPES = ["https://www.googleapis.com/auth/cloud-platform",
                      "https://www.googleapis.com/auth/datastore",
                      "https://www.googleapis.com/auth/devstorage.read_write",
                      "https://www.googleapis.com/auth/firebase",
                      "https://www.googleapis.com/auth/identitytoolkit",
                      "https://www.googleapis.com/auth/userinfo.email"]


def google_auth_assertion(key_file):
    """The assertion google-auth signs for a service account's key file (its
    `_make_authorization_grant_assertion`): RS256 with the file's key, `kid` its id."""
    now = int(time.time())
    claims = {"iat": now, "exp": now + 3600, "iss": key_file["client_email"], "aud": "https://oauth2.googleapis.com/token",
              "scope": " ".join(PRIVACYIDEA_SCOPES)}
    return jwt.encode(crypt.RSASigner.from_service_account_info(key_file), claims).decode()


def token_request(assertion):
    """RFC 7523's token request for `assertion`, as the form google-auth posts."""
    return urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                   "assertion": assertion}).encode()


def origin_of(url):
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def uniq(name):
    return f"{name}-{secrets.token_hex(3)}"


def moment(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def svg_to_png(svg, scale=4):
    """A PNG of one of the backend's QR codes (an SVG with one `Mx yhwv1h-wz` rectangle per run of
    dark modules), as a screenshot of the console would show it."""
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    dark = [[False] * size for _ in range(size)]
    for x, y, width in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", svg):
        for i in range(int(width)):
            dark[int(y)][int(x) + i] = True
    side = size * scale
    rows = b"".join(b"\x00" + bytes(0 if dark[y // scale][x // scale] else 255 for x in range(side))
                    for y in range(side))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class Screen:
    """A phone's screen: the WebSocket, every message checked against the document."""

    def __init__(self, base_url, phone_id):
        self.ws = websocket.create_connection(base_url.replace("http", "ws", 1) + f"/api/phones/{phone_id}/stream",
                                              timeout=TIMEOUT)
        self.out = schema("PhoneScreenMessage")
        self.into = schema("PhoneInput")
        self.seen = []

    def next(self):
        message = json.loads(self.ws.recv())
        check_schema(message, self.out, "a phone screen message")
        self.seen.append(message)
        return message

    def until(self, predicate, what):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            message = self.next()
            if predicate(message):
                return message
        pytest.fail(f"the phone's screen never showed {what}; last: {self.seen[-3:]}")

    def flow(self, state, interaction=None):
        def matches(m):
            if m["type"] != "flowUpdate" or m["flow"]["state"] != state:
                return False
            return interaction is None or m["flow"].get("currentInteraction", {}).get("type") == interaction
        return self.until(matches, f"a flow {state} {interaction or ''}")["flow"]

    def send(self, message):
        check_schema(message, self.into, "a phone input message")
        self.ws.send(json.dumps(message))

    def close(self):
        self.ws.close()


class EventStream:
    """One open `/api/events` stream; each data line checked against the document."""

    def __init__(self, base_url, query=None, last_event_id=None):
        url = urllib.parse.urlsplit(base_url)
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


def new_phone(api, name="API test phone"):
    return api.call("createPhone", body={"name": name}, expect=201)[1]


def new_session(api, kind, user, **extra):
    return api.call("createSession", body={"type": kind, "userId": user, **extra}, expect=201)[1]


def screen_of(api, phone):
    """The phone's screen, open, once it has shown the phone (its first message)."""
    screen = Screen(api.base, phone["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")
    return screen


def open_on_screen(api, phone, session):
    """The phone's screen, open, once the phone has scanned the session's QR code and the user
    has confirmed it."""
    screen = screen_of(api, phone)
    api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": session["qrText"]}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession"})
    return screen


def enrol_phone(api, phone, user, pin=PIN):
    """Enrols `user` on the phone through its screen (setting or proving the PIN); the new account's id."""
    session = new_session(api, "enrol", user)
    screen = open_on_screen(api, phone, session)
    screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] == "WAIT_FOR_INPUT"
                 and "secondFactorInfo" in m["flow"].get("currentInteraction", {}), "the PIN pad")
    screen.send({"action": "inputSecondFactor", "pin": pin})
    assert screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] in ("DONE", "ERROR"),
                        "the end of the enrolment")["flow"]["state"] == "DONE"
    screen.close()
    return api.call("getSession", path={"id": session["id"]}, expect=200)[1]["accountId"]


def enrolled_token(api, privacyidea, phone, user, server_accepted=False):
    """privacyIDEA's push token for `user` (eduMFA's edupush token, from an eduMFA), enrolled by the
    phone from the QR text: the phone asks the user to accept the server first, unless it accepted
    it before."""
    serial, qr_text = privacyidea.admin.init_push_token(user)
    assert privacyidea.admin.token(serial).rollout_state == "clientwait"
    path = {"id": phone["id"]}
    example = "privacyIDEAPushKnownServer" if server_accepted else "privacyIDEAPush"
    done = started = api.call("startOutOfBand", example, path=path, body={"qr": qr_text}, expect=202)[1]["privacyIDEA"]
    assert (started["kind"], started["serial"]) == ("ENROLMENT", serial)
    if not server_accepted:
        assert (started["state"], started["origin"]) == ("WAIT_FOR_INPUT", privacyidea.url)
        done = api.call("answerPrivacyIDEA", "acceptServer", path=path, expect=200)[1]["privacyIDEA"]
    assert (done["state"], done.get("outcome")) == ("DONE", "ENROLLED"), done
    return serial


def registered_container(api, privacyidea, phone, user, passphrase=None, server_accepted=False, **asked):
    """privacyIDEA's smartphone container for `user`, registered by the phone from its code: the
    phone asks the user to accept the server (with the passphrase, where `asked` makes privacyIDEA
    ask for one), unless it accepted it before and no passphrase is asked; it registers, then
    synchronises. Its serial."""
    serial = privacyidea.new_container(user)
    path = {"id": phone["id"]}
    done = api.call("startOutOfBand", path=path, body={"qr": privacyidea.admin.container_code(serial, **asked)}, expect=202)[1]["privacyIDEA"]
    assert (done["kind"], done["serial"]) == ("CONTAINER", serial), done
    if not server_accepted or passphrase is not None:
        answer = {"accept": True} if passphrase is None else {"accept": True, "passphrase": passphrase}
        done = api.call("answerPrivacyIDEA", path=path, body=answer, expect=200)[1]["privacyIDEA"]
    assert (done["state"], done.get("outcome")) == ("DONE", "ENROLLED"), done
    return serial


def setting_a_pin(api, name):
    """A new phone whose enrolment waits for its new PIN, and its open screen."""
    phone = new_phone(api, name)
    screen = open_on_screen(api, phone, new_session(api, "enrol", uniq("pin-check")))
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    return phone, screen


def wait_for(check, what, within=TIMEOUT):
    """Polls `check` until it gives something true (the awaited state, returned); `within`
    seconds bound it only when it never comes."""
    deadline = time.monotonic() + within
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.05)


def in_background(call):
    """Runs `call` in a thread; the returned function waits for it and gives its result (or raises)."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as error:  # re-raised in the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result():
        thread.join(TIMEOUT * 2)
        assert not thread.is_alive(), "the background request never finished"
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]
    return result
