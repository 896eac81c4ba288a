"""AuthPhone's OpenAPI document (Public/openapi.yaml) as the API tests read it: its operations with
their named examples, the checks an answer must pass (its schema, the shape of a named example),
and the record of which named examples the tests replayed (test_openapi.py checks it last)."""

import datetime
import json
import pathlib
import re
import urllib.parse
import uuid

import jsonschema
import pytest
import yaml
from jsonschema.exceptions import best_match

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "Public" / "openapi.yaml"
SPEC_TEXT = SPEC_PATH.read_bytes()
SPEC = yaml.safe_load(SPEC_TEXT)


def pointer(ref):
    """The node a local `#/…` reference names."""
    assert ref.startswith("#/"), f"only local references are used: {ref}"
    node = SPEC
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def resolve(node, within=()):
    """node with every `$ref` replaced by what it names. A schema that names itself (a privacyIDEA
    request listing the others waiting) is followed once; inside that, it is any object."""
    if isinstance(node, dict):
        if "$ref" in node:
            ref = node["$ref"]
            return {"type": "object"} if ref in within else resolve(pointer(ref), within + (ref,))
        return {key: resolve(value, within) for key, value in node.items()}
    if isinstance(node, list):
        return [resolve(value, within) for value in node]
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
# which named examples were replayed


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


# Filled by the replaying tests, checked by test_zz_every_example_replayed.
REPLAYED = set()
FINISHED = set()


def example_keys():
    keys = set()
    for op in OPS.values():
        keys |= {key for *_, key in op.response_examples.values()}
        keys |= {key for _, key in op.request_examples.values()}
    return keys
