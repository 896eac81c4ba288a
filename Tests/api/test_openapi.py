"""Checks AuthPhone's OpenAPI document (Public/openapi.yaml) against a live server.

The document is checked as a document (it is what the server serves, it is valid OpenAPI 3.1,
its examples fit its schemas, it covers every route in Sources/WebApp), and then against the
server: a walk replays the named examples in a realistic order (create a phone, enrol it from
a QR code, log in by push, act as a device of its own on the phone wire, send pushes, the phone's
own flows, its local data and device information (through faults on demand), the offline OTP of
the offline OTP of docs/behaviour.md (generated on a phone whose backend is unreachable, and computed independently on the
wire), and the documented refusals), and every answer must have a documented status and a body
that fits the documented schema; an answer to a named example must be the one documented (same
status, same codes, same shape). At the end every named example must have been replayed, or be
listed in NOT_REPLAYED with the reason.

The servers are started by the caller (scripts/api-test.sh). Environment:
  AUTHPHONE_URL              the server under test (default http://127.0.0.1:8080)
  AUTHPHONE_EXPIRY_URL       optional: a server started with --session-lifetime 10, for the
                             expiry examples (TOKEN_EXPIRED, SESSION_EXPIRED)
  AUTHPHONE_OFFLINE_URL      optional: a server started with --backend-url AUTHPHONE_OFFLINE_BACKEND,
  AUTHPHONE_OFFLINE_BACKEND  an address where nothing listens (SERVER_CONNECTION_ERROR)
  AUTHPHONE_TIMEOUT          seconds to wait for each step (default 20)
"""

import base64
import contextlib
import copy
import datetime
import hashlib
import hmac
import json
import os
import pathlib
import re
import secrets
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
import zlib

import jsonschema
import pytest
import requests
import websocket
import yaml
from jsonschema.exceptions import best_match
from openapi_spec_validator import OpenAPIV31SpecValidator

from keys import ed25519, x25519

BASE_URL = os.environ.get("AUTHPHONE_URL", "http://127.0.0.1:8080").rstrip("/")
EXPIRY_URL = os.environ.get("AUTHPHONE_EXPIRY_URL", "").rstrip("/")
OFFLINE_URL = os.environ.get("AUTHPHONE_OFFLINE_URL", "").rstrip("/")
OFFLINE_BACKEND = os.environ.get("AUTHPHONE_OFFLINE_BACKEND", "").rstrip("/")
TIMEOUT = float(os.environ.get("AUTHPHONE_TIMEOUT", "20"))
BINARY = os.environ.get("AUTHPHONE_BINARY", "")

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "Public" / "openapi.yaml"
SPEC_TEXT = SPEC_PATH.read_bytes()
SPEC = yaml.safe_load(SPEC_TEXT)

FOREIGN_ORIGIN = "https://evil.example"
NO_PHONE = "00000000-0000-4000-8000-000000000000"
NO_SESSION = "9d1d2b0e-0000-4000-8000-000000000000"
PIN = "260418"
NEW_PIN = "531975"
WRONG_PIN = "999888"

# Named examples no default server can produce, with the test that replays them when its
# server is given, or why none can.
NOT_REPLAYED = {
    "startOutOfBand 410 tokenExpired": "AUTHPHONE_EXPIRY_URL",
    "redeemToken 410 tokenExpired": "AUTHPHONE_EXPIRY_URL",
    "startOutOfBand 410 enrolQrExpired": "AUTHPHONE_EXPIRY_URL",
    "responses/SessionExpired sessionExpired": "AUTHPHONE_EXPIRY_URL",
    "responses/AccessKeyRequired accessKeyRequired": "AUTHPHONE_BINARY",
    "responses/SendPushUnauthorized accessKeyRequired": "AUTHPHONE_BINARY",
    "responses/SendPushUnauthorized unauthenticated": "AUTHPHONE_BINARY",
}

# Headers every answer carries (the doors of docs/protocol.md, "Who may call").
SECURITY_HEADERS = {"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"}

# Operations whose answer carries no Content-Type today (see test_openapi_yaml_content_type).
NO_CONTENT_TYPE = {"getOpenAPI"}

# Filled by the replaying tests, checked by test_zz_every_example_replayed.
REPLAYED = set()
FINISHED = set()
WALK = {}


# ----------------------------------------------------------------------------------------------
# the document


def pointer(ref):
    """The node a local `#/…` reference names."""
    assert ref.startswith("#/"), f"only local references are used: {ref}"
    node = SPEC
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def resolve(node):
    """node with every `$ref` replaced by what it names (the document has no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return resolve(pointer(node["$ref"]))
        return {key: resolve(value) for key, value in node.items()}
    if isinstance(node, list):
        return [resolve(value) for value in node]
    return node


METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


class Operation:
    def __init__(self, path, method, raw, path_item):
        self.path, self.method, self.raw = path, method, raw
        self.id = raw["operationId"]
        self.op = resolve(raw)
        self.parameters = resolve(path_item.get("parameters", [])) + self.op.get("parameters", [])
        # name -> (status, media type, value, coverage key)
        self.response_examples = {}
        for status, response in raw["responses"].items():
            owner = None
            if "$ref" in response:
                owner = response["$ref"].removeprefix("#/components/")
                response = pointer(response["$ref"])
            for media_type, media in response.get("content", {}).items():
                for name, example in media.get("examples", {}).items():
                    if "$ref" in example:
                        key = example["$ref"].removeprefix("#/components/")
                    elif owner:
                        key = f"{owner} {name}"
                    else:
                        key = f"{self.id} {status} {name}"
                    assert name not in self.response_examples, f"{self.id}: two response examples named {name}"
                    self.response_examples[name] = (status, media_type, resolve(example)["value"], key)
        # name -> (value, coverage key)
        self.request_examples = {}
        body = resolve(raw.get("requestBody", {}))
        for media in body.get("content", {}).values():
            for name, example in media.get("examples", {}).items():
                self.request_examples[name] = (example["value"], f"{self.id} request {name}")

    def __repr__(self):
        return f"{self.id} ({self.method.upper()} {self.path})"


OPS = {}
for _path, _item in SPEC["paths"].items():
    for _method in METHODS:
        if _method in _item:
            _operation = Operation(_path, _method, _item[_method], _item)
            assert _operation.id not in OPS, f"operationId {_operation.id} twice"
            OPS[_operation.id] = _operation


def example_keys():
    keys = set()
    for op in OPS.values():
        keys |= {key for *_, key in op.response_examples.values()}
        keys |= {key for _, key in op.request_examples.values()}
    return keys


def schema(name):
    return resolve({"$ref": f"#/components/schemas/{name}"})


FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value):
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
        raise ValueError(f"{value!r} is not an ISO 8601 date-time")
    datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


@FORMATS.checks("uuid", raises=ValueError)
def _uuid(value):
    return not isinstance(value, str) or bool(uuid.UUID(value))


@FORMATS.checks("uri", raises=ValueError)
def _uri(value):
    if isinstance(value, str):
        parts = urllib.parse.urlsplit(value)
        if not parts.scheme or not parts.netloc:
            raise ValueError(f"{value!r} is not an absolute URI")
    return True


def check_schema(instance, schema_, what):
    validator = jsonschema.Draft202012Validator(schema_, format_checker=FORMATS)
    error = best_match(validator.iter_errors(instance))
    if error is not None:
        where = "$" + "".join(f"[{p!r}]" for p in error.absolute_path)
        pytest.fail(f"{what} does not fit its schema at {where}: {error.message}\n"
                    f"{json.dumps(instance, indent=1)[:3000]}")


# Keys whose values say what happened; an answer to a named example must agree on them.
AGREEING_KEYS = {"code", "errorCode", "status", "state", "type", "result", "delivery", "dispatch", "failure",
                 "loggedin", "hasPin", "sdkCode", "secondFactorNeeded", "isBlocked", "failedAttempts"}


def same_shape(actual, example, where="$"):
    """actual has the example's shape: the same keys, the same JSON types, the same outcome."""
    if isinstance(example, dict):
        assert isinstance(actual, dict), f"{where}: an object in the example, {actual!r} in the answer"
        assert set(actual) == set(example), \
            f"{where}: the answer has the keys {sorted(actual)}, the example {sorted(example)}"
        for key, value in example.items():
            if key in AGREEING_KEYS and not isinstance(value, (dict, list)):
                assert actual[key] == value, f"{where}.{key}: the answer says {actual[key]!r}, the example {value!r}"
            same_shape(actual[key], value, f"{where}.{key}")
    elif isinstance(example, list):
        assert isinstance(actual, list), f"{where}: an array in the example, {actual!r} in the answer"
        if example and actual:
            same_shape(actual[0], example[0], f"{where}[0]")
    else:
        assert type(actual) is type(example), f"{where}: {actual!r} in the answer, {example!r} in the example"


# ----------------------------------------------------------------------------------------------
# talking to a server

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
            if media_type == "application/json":
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


def origin_of(url):
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def uniq(name):
    return f"{name}-{secrets.token_hex(3)}"


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def crockford(value, length):
    return "".join(CROCKFORD[(value >> (5 * (length - 1 - i))) & 31] for i in range(length))


def otp_step(at=None):
    """The offline OTP's 2-minute time step (of the unix time `at`, or now)."""
    return int(time.time() if at is None else at) // 120


def offline_otp(key, session_data, reference, step):
    """docs/otp.md's offline OTP, independently of the server: `XXXXXX XXXXXX`."""
    data = session_data.encode()
    message = (b"AuthPhone offline OTP v1\x00" + struct.pack(">I", len(data)) + data + struct.pack(">I", reference)
               + struct.pack(">q", step))
    mac = hmac.new(key, message, hashlib.sha256).digest()
    offset = mac[-1] & 15
    value = int.from_bytes(mac[offset:offset + 4], "big") & 0x3FFFFFFF  # 31-bit truncation, then 30 bits
    return f"{crockford(reference, 6)} {crockford(value, 6)}"


def utc_now(offset=0):
    moment = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=offset)
    return moment, moment.strftime("%Y-%m-%dT%H:%M:%SZ")


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


class Device:
    """A device of the test's own on the phone wire: Ed25519 keys and the signed requests."""

    def __init__(self, api):
        self.api = api
        self.id = f"API-TEST-{uuid.uuid4()}".upper()
        self.pin_seed = secrets.token_bytes(32)
        self.device_seed = secrets.token_bytes(32)  # the device's own key: signs what no account key signs
        self.public_key = b64(ed25519.public_key(self.device_seed))
        self.account_seeds = {}
        self.challenges = {}
        self.server_keys = {}  # session id -> the server's Ed25519 key, from the redeem answer
        self.otp_keys = {}  # account id -> (reference, the offline OTP key)

    def sign(self, message):
        """The device key's signature over `message` (text), base64url."""
        return b64(ed25519.sign(self.device_seed, message.encode()))

    def redeeming(self, token, device_id=None):
        """A redeem request's fields for `token`, signed by this device's key (for `device_id`,
        its own id unless given)."""
        device_id = self.id if device_id is None else device_id
        return {"token": token, "deviceId": device_id, "devicePublicKey": self.public_key,
                "deviceSignature": self.sign(f"authphone/v1 redeem\n{token}\n{device_id}\n{self.public_key}")}

    def confirming(self, session_id, account=""):
        """The device key's signature of a confirm (an enrolment's names no account)."""
        return self.sign(f"authphone/v1 confirm\n{session_id}\n{self.challenges[session_id]}\n{account}")

    def redeem(self, session, example):
        token = payload_of(session["qrText"])["nma_data"]["token"]
        _, answer = self.api.call("redeemToken", example, merge=self.redeeming(token), expect=200)
        assert answer["sessionId"] == session["id"]
        message = f"authphone/v1 server\n{answer['sessionId']}\n{answer['challenge']}".encode()
        assert ed25519.verify(unb64(answer["server"]["publicKey"]), message, unb64(answer["serverSignature"])), \
            "the redeem answer is not signed by the server's key"
        self.challenges[session["id"]] = answer["challenge"]
        self.server_keys[session["id"]] = unb64(answer["server"]["publicKey"])
        return answer

    def confirm(self, session_id, example, account=None):
        merge = {"deviceId": self.id, "deviceSignature": self.confirming(session_id, account or "")}
        if account:
            message = f"authphone/v1 confirm\n{session_id}\n{self.challenges[session_id]}\n{account}".encode()
            merge |= {"accountId": account, "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        _, answer = self.api.call("confirmSession", example, path={"id": session_id}, merge=merge, expect=200)
        self.challenges[session_id] = answer["challenge"]
        return answer

    def enrol(self, session_id, example="enrol", otp=False):
        """Enrols a new account; with `otp`, agrees an offline OTP key as the phone does (docs/behaviour.md#offline-otp)
        and checks the server key's signature over the backend's half."""
        account_seed = secrets.token_bytes(32)
        account_key = b64(ed25519.public_key(account_seed))
        message = f"authphone/v1 enrol\n{session_id}\n{self.challenges[session_id]}\n{account_key}".encode()
        merge = {"deviceId": self.id, "accountPublicKey": account_key,
                 "accountSignature": b64(ed25519.sign(account_seed, message)),
                 "pinPublicKey": b64(ed25519.public_key(self.pin_seed)),
                 "pinSignature": b64(ed25519.sign(self.pin_seed, message)),
                 "deviceSignature": b64(ed25519.sign(self.device_seed, message))}
        otp_secret = secrets.token_bytes(32)
        if otp:
            merge["otpPublicKey"] = b64(x25519.public_key(otp_secret))
        _, answer = self.api.call("enrolAccount", example, path={"id": session_id}, merge=merge, expect=200)
        assert answer["result"] == "accepted"
        self.account_seeds[answer["accountId"]] = account_seed
        assert ("otp" in answer) == otp, "an OTP key half comes back exactly when the phone sent its own"
        if otp:
            half = answer["otp"]
            signed = (f"authphone/v1 otp\n{session_id}\n{answer['accountId']}\n{half['reference']}\n"
                      f"{half['serverPublicKey']}\n{merge['otpPublicKey']}").encode()
            assert ed25519.verify(self.server_keys[session_id], signed, unb64(half["signature"])), \
                "the backend's OTP key half is not signed by the server's key"
            self.otp_keys[answer["accountId"]] = (
                half["reference"], x25519.client_receive_key(otp_secret, unb64(half["serverPublicKey"])))
        return answer["accountId"]

    def abandon(self, session_id, code="USER_CANCELED", example=None, expect=200, device_id=None):
        """Ends a session's flow without success, signed by this device's key."""
        body = {"deviceId": self.id if device_id is None else device_id, "code": code,
                "deviceSignature": self.sign(f"authphone/v1 abandon\n{session_id}\n{code}")}
        return self.api.call("abandonSession", example, path={"id": session_id}, merge=body, expect=expect)[1]

    def otp(self, account, session, step=None):
        """The offline OTP of `account` for a login session's QR code, as docs/otp.md computes it."""
        reference, key = self.otp_keys[account]
        return offline_otp(key, payload_of(session["qrText"])["nma_data"]["token"], reference,
                           otp_step() if step is None else step)

    def verify(self, session_id, account, example, right=True):
        message = f"authphone/v1 pin\n{session_id}\n{self.challenges[session_id]}\n{account}".encode()
        pin_seed = self.pin_seed if right else secrets.token_bytes(32)
        merge = {"deviceId": self.id, "accountId": account,
                 "accountSignature": b64(ed25519.sign(self.account_seeds[account], message)),
                 "pinSignature": b64(ed25519.sign(pin_seed, message))}
        _, answer = self.api.call("verifyPin", example, path={"id": session_id}, merge=merge, expect=200)
        if "challenge" in answer:
            self.challenges[session_id] = answer["challenge"]
        return answer

    def confirm_transaction(self, session_id, account, text, example="signed", expect=200):
        message = f"authphone/v1 transaction\n{session_id}\n{self.challenges[session_id]}\n{account}\n{text}".encode()
        merge = {"deviceId": self.id, "accountId": account, "transaction": text,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        _, answer = self.api.call("confirmTransaction", example, path={"id": session_id}, merge=merge, expect=expect)
        if expect == 200:
            self.challenges[session_id] = answer["challenge"]
        return answer

    def pending(self, account, example="pending"):
        moment, timestamp = utc_now()
        message = f"authphone/v1 pending\n{account}\n{int(moment.timestamp())}".encode()
        merge = {"deviceId": self.id, "accountId": account, "timestamp": timestamp,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        return self.api.call("pendingOperations", example, merge=merge, expect=200)[1]

    def enrol_user(self, user, examples=True, otp=False):
        """A new account for `user` through the whole enrolment on the wire (replaying the `enrol`
        examples, which fit a device's first enrolment only)."""
        session = new_session(self.api, "enrol", user)
        self.redeem(session, "enrol" if examples else None)
        self.confirm(session["id"], "enrol" if examples else None)
        return self.enrol(session["id"], "enrol" if examples else None, otp=otp)

    def verify_biometric(self, session_id, account, biometric_seed, example="biometrics", expect=200):
        message = f"authphone/v1 pin\n{session_id}\n{self.challenges[session_id]}\n{account}".encode()
        merge = {"deviceId": self.id, "accountId": account,
                 "accountSignature": b64(ed25519.sign(self.account_seeds[account], message)),
                 "biometricSignature": b64(ed25519.sign(biometric_seed, message))}
        _, answer = self.api.call("verifyPin", example, path={"id": session_id}, merge=merge, expect=expect)
        return answer

    def manage(self, account, kind, example=None, expect=200, signed_kind=None, offset=0, **fields):
        """Starts a management session (changePin, addBiometrics, removeBiometrics)."""
        moment, timestamp = utc_now(offset)
        message = f"authphone/v1 manage\n{account}\n{signed_kind or kind}\n{int(moment.timestamp())}".encode()
        merge = {"deviceId": self.id, "accountId": account, "type": kind, "timestamp": timestamp,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message)), **fields}
        _, answer = self.api.call("startManagement", example, merge=merge, expect=expect)
        if expect == 200:
            self.challenges[answer["sessionId"]] = answer["challenge"]
        return answer

    def set_factor(self, session_id, account, factor, example=None):
        """Registers a new factor key for a verified management session; returns its seed."""
        seed = secrets.token_bytes(32)
        key = b64(ed25519.public_key(seed))
        message = f"authphone/v1 set\n{session_id}\n{self.challenges[session_id]}\n{factor}\n{key}".encode()
        merge = {"deviceId": self.id, "accountId": account, "factor": factor, "publicKey": key,
                 "accountSignature": b64(ed25519.sign(self.account_seeds[account], message)),
                 "factorSignature": b64(ed25519.sign(seed, message))}
        _, answer = self.api.call("setSecondFactor", example, path={"id": session_id}, merge=merge, expect=200)
        assert answer["result"] == "accepted"
        return seed

    def rotate(self, session_id, account, example="rotate", expect=200, old_key_is_new=False):
        """HEADLESS_UPGRADE on the wire: a new account key, signed by the old and the new one."""
        seed = secrets.token_bytes(32)
        key = b64(ed25519.public_key(seed))
        message = f"authphone/v1 rotate\n{session_id}\n{self.challenges[session_id]}\n{account}\n{key}".encode()
        old = seed if old_key_is_new else self.account_seeds[account]
        merge = {"deviceId": self.id, "accountId": account, "newPublicKey": key,
                 "oldKeySignature": b64(ed25519.sign(old, message)), "newKeySignature": b64(ed25519.sign(seed, message))}
        self.api.call("rotateAccountKey", example, path={"id": session_id}, merge=merge, expect=expect)
        if expect == 200:
            self.account_seeds[account] = seed

    def change_device(self, account, example=None, expect=200, signed=None, **fields):
        """A DeviceInformationChange on the wire, signed over the request as sent (or `signed`)."""
        moment, timestamp = utc_now()
        request = OPS["changeDevice"].request_examples[example][0] if example else {}
        body = deep_merge(request, {"deviceId": self.id, "accountId": account, "timestamp": timestamp, **fields})
        body |= signed or {}
        message = (f"authphone/v1 device\n{account}\n{int(moment.timestamp())}\n{body.get('name', '')}\n"
                   f"{body.get('fcmToken', '')}\n{'disable' if body.get('disablePushNotifications') else ''}").encode()
        merge = {"deviceId": self.id, "accountId": account, "timestamp": timestamp, **fields,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        return self.api.call("changeDevice", example, merge=merge, expect=expect)[1]

    def remove_account(self, account, example=None, expect=200, offset=0, signature=None):
        moment, timestamp = utc_now(offset)
        message = f"authphone/v1 remove\n{account}\n{int(moment.timestamp())}".encode()
        merge = {"deviceId": self.id, "accountId": account, "timestamp": timestamp,
                 "signature": signature or b64(ed25519.sign(self.account_seeds[account], message))}
        return self.api.call("removeAccount", example, merge=merge, expect=expect)[1]


@pytest.fixture(scope="module")
def api():
    return Api(BASE_URL)


def new_phone(api, name="API test phone"):
    return api.call("createPhone", body={"name": name}, expect=201)[1]


def new_session(api, kind, user, **extra):
    return api.call("createSession", body={"type": kind, "userId": user, **extra}, expect=201)[1]


def enrol_phone(api, phone, user, pin=PIN):
    """Enrols `user` on the phone through its screen (setting or proving the PIN); the new account's id."""
    session = new_session(api, "enrol", user)
    screen = Screen(BASE_URL, phone["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")
    api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": session["qrText"]}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession"})
    screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] == "WAIT_FOR_INPUT"
                 and "secondFactorInfo" in m["flow"].get("currentInteraction", {}), "the PIN pad")
    screen.send({"action": "inputSecondFactor", "pin": pin})
    assert screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] in ("DONE", "ERROR"),
                        "the end of the enrolment")["flow"]["state"] == "DONE"
    screen.close()
    return api.call("getSession", path={"id": session["id"]}, expect=200)[1]["accountId"]


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


# ----------------------------------------------------------------------------------------------
# the document itself


def test_served_document_is_the_file(api):
    response = requests.get(f"{BASE_URL}/openapi.yaml", timeout=TIMEOUT)
    assert response.status_code == 200, describe(response)
    assert response.content == SPEC_TEXT, "the served /openapi.yaml differs from Public/openapi.yaml"


def test_openapi_yaml_content_type():
    response = requests.get(f"{BASE_URL}/openapi.yaml", timeout=TIMEOUT)
    assert response.headers.get("Content-Type", "").split(";")[0] == "application/yaml"


def test_document_is_valid_openapi_31():
    assert SPEC["openapi"] == "3.1.0"
    OpenAPIV31SpecValidator(SPEC).validate()


def test_examples_fit_their_schemas():
    for op in OPS.values():
        for name, (status, media_type, value, _) in op.response_examples.items():
            media = op.op["responses"][status]["content"][media_type]
            check_schema(value, media["schema"], f"{op}'s response example {name}")
        body = op.op.get("requestBody", {}).get("content", {})
        for name, (value, _) in op.request_examples.items():
            # The convention: a request example is answered by the response example of its name.
            assert name in op.response_examples, f"{op}: the request example {name} has no response example"
            if op.response_examples[name][0].startswith("2"):
                check_schema(value, body["application/json"]["schema"], f"{op}'s request example {name}")
    for name, definition in SPEC["components"]["schemas"].items():
        for index, value in enumerate(definition.get("examples", [])):
            check_schema(value, schema(name), f"the schema {name}'s example {index}")


def test_conventions_hold_for_every_operation():
    for op in OPS.values():
        responses = op.op["responses"]
        if op.method in ("post", "put", "delete"):
            assert "forbiddenOrigin" in op.response_examples, f"{op}: no 403 FORBIDDEN_ORIGIN example"
        if op.method in ("post", "put"):
            assert "unsupportedMediaType" in op.response_examples, f"{op}: no 415 example"
        for status, response in responses.items():
            assert response.get("description"), f"{op} {status}: no description"
        if op.path in ("/api/backend/redeem", "/api/backend/pending") or \
                re.search(r"/(confirm|enrol|verify|abandon)$", op.path):
            assert op.op["tags"] == ["phone wire"], f"{op} is not tagged 'phone wire'"
            assert "simulated SDK" in op.op["description"], f"{op} does not say the simulated SDK calls it"
    for stream in ("/api/phones/{id}/stream", "/api/backend/stream"):
        assert stream in SPEC["x-websockets"], f"the WebSocket {stream} is not described"
        assert stream in SPEC["info"]["description"]


def test_document_covers_every_route_in_the_sources():
    """Reads the route registrations of Sources/WebApp: every one must be in the document."""
    sources = ROOT / "Sources" / "WebApp"
    if not sources.is_dir():
        pytest.skip("the sources are not next to the test")
    build = (sources / "Application+build.swift").read_text()
    prefixes = {name: prefix or "" for name, prefix in
                re.findall(r'addRoutes\((?:try )?(\w+)\(.*?\)\.endpoints(?:, atPath: "([^"]*)")?\)', build)}
    assert prefixes, "no controllers found in Application+build.swift"
    routes = set()
    for name, prefix in prefixes.items():
        text = (sources / f"{name}.swift").read_text()
        for method, path in re.findall(r'routes\.(get|post|put|patch|delete)\s*(?:\(\s*"([^"]*)"\s*\))?\s*\{', text):
            routes.add((method, (prefix + ("/" + path if path else "")) or "/"))
    websockets = set()
    for swift in sources.glob("*.swift"):
        text = swift.read_text()
        routes |= set(re.findall(r'router\.(get|post|put|patch|delete)\(\s*"([^"]+)"', text))
        websockets |= set(re.findall(r'router\.ws\(\s*"([^"]+)"', text))
    # FCM's method is a path segment with a colon; the route matches it as a parameter.
    renamed = {"/v1/projects/{project}/{method}": "/v1/projects/{project}/messages:send"}
    documented = {(op.method, op.path) for op in OPS.values()}
    missing = sorted((m, renamed.get(p, p)) for m, p in routes if (m, renamed.get(p, p)) not in documented)
    assert not missing, f"routes not in the document: {missing}"
    assert websockets == set(SPEC["x-websockets"]), f"WebSockets: {websockets} vs {set(SPEC['x-websockets'])}"


def test_checker_refuses_undocumented_answers(api):
    """The checker itself: a status the document does not list fails the test."""
    answer = requests.get(f"{BASE_URL}/no/such/route", timeout=TIMEOUT)
    with pytest.raises(AssertionError, match="undocumented status 404"):
        api.check(OPS["health"], answer, None)


# ----------------------------------------------------------------------------------------------
# the live walk


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
    screen = Screen(BASE_URL, phone["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")

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


def test_walk_phone_wire(api):
    """A device of the test's own: enrol, log in (a wrong PIN first) and abandon, on the wire."""
    device = Device(api)
    user = uniq("frank")
    enrol = new_session(api, "enrol", user, displayName="Frank")
    device.redeem(enrol, "enrol")
    token = payload_of(enrol["qrText"])["nma_data"]["token"]
    api.call("redeemToken", "enrolQrUsed", merge=device.redeeming(token), expect=410)
    api.call("enrolAccount", "beforeConfirm", path={"id": enrol["id"]}, merge={"deviceId": device.id}, expect=409)
    api.call("confirmSession", "wrongDevice", path={"id": enrol["id"]}, expect=403)
    device.confirm(enrol["id"], "enrol")
    api.call("enrolAccount", "badSignature", path={"id": enrol["id"]}, merge={"deviceId": device.id}, expect=403)
    api.call("enrolAccount", "badKey", path={"id": enrol["id"]}, expect=400)
    account = device.enrol(enrol["id"])
    assert api.call("getSession", path={"id": enrol["id"]}, expect=200)[1]["status"] == "enrolled"

    login = new_session(api, "login", user)
    device.redeem(login, "login")
    api.call("confirmSession", "loginWithoutAccount", path={"id": login["id"]},
             merge={"deviceId": device.id, "deviceSignature": device.confirming(login["id"])}, expect=400)
    device.confirm(login["id"], "login", account=account)
    assert device.verify(login["id"], account, "wrongPin", right=False)["result"] == "rejected"
    assert device.verify(login["id"], account, "rightPin")["result"] == "accepted"
    api.call("verifyPin", "afterLogin", path={"id": login["id"]},
             merge={"deviceId": device.id, "accountId": account}, expect=409)
    _, status = api.call("getSession", path={"id": login["id"]}, expect=200)
    assert status["status"] == "loggedin" and status["loggedin"] is True and status["accountId"] == account

    # A transaction: altered text refused, the shown text signed, then the PIN.
    text = "Pay 120.00 EUR to ACME Ltd"
    transaction = new_session(api, "transaction", user, transaction=text)
    device.redeem(transaction, "transaction")
    device.confirm(transaction["id"], "login", account=account)
    device.confirm_transaction(transaction["id"], account, "Pay 920.00 EUR to ACME Ltd", "transactionAltered", expect=403)
    device.confirm_transaction(transaction["id"], account, text)
    assert device.verify(transaction["id"], account, "rightPin")["result"] == "accepted"
    _, status = api.call("getSession", path={"id": transaction["id"]}, expect=200)
    assert status["status"] == "signed" and status["transactionSigned"] is True and status["loggedin"] is False

    # Only the device itself: a stranger with its (public) id and a key of its own is refused.
    cancelled = new_session(api, "login", user)
    stranger = Device(api)
    cancelled_token = payload_of(cancelled["qrText"])["nma_data"]["token"]
    api.call("redeemToken", "otherDeviceKey", merge=stranger.redeeming(cancelled_token, device.id), expect=403)
    api.call("redeemToken", "badDeviceSignature", expect=403,
             merge=stranger.redeeming(cancelled_token, device.id) | {"devicePublicKey": device.public_key})
    device.redeem(cancelled, "login")
    stranger.abandon(cancelled["id"], "USER_CANCELED", "strangerAbandons", expect=403, device_id=device.id)
    device.abandon(cancelled["id"], "USER_CANCELED", "cancel")
    device.abandon(cancelled["id"], "USER_CANCELED", "cancelAgain", expect=409)
    api.call("abandonSession", "badCode", path={"id": cancelled["id"]}, expect=400)
    device.abandon(cancelled["id"], "SESSION_EXPIRED", "inventedCode", expect=400)
    device.abandon(NO_SESSION, "USER_CANCELED", "sessionNotFound", expect=404)
    _, status = api.call("getSession", path={"id": cancelled["id"]}, expect=200)
    assert status["status"] == "canceled" and status["failure"] == "USER_CANCELED"

    # The pull fallback on the wire.
    waiting = new_session(api, "login", user)
    assert [o["sessionId"] for o in device.pending(account)["operations"]] == [waiting["id"]]
    api.call("pendingOperations", "stale", merge={"deviceId": device.id, "accountId": account,
                                                  "timestamp": utc_now(-3600)[1]}, expect=400)
    api.call("pendingOperations", "otherDevice", merge={"accountId": account, "timestamp": utc_now()[1]}, expect=403)

    device.redeem(waiting, None)
    token = payload_of(waiting["qrText"])["nma_data"]["token"]
    api.call("redeemToken", "redeemAgain", merge=device.redeeming(token), expect=409)
    bystander = new_phone(api, "Bystander")
    api.call("startOutOfBand", "tokenAlreadyRedeemed", path={"id": bystander["id"]}, body={"qr": waiting["qrText"]},
             expect=409)
    api.call("redeemToken", "unknownToken", merge=device.redeeming("abc"), expect=404)

    # Seed 001's announceInfo, set per session: the device is told the session's own strings and logo.
    _, announced = api.call("createSession", "announced", merge={"userId": user}, expect=201)
    example = OPS["createSession"].request_examples["announced"][0]
    answer = device.redeem(announced, None)
    assert answer["announceInfo"] == example["announceInfo"] and answer["announceLogo"] == example["announceLogo"]
    api.call("createSession", "svgLogo", expect=400)

    # Seed 001: the configuration skips the confirmation and the second factor of this login.
    _, silent = api.call("createSession", "silentLogin", merge={"userId": user}, expect=201)
    answer = device.redeem(silent, None)
    assert answer["skipConfirmation"] is True and answer["skipSecondFactor"] is True
    device.confirm(silent["id"], None, account=account)
    assert api.call("getSession", path={"id": silent["id"]}, expect=200)[1]["status"] == "loggedin"
    api.call("createSession", "transactionWithoutSecondFactor", merge={"userId": user}, expect=400)
    api.call("redeemToken", "emptyDeviceId", expect=400)
    api.call("redeemToken", "missingDeviceId", expect=400)
    api.call("confirmSession", "sessionNotFound", path={"id": NO_SESSION}, expect=404)
    FINISHED.add("wire")


def test_walk_second_factor_policy(api):
    """The console changes the wrong-PIN policy; refusals change nothing. Ends on the default."""
    _, policy = api.call("getSecondFactorPolicy", "nextAuth", expect=200)
    assert policy["preset"] == "nextAuth" and policy["presets"]["nevis"] == {"maxAttempts": 5, "penalties": [0, 0, 60, 180]}
    try:
        _, policy = api.call("setSecondFactorPolicy", "nevis", expect=200)
        assert policy["preset"] == "nevis" and policy["penalties"] == [0, 0, 60, 180]
        _, policy = api.call("setSecondFactorPolicy", "custom", expect=200)
        assert "preset" not in policy and policy["maxAttempts"] == 5 and policy["penalties"] == [0, 30, 0, 300]
        for refused in ("tooManyPenalties", "presetAndNumbers"):
            api.call("setSecondFactorPolicy", refused, expect=400)
        api.call("setSecondFactorPolicy", body={"maxAttempts": "5"}, expect=400)
        _, unchanged = api.call("getSecondFactorPolicy", expect=200)
        assert unchanged == policy
    finally:
        api.call("setSecondFactorPolicy", body={"preset": "nextAuth"}, expect=200)
    FINISHED.add("policy")


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
    api.call("startOutOfBandFromImage", "imageTooLarge", path={"id": phone["id"]}, raw=bytes(8 * 1024 * 1024 + 1),
             content_type="image/png", expect=413)
    api.call("startOutOfBandFromImage", "phoneNotFound", path={"id": NO_PHONE}, raw=picture,
             content_type="image/png", expect=404)
    FINISHED.add("pictures")


def test_walk_phone_second_factors(api):
    """The phone's own flows (biometrics added and removed, the PIN changed both ways), its sensor and
    settings, a key upgrade, and the reset that removes all accounts."""
    # Settings and the sensor, on a phone without accounts.
    fresh = new_phone(api, "Nevis phone")
    _, changed = api.call("updatePhoneSettings", "nevisPinChange", path={"id": fresh["id"]}, expect=200)
    assert changed["settings"]["pinChangeStyle"] == "nevis" and changed["settings"]["maxNumberSecondFactorWithoutPIN"] == 3
    api.call("updatePhoneSettings", "limitOutOfRange", path={"id": fresh["id"]}, expect=400)
    api.call("startPhoneFlow", "notEnrolled", path={"id": fresh["id"]}, expect=409)
    _, more = api.call("addBiometricFeature", "anotherFingerprint", path={"id": fresh["id"]}, expect=200)
    assert more["biometrics"]["enrolledFeatures"] == 2
    _, none = api.call("removeBiometricFeatures", "noFeatures", path={"id": fresh["id"]}, expect=200)
    assert none["biometrics"]["enrolledFeatures"] == 0
    api.call("updatePhoneSettings", path={"id": fresh["id"]}, body={"biometricSensor": False}, expect=200)
    api.call("addBiometricFeature", "noSensor", path={"id": fresh["id"]}, expect=409)
    api.call("addBiometricFeature", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)
    api.call("removeBiometricFeatures", "phoneNotFound", path={"id": NO_PHONE}, expect=404)

    # An enrolled phone and the flows it starts itself.
    phone = new_phone(api, "Second factor phone")
    user = uniq("sofia")
    account = enrol_phone(api, phone, user)
    path = {"id": phone["id"]}
    api.call("updatePhoneSettings", "pinLengthWithPin", path=path, expect=409)
    for refused, status in (("serverFlow", 400), ("unknownType", 400), ("noBiometricKey", 409)):
        api.call("startPhoneFlow", refused, path=path, expect=status)
    api.call("startPhoneFlow", "phoneNotFound", path={"id": NO_PHONE}, body={"type": "CHANGE_PIN"}, expect=404)
    screen = Screen(BASE_URL, phone["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")

    # ADD_BIOMETRICS: the PIN, then the sensor (no match first).
    _, started = api.call("startPhoneFlow", path=path, body={"type": "ADD_BIOMETRICS"}, expect=202)
    assert started["flow"]["currentInteraction"]["secondFactorInfo"]["allowedSecondFactorTypes"] == ["PIN"]
    api.call("startPhoneFlow", "flowActive", path=path, expect=409)
    api.call("removeAllAccounts", "flowActive", path=path, expect=409)
    screen.send({"action": "inputSecondFactor", "biometrics": "match"})
    assert screen.until(lambda m: m["type"] == "error", "a refusal")["error"]["code"] == "FACTOR_NOT_OFFERED"
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    flow = screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    assert flow["currentInteraction"]["secondFactorInfo"] == {
        "allowedSecondFactorTypes": ["BIOMETRICS"], "requiredSecondFactorTypes": ["BIOMETRICS"], "showBiometrics": True}
    screen.send({"action": "inputSecondFactor", "biometrics": "noMatch"})
    assert screen.until(lambda m: m["type"] == "error", "a refusal")["error"]["code"] == "BIOMETRIC_NOT_RECOGNISED"
    screen.send({"action": "inputSecondFactor", "biometrics": "match"})
    assert screen.flow("DONE")["type"] == "ADD_BIOMETRICS"
    _, detail = api.call("getPhone", path=path, expect=200)
    assert detail["biometrics"]["hasEnabledBiometrics"] is True and "lastPinAt" in detail["biometrics"]

    # CHANGE_PIN the nextAuth way, verified by the biometric.
    _, started = api.call("startPhoneFlow", "changePin", path=path, expect=202)
    assert started["flow"]["currentInteraction"]["secondFactorInfo"]["showBiometrics"] is True
    screen.send({"action": "inputSecondFactor", "biometrics": "match"})
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": NEW_PIN})
    assert screen.flow("DONE")["type"] == "CHANGE_PIN"

    # CHANGE_PIN the Nevis way: the old and the new PIN together.
    api.call("updatePhoneSettings", path=path, body={"pinChangeStyle": "nevis"}, expect=200)
    api.call("startPhoneFlow", path=path, body={"type": "CHANGE_PIN"}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    for message, code in (({"pin": PIN}, "MISSING_FIELD"), ({"oldPin": NEW_PIN, "pin": NEW_PIN}, "OLD_PIN_EQUALS_NEW_PIN")):
        screen.send({"action": "inputSecondFactor", **message})
        assert screen.until(lambda m: m["type"] == "error", "a refusal")["error"]["code"] == code
    screen.send({"action": "inputSecondFactor", "oldPin": NEW_PIN, "pin": PIN})
    assert screen.flow("DONE")["type"] == "CHANGE_PIN"

    # REMOVE_BIOMETRICS with the (changed back) PIN.
    api.call("startPhoneFlow", path=path, body={"type": "REMOVE_BIOMETRICS"}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "REMOVE_BIOMETRICS"
    assert api.call("getPhone", path=path, expect=200)[1]["biometrics"]["hasEnabledBiometrics"] is False

    # A key upgrade from the console: no user input at all.
    _, upgrade = api.call("createSession", "upgrade", merge={"userId": user}, expect=201)
    _, started = api.call("startOutOfBand", "upgradeQr", path=path, merge={"qr": upgrade["qrText"]}, expect=202)
    assert started["flow"]["state"] == "DONE"
    _, status = api.call("getSession", path={"id": upgrade["id"]}, expect=200)
    assert status["status"] == "completed" and status["accountId"] == account
    api.call("createSession", "managementType", expect=400)
    api.call("createSession", "upgradeWithoutAccount", merge={"userId": uniq("nobody")}, expect=404)
    api.call("createSession", "loginWithoutAccount", merge={"userId": uniq("nobody")}, expect=404)
    # the upgraded key still logs in
    login = new_session(api, "login", user)
    api.call("startOutOfBand", path=path, body={"qr": login["qrText"]}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession"})
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "LOGIN"
    screen.close()

    # Removing all accounts resets the phone.
    _, reset = api.call("removeAllAccounts", "reset", path=path, expect=200)
    assert reset["accounts"] == [] and reset["hasPin"] is False and reset["deviceId"] != phone["deviceId"]
    api.call("removeAllAccounts", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    FINISHED.add("second factors")


def test_walk_local_data_and_device_information(api):
    """Local data (deleteAuthenticator, account removal), device information changed under retry
    policies through faults on demand, an FCM token rotation, and a cancelled retry."""
    phone = new_phone(api, "Local phone")
    path = {"id": phone["id"]}
    lena, mark = uniq("lena"), uniq("mark")
    lena_account = enrol_phone(api, phone, lena)
    mark_account = enrol_phone(api, phone, mark)
    _, local = api.call("getLocalData", "twoUsers", path=path, expect=200)
    assert sorted(a["userId"] for a in local["accounts"]) == sorted([lena, mark])
    _, local = api.call("deleteAuthenticator", "pin", path=path, merge={"userId": lena}, expect=200)
    assert [a["userId"] for a in local["accounts"]] == [mark]
    # the backend keeps lena's account
    new_session(api, "login", lena, accountId=lena_account)
    for refused, status in (("userNotFound", 404), ("missingUser", 400)):
        api.call("deleteAuthenticator", refused, path=path, expect=status)
    api.call("deleteAuthenticator", "badAaid", path=path, merge={"userId": mark}, expect=400)
    api.call("deleteAuthenticator", "phoneNotFound", path={"id": NO_PHONE}, body={"userId": mark}, expect=404)
    _, local = api.call("removePhoneAccount", "removed", path={**path, "account": mark_account}, expect=200)
    assert local["accounts"] == []
    # gone at the backend too
    api.call("createSession", body={"type": "login", "userId": mark, "accountId": mark_account}, expect=404)
    api.call("removePhoneAccount", "accountNotFound", path={**path, "account": mark_account}, expect=404)
    api.call("removePhoneAccount", "phoneNotFound", path={"id": NO_PHONE, "account": mark_account}, expect=404)
    api.call("getLocalData", "phoneNotFound", path={"id": NO_PHONE}, expect=404)

    # Device information.
    api.call("getDeviceInformation", "newPhone", path={"id": new_phone(api, "Plain phone")["id"]}, expect=200)
    api.call("getDeviceInformation", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    dan = uniq("dan")
    device = new_phone(api, "Device phone")
    twin = new_phone(api, "Twin phone")
    enrol_phone(api, device, dan)
    enrol_phone(api, twin, dan)
    path = {"id": device["id"]}
    screen = Screen(BASE_URL, device["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")
    name = uniq("Work phone")
    _, result = api.call("changeDeviceInformation", "rename", path=path, merge={"name": name}, expect=200)
    assert result["deviceInformation"]["name"] == name and [a["outcome"] for a in result["progress"]["attempts"]] == ["success"]
    assert screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "succeeded",
                        "the change succeeded")["operation"]["id"] == result["progress"]["id"]
    assert any(m["type"] == "phone" and m["phone"]["name"] == name for m in screen.seen), "the screen got the new name"
    api.call("cancelOperation", "noOperation", path=path, expect=409)
    api.call("cancelOperation", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    try:
        # A 503 with Retry-After 1: the second attempt waits and succeeds.
        api.call("addFault", "backend503", expect=201)
        name = uniq("Retry phone")
        _, result = api.call("changeDeviceInformation", "retried", path=path, merge={"name": name}, expect=200)
        attempts = result["progress"]["attempts"]
        assert [a["outcome"].split(":")[0] for a in attempts] == ["HTTP_503", "success"] and attempts[1]["waitedBefore"] >= 1
        _, result = api.call("changeDeviceInformation", "pushesOff", path=path, expect=200)
        assert result["deviceInformation"]["pushNotifications"] is False
        assert api.call("getPhone", path=path, expect=200)[1]["pushNotifications"] is False
        api.call("changeDeviceInformation", "nameTaken", path={"id": twin["id"]}, merge={"name": name}, expect=409)
        for refused in ("incompletePolicy", "tokenAndPushesOff"):
            api.call("changeDeviceInformation", refused, path=path, expect=400)
        api.call("changeDeviceInformation", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)

        # The platform rotates the FCM token: the old one is unregistered at once.
        old_token = api.call("getPhone", path=path, expect=200)[1]["fcmToken"]
        _, result = api.call("rotateFcmToken", "rotate", path=path, expect=200)
        assert result["deviceInformation"]["fcmToken"] != old_token and result["deviceInformation"]["pushNotifications"]
        api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": old_token, "data": {"k": "v"}}},
                 expect=404)
        api.call("rotateFcmToken", "incompletePolicy", path=path, expect=400)
        api.call("rotateFcmToken", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)

        # The backend refuses this phone's connections: every attempt fails, each on the screen.
        _, fault = api.call("addFault", "phoneUnreachable", merge={"phoneId": device["id"]}, expect=201)
        shown = screen.until(lambda m: m["type"] == "faults" and fault["id"] in [f["id"] for f in m["faults"]],
                             "the fault on the screen")["faults"]
        assert [f["target"] for f in shown] == ["phone"]
        _, listed = api.call("listFaults", "oneFault", expect=200)
        assert [f["id"] for f in listed["faults"]] == [fault["id"]]
        _, refusal = api.call("changeDeviceInformation", "backendDown", path=path, merge={"name": uniq("Down")}, expect=502)
        assert [a["number"] for a in refusal["error"]["attempts"]] == [1, 2, 3]
        waiting = screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "waiting", "a wait")
        assert waiting["operation"]["nextAttemptIn"] >= 0 and "nextAttemptAt" in waiting["operation"]
        failed = screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "failed", "the failure")
        assert failed["operation"]["error"]["code"] == "DEVICE_INFORMATION_CHANGE_FAILED"
        api.call("listFaults", "none", expect=200)  # its count is used up
        api.call("removeFault", "faultNotFound", path={"id": fault["id"]}, expect=404)

        # Cancelled while it waits to retry.
        api.call("addFault", body={"target": "phone", "phoneId": device["id"], "kind": "unreachable", "count": 4},
                 expect=201)
        cancelled = in_background(lambda: Api(BASE_URL).call(
            "changeDeviceInformation", "cancelled", path=path, merge={"name": uniq("Slow")}, expect=409)[1])
        screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "waiting", "a wait")
        api.call("cancelOperation", path=path, expect=202)
        assert cancelled()["error"]["code"] == "OPERATION_CANCELLED"
        assert screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "cancelled",
                            "the cancellation")["operation"]["error"]["code"] == "OPERATION_CANCELLED"

        # Faults for the push service, and refused faults.
        _, delayed = api.call("addFault", "delayedPush", expect=201)
        api.call("removeFault", path={"id": delayed["id"]}, expect=204)
        for refused in ("phoneWithoutId", "notAnErrorStatus", "dropOnBackend", "missingTarget"):
            api.call("addFault", refused, expect=400)
    finally:
        api.call("clearFaults", expect=204)
    screen.close()
    assert api.call("listFaults", expect=200)[1] == {"faults": []}
    FINISHED.add("local data")


def test_walk_management_on_the_wire(api):
    """A device of the test's own: the management flows, a key rotation, device information and
    account removal, on the wire."""
    device, other = Device(api), Device(api)
    user = uniq("frank")
    account = device.enrol_user(user)
    other_account = other.enrol_user(user)

    # CHANGE_PIN: refusals, then the old PIN and the new PIN key.
    device.manage(account, "changePin", "stale", expect=400, offset=-3600)
    device.manage(account, "login", "notManagement", expect=400)
    device.manage(account, "addBiometrics", "wrongType", expect=403, signed_kind="changePin")
    device.manage(account, "changePin", "otherDevice", expect=404, deviceId="dev-1")
    device.manage(account, "removeBiometrics", "noBiometricKey", expect=409)
    started = device.manage(account, "changePin", "changePin")
    session_id = started["sessionId"]
    _, status = api.call("getSession", path={"id": session_id}, expect=200)
    assert (status["type"], status["status"], status["delivery"]) == ("changePin", "confirmed", "phone")
    api.call("setSecondFactor", "beforeVerification", path={"id": session_id},
             merge={"deviceId": device.id, "accountId": account}, expect=409)
    api.call("setSecondFactor", "badFactor", path={"id": session_id}, expect=400)
    assert device.verify(session_id, account, "changePinVerified")["challenge"]
    assert api.call("getSession", path={"id": session_id}, expect=200)[1]["status"] == "verified"
    device.pin_seed = device.set_factor(session_id, account, "pin", "newPin")
    assert api.call("getSession", path={"id": session_id}, expect=200)[1]["status"] == "completed"

    # ADD_BIOMETRICS, then a login by biometric clears a wrong PIN.
    started = device.manage(account, "addBiometrics")
    assert started["biometricsRegistered"] is False
    device.verify(started["sessionId"], account, None)
    biometric_seed = device.set_factor(started["sessionId"], account, "biometrics")
    login = new_session(api, "login", user)
    device.redeem(login, "login")
    device.confirm(login["id"], "login", account=account)
    assert device.verify(login["id"], account, "wrongPin", right=False)["secondFactor"]["failedAttempts"] == 1
    answer = device.verify_biometric(login["id"], account, biometric_seed)
    assert answer["result"] == "accepted" and answer["secondFactor"]["failedAttempts"] == 0
    assert api.call("getSession", path={"id": login["id"]}, expect=200)[1]["status"] == "loggedin"
    api.call("verifyPin", "bothFactors", path={"id": login["id"]}, expect=400)
    # a device without a biometric key
    login = new_session(api, "login", user)
    other.redeem(login, "login")
    other.confirm(login["id"], "login", account=other_account)
    other.verify_biometric(login["id"], other_account, secrets.token_bytes(32), "noBiometricKey", expect=409)

    # HEADLESS_UPGRADE: the account key is replaced.
    upgrade = new_session(api, "upgrade", user)
    device.redeem(upgrade, None)
    api.call("rotateAccountKey", "badKey", path={"id": upgrade["id"]}, expect=400)
    device.rotate(upgrade["id"], account, "newKeyOnly", expect=403, old_key_is_new=True)
    device.rotate(upgrade["id"], account, "rotate")
    api.call("rotateAccountKey", "rotateAgain", path={"id": upgrade["id"]},
             merge={"deviceId": device.id, "accountId": account}, expect=409)
    assert api.call("getSession", path={"id": upgrade["id"]}, expect=200)[1]["status"] == "completed"
    device.pending(account)  # the new key proves the account

    # Device information.
    name = uniq("Frank's phone")
    info = device.change_device(account, "rename", name=name)
    assert info["deviceId"] == device.id and info["name"] == name and info["pushNotifications"] is True
    info = device.change_device(account, "pushesOff")
    assert info == {"deviceId": device.id, "name": name, "pushNotifications": False}
    info = device.change_device(account, "newToken")
    assert info["pushNotifications"] is True and info["fcmToken"] == "dJ3k9Xq2Rz8:APA91bF4kq"
    other.change_device(other_account, "nameTaken", expect=409, name=name)
    device.change_device(account, "tokenAndPushesOff", expect=400)
    device.change_device(account, "otherName", expect=403, signed={"name": "Another name"})

    # Account removal.
    device.remove_account(account, "badSignature", expect=403, signature="AA")
    device.remove_account(account, "stale", expect=400, offset=-3600)
    device.remove_account(account, "remove")
    device.remove_account(account, "removeAgain", expect=404)
    FINISHED.add("management wire")


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


def moment(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


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
    screen = Screen(BASE_URL, phone["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")
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


def setting_a_pin(api, name):
    """A new phone whose enrolment waits for its new PIN, and its open screen."""
    phone = new_phone(api, name)
    session = new_session(api, "enrol", uniq("pin-check"))
    screen = Screen(BASE_URL, phone["id"])
    screen.until(lambda m: m["type"] == "phone", "the phone")
    api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": session["qrText"]}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession"})
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    return phone, screen


def test_walk_pin_check(api):
    """A new PIN checked against the policy at its first entry, while the flow sets one."""
    phone, screen = setting_a_pin(api, "PIN check phone")
    path = {"id": phone["id"]}
    try:
        _, refused = api.call("checkNewPin", "tooCommon", path=path, expect=400)
        assert "123456" not in json.dumps(refused)
        api.call("checkNewPin", path=path, body={"pin": "739184"}, expect=204)
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")
        api.call("checkNewPin", "notSettingAPin", path=path, expect=409)
    finally:
        screen.close()
    FINISHED.add("pin check")


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


def test_cross_site_guard_on_every_state_changing_route(api):
    """Every POST and DELETE: a foreign Origin is refused; every POST: a non-JSON body, and
    (where the route reads one) an oversized body."""
    phone = new_phone(api, "Guarded phone")
    session = new_session(api, "enrol", uniq("guard"))
    ids = {"id": phone["id"], "message": str(uuid.uuid4()), "account": str(uuid.uuid4()), "project": "authphone",
           "console": uniq("guard")}
    session_ids = {"id": session["id"]}
    for op in OPS.values():
        if op.method not in ("post", "put", "delete"):
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


def test_every_operation_answers(api):
    """Every path and method of the document answers a well-formed request (no 404, no 405)."""
    phone = new_phone(api, "Sweep phone")
    scanner = new_phone(api, "Sweep scanner")
    opener = new_phone(api, "Sweep opener")
    enrol = new_session(api, "enrol", uniq("sweep"))
    pushed = payload_of(new_session(api, "enrol", uniq("sweep-push"))["qrText"])
    api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": opener["fcmToken"], "data": {
        "nma_data": json.dumps(pushed["nma_data"]), "nma_data_content_type": "application/json",
        "nma_data_version": "1"}}}, expect=200)
    message = api.call("getInbox", path={"id": opener["id"]}, expect=200)[1]["messages"][0]
    device = Device(api)
    wire_user = uniq("sweep-wire")
    wire = new_session(api, "enrol", wire_user)
    pushed_phone = new_phone(api, "Sweep pushed")
    to_push = new_session(api, "enrol", uniq("sweep-push-card"))
    camera = new_phone(api, "Sweep camera")
    pictured = new_session(api, "enrol", uniq("sweep-camera"))
    picture = svg_to_png(api.call("getSessionQRCode", path={"id": pictured["id"]}, expect=200)[1])
    # phones of their own for the phone's flows, its local data and its retried operations
    managed = new_phone(api, "Sweep managed")
    enrol_phone(api, managed, uniq("sweep-managed"))
    local = new_phone(api, "Sweep local")
    local_users = [uniq("sweep-local"), uniq("sweep-local")]
    local_accounts = [enrol_phone(api, local, user) for user in local_users]
    rotating = new_phone(api, "Sweep rotating")
    slow = new_phone(api, "Sweep slow")
    enrol_phone(api, slow, uniq("sweep-slow"))
    otp_phone = new_phone(api, "Sweep OTP")
    otp_user = uniq("sweep-otp")
    enrol_phone(api, otp_phone, otp_user)

    def redeem():
        device.redeem(wire, None)

    def verify():
        login = new_session(api, "login", wire_user)  # the wire user is enrolled by now
        device.redeem(login, "login")
        device.confirm(login["id"], "login", account=next(iter(device.account_seeds)))
        device.verify(login["id"], next(iter(device.account_seeds)), "rightPin")

    def confirm_transaction():
        account = next(iter(device.account_seeds))
        transaction = new_session(api, "transaction", wire_user, transaction="Pay 1 EUR")
        device.redeem(transaction, "transaction")
        device.confirm(transaction["id"], "login", account=account)
        device.confirm_transaction(transaction["id"], account, "Pay 1 EUR")

    def abandon_it():
        abandon = new_session(api, "login", wire_user)
        device.redeem(abandon, "login")
        device.abandon(abandon["id"])

    def cancel_a_retry():
        api.call("addFault", body={"target": "phone", "phoneId": slow["id"], "kind": "unreachable", "count": 2}, expect=201)
        screen = Screen(BASE_URL, slow["id"])
        try:
            change = in_background(lambda: requests.put(
                f"{BASE_URL}/api/phones/{slow['id']}/device-information", timeout=TIMEOUT,
                json={"name": "Sweep slow", "retryPolicy": {"type": "constant", "maxRetries": 1, "delay": 600}}))
            screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "waiting", "a wait")
            api.call("cancelOperation", path={"id": slow["id"]})
            Api.check(api, OPS["changeDeviceInformation"], change(), None)  # checked, not counted as the sweep's
        finally:
            screen.close()
            api.call("clearFaults", expect=204)

    first_account = lambda: next(iter(device.account_seeds))  # noqa: E731

    def management():
        started = device.manage(first_account(), "changePin")
        device.verify(started["sessionId"], first_account(), None)
        return started

    def set_factor():
        device.pin_seed = device.set_factor(management()["sessionId"], first_account(), "pin")

    def rotate():
        upgrade = new_session(api, "upgrade", wire_user)
        device.redeem(upgrade, None)
        device.rotate(upgrade["id"], first_account(), None)

    def remove_account():
        account = device.enrol_user(wire_user, examples=False)
        device.remove_account(account)

    def check_new_pin():
        pin_phone, screen = setting_a_pin(api, "Sweep PIN check")
        try:
            api.call("checkNewPin", path={"id": pin_phone["id"]}, body={"pin": "739184"})
        finally:
            screen.close()

    def remove_fault():
        fault = api.call("addFault", body={"target": "phone", "phoneId": NO_PHONE, "kind": "hang"}, expect=201)[1]
        api.call("removeFault", path={"id": fault["id"]})

    def generate_otp():
        fault = api.call("addFault", body={"target": "phone", "phoneId": otp_phone["id"], "kind": "offline"},
                         expect=201)[1]
        try:
            login = new_session(api, "login", otp_user)
            scan = requests.post(f"{BASE_URL}/api/phones/{otp_phone['id']}/oob", json={"qr": login["qrText"]},
                                 timeout=TIMEOUT)
            Api.check(api, OPS["startOutOfBand"], scan, None)  # checked, not counted as the sweep's
            assert scan.status_code == 502, describe(scan)
            api.call("generateOTP", path={"id": otp_phone["id"]}, body={})
        finally:
            api.call("removeFault", path={"id": fault["id"]}, expect=204)

    def otp_login():
        otp_device = Device(api)
        user = uniq("sweep-otp-wire")
        account = otp_device.enrol_user(user, examples=False, otp=True)
        api.call("setServerFlags", body={"flags": {"ENABLE_OTP": True}}, expect=200)
        login = new_session(api, "login", user)
        api.call("otpLogin", path={"id": login["id"]}, body={"otp": otp_device.otp(account, login)})

    def reset_elsewhere():
        """A reset would erase what the rest of the sweep works on: it runs on a server of its own,
        its answer checked (and counted) as the sweep's."""
        from servers import serving  # it imports this module

        with tempfile.TemporaryDirectory() as folder, \
                serving(pathlib.Path(folder), ["--in-memory", "--pin-kdf", "fast"]) as (_, url, _):
            answer = requests.post(f"{url}/api/reset", headers={"Content-Type": "application/json"}, timeout=TIMEOUT)
            api.check(OPS["resetAll"], answer, None)
            assert answer.status_code == 204, describe(answer)

    sweep = {
        "health": lambda: api.call("health"),
        "resetAll": reset_elsewhere,
        "deletePhone": lambda: api.call("deletePhone", path={"id": new_phone(api, "Sweep doomed")["id"]}),
        "ready": lambda: api.call("ready", "ready"),
        "metrics": lambda: api.call("metrics", "metrics"),
        "getOpenAPI": lambda: api.call("getOpenAPI"),
        "indexPage": lambda: api.call("indexPage"),
        "consolePage": lambda: api.call("consolePage"),
        "stagePage": lambda: api.call("stagePage"),
        "consoleSessionPage": lambda: api.call("consoleSessionPage", path={"id": enrol["id"]}),
        "pushSession": lambda: api.call("pushSession", path={"id": to_push["id"]},
                                        body={"pushToken": pushed_phone["fcmToken"]}),
        "getSessionTimeline": lambda: api.call("getSessionTimeline", path={"id": to_push["id"]}),
        "getPhoneTimeline": lambda: api.call("getPhoneTimeline", path={"id": pushed_phone["id"]}),
        "phonePage": lambda: api.call("phonePage", path={"id": phone["id"]}),
        "createPhone": lambda: api.call("createPhone", body={"name": "Sweep extra"}),
        "listPhones": lambda: api.call("listPhones"),
        "getPhone": lambda: api.call("getPhone", path={"id": phone["id"]}),
        "updatePhoneSettings": lambda: api.call("updatePhoneSettings", path={"id": phone["id"]},
                                                body={"openPushesAtOnce": False}),
        "startOutOfBandFromImage": lambda: api.call("startOutOfBandFromImage", path={"id": camera["id"]}, raw=picture,
                                                    content_type="image/png"),
        "getPendingOperations": lambda: api.call("getPendingOperations", path={"id": phone["id"]}),
        "pendingOperations": lambda: device.pending(next(iter(device.account_seeds))),
        "startOutOfBand": lambda: api.call("startOutOfBand", path={"id": scanner["id"]}, body={"qr": enrol["qrText"]}),
        "generateOTP": generate_otp,
        "getInbox": lambda: api.call("getInbox", path={"id": phone["id"]}),
        "receivePush": lambda: api.call("receivePush", path={"id": phone["id"]},
                                        body=OPS["receivePush"].request_examples["loginPush"][0]),
        "startPhoneFlow": lambda: api.call("startPhoneFlow", path={"id": managed["id"]}, body={"type": "CHANGE_PIN"}),
        "addBiometricFeature": lambda: api.call("addBiometricFeature", path={"id": phone["id"]}, body={}),
        "removeBiometricFeatures": lambda: api.call("removeBiometricFeatures", path={"id": phone["id"]}),
        "removeAllAccounts": lambda: api.call("removeAllAccounts", path={"id": phone["id"]}),
        "removePhoneAccount": lambda: api.call("removePhoneAccount",
                                               path={"id": local["id"], "account": local_accounts[0]}),
        "getLocalData": lambda: api.call("getLocalData", path={"id": local["id"]}),
        "deleteAuthenticator": lambda: api.call("deleteAuthenticator", path={"id": local["id"]},
                                                body={"userId": local_users[1], "aaid": "BIOMETRICS"}),
        "getDeviceInformation": lambda: api.call("getDeviceInformation", path={"id": phone["id"]}),
        "changeDeviceInformation": lambda: api.call("changeDeviceInformation", path={"id": rotating["id"]},
                                                    body={"name": "Sweep renamed", "retryPolicy": {"type": "none"}}),
        "rotateFcmToken": lambda: api.call("rotateFcmToken", path={"id": rotating["id"]},
                                           body={"retryPolicy": {"type": "none"}}),
        "cancelOperation": cancel_a_retry,
        "clearInbox": lambda: api.call("clearInbox", path={"id": phone["id"]}),
        "openInboxMessage": lambda: api.call("openInboxMessage", path={"id": opener["id"], "message": message["id"]}),
        "createSession": lambda: api.call("createSession", body={"type": "enrol", "userId": "sweep"}),
        "getSecondFactorPolicy": lambda: api.call("getSecondFactorPolicy"),
        "setSecondFactorPolicy": lambda: api.call("setSecondFactorPolicy", body={"preset": "nextAuth"}),
        "getServerFlags": lambda: api.call("getServerFlags"),
        "setServerFlags": lambda: api.call("setServerFlags", body={"flags": {"ENABLE_OTP": True}}),
        "otpLogin": otp_login,
        "listSessions": lambda: api.call("listSessions"),
        "getSession": lambda: api.call("getSession", path={"id": enrol["id"]}),
        "getSessionQRCode": lambda: api.call("getSessionQRCode", path={"id": enrol["id"]}),
        "redeemToken": redeem,
        "confirmSession": lambda: device.confirm(wire["id"], "enrol"),
        "enrolAccount": lambda: device.enrol(wire["id"]),
        "verifyPin": verify,
        "abandonSession": abandon_it,
        "confirmTransaction": confirm_transaction,
        "startManagement": management,
        "setSecondFactor": set_factor,
        "rotateAccountKey": rotate,
        "changeDevice": lambda: device.change_device(first_account(), name=uniq("Sweep device")),
        "removeAccount": remove_account,
        "checkNewPin": check_new_pin,
        "listFaults": lambda: api.call("listFaults"),
        "addFault": lambda: api.call("addFault", body={"target": "phone", "phoneId": NO_PHONE, "kind": "unreachable"}),
        "clearFaults": lambda: api.call("clearFaults"),
        "removeFault": remove_fault,
        "sendPush": lambda: api.call("sendPush", path={"project": "authphone"},
                                     body={"message": {"token": phone["fcmToken"], "data": {"k": "v"}}}),
        "listPushMessages": lambda: api.call("listPushMessages", query={"limit": "5"}),
        "clearPushMessages": lambda: api.call("clearPushMessages"),
        "getComposerState": lambda: api.call("getComposerState", path={"console": "sweep"}),
        "saveComposerState": lambda: api.call("saveComposerState", path={"console": "sweep"},
                                              body={"templates": {}, "last": None}),
    }
    assert set(sweep) == set(OPS), f"operations without a sweep request: {set(OPS) ^ set(sweep)}"
    answered = {}
    original = api.check

    def recording(op, response, example):
        answered.setdefault(op.id, []).append(response.status_code)
        return original(op, response, example)

    api.check = recording
    try:
        for op_id in OPS:  # the document's order: the wire steps follow one another
            sweep[op_id]()
    finally:
        api.check = original
    for op_id, statuses in answered.items():
        assert not {404, 405} & set(statuses[-1:]), f"{OPS[op_id]} answered {statuses[-1]} to a well-formed request"
    assert set(answered) >= set(OPS)
    for op_id in OPS:
        assert 200 <= answered[op_id][-1] < 300, f"{OPS[op_id]} answered {answered[op_id][-1]}"


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
    phone = new_phone(api, "WebSocket phone")
    ws_base = BASE_URL.replace("http", "ws", 1)
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(f"{ws_base}/api/phones/{phone['id']}/stream", origin=FOREIGN_ORIGIN,
                                    timeout=TIMEOUT)
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
            "account": str(uuid.uuid4()), "project": "authphone", "console": "console"}


def test_doors_refuse_foreign_hosts(api):
    """Every operation answers only to the server's own names: 421 UNKNOWN_HOST otherwise."""
    for op in OPS.values():
        api.call(op.id, "unknownHost", path=sweep_path(op), headers={"Host": "evil.example"}, expect=421)
    FINISHED.add("doors")


@contextlib.contextmanager
def own_server(*args, ready_status=200):
    """A server of the test's own (AUTHPHONE_BINARY), in memory, with `args`; yields its URL once
    /health answers `ready_status`, and stops it afterwards."""
    if not BINARY or not os.access(BINARY, os.X_OK):
        pytest.skip("AUTHPHONE_BINARY is not set")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([BINARY, "serve", "--port", str(port), "--in-memory", "--pin-kdf", "fast", *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert process.poll() is None, "the server of the test's own stopped"
            try:
                if requests.get(url + "/health", timeout=1).status_code == ready_status:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the server of the test's own never answered"
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(TIMEOUT)


@pytest.fixture(scope="module")
def keyed():
    """A server of the test's own with an access key and a push token."""
    key, token = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
    # up when it refuses us for want of the key; "=" keeps a key that starts with "-" a value
    with own_server(f"--access-key={key}", f"--push-token={token}", ready_status=401) as url:
        yield Api(url), key, token


def test_doors_need_the_access_key(keyed):
    """With an access key every operation needs it; with a push token the FCM route needs that."""
    api, key, token = keyed
    for op in OPS.values():
        api.call(op.id, "accessKeyRequired", path=sweep_path(op), expect=401)
    api.call("health", "ok", headers={"Authorization": f"Bearer {key}"}, expect=200)
    send = {"message": {"token": "not-registered", "data": {"k": "v"}}}
    api.call("sendPush", "unauthenticated", path={"project": "authphone"}, body=send,
             headers={"Authorization": f"Bearer {key}"}, expect=401)
    api.call("sendPush", "unregistered", path={"project": "authphone"}, body=send,
             headers={"Authorization": f"Bearer {token}"}, expect=404)
    FINISHED.add("keyed")


def test_zz_every_example_replayed():
    """Every named example was replayed by the tests above (run last, in file order)."""
    needed = {"phones", "login", "push", "push log", "wire", "policy", "pictures", "guard", "second factors", "local data",
              "management wire", "otp", "doors", "timeline", "pin check"}
    if not needed <= FINISHED:
        pytest.skip(f"the replaying tests {sorted(needed - FINISHED)} did not all pass")
    excused = {key for key, why in NOT_REPLAYED.items()
               if not (why == "AUTHPHONE_EXPIRY_URL" and "expiry" in FINISHED)
               and not (why == "AUTHPHONE_OFFLINE_URL" and "offline" in FINISHED)
               and not (why == "AUTHPHONE_BINARY" and "keyed" in FINISHED)}
    assert set(NOT_REPLAYED) <= example_keys(), f"NOT_REPLAYED names no example: {set(NOT_REPLAYED) - example_keys()}"
    missing = sorted(example_keys() - REPLAYED - excused)
    assert not missing, f"named examples never replayed: {missing}"
