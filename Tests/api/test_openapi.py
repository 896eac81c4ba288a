"""Checks AuthPhone's OpenAPI document (Public/openapi.yaml) as a document: it is what the server
serves, it is valid OpenAPI 3.1, its examples fit its schemas, it keeps its conventions, it covers
every route in Sources/WebApp, and the checker refuses what it does not document.

The document is then checked against a live server by the tests of each story (test_enrolment_and_login.py,
test_push_service.py, test_wire.py, test_phone_flows.py, test_phone_data.py, test_offline_otp.py,
test_otp_accounts.py, test_doors.py, test_privacyidea_push.py, test_every_operation.py): they replay
the named examples in a realistic order, and every answer must have a documented status and a body
that fits the documented schema; an answer to a named example must be the one documented (same
status, same codes, same shape). At the end
(test_zz_every_example_replayed, which conftest.py runs last) every named example must have been
replayed, or be listed in NOT_REPLAYED with the reason.

Environment: as client.py says.
"""

import re

import pytest
import requests
from openapi_spec_validator import OpenAPIV31SpecValidator

from client import BASE_URL, TIMEOUT, describe
from document import FINISHED, NOT_REPLAYED, OPS, REPLAYED, ROOT, SPEC, SPEC_TEXT, check_schema, example_keys, schema


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
                media = next(media for media in body.values() if name in media.get("examples", {}))
                check_schema(value, media["schema"], f"{op}'s request example {name}")
    for name, definition in SPEC["components"]["schemas"].items():
        for index, value in enumerate(definition.get("examples", [])):
            check_schema(value, schema(name), f"the schema {name}'s example {index}")


def test_conventions_hold_for_every_operation():
    for op in OPS.values():
        responses = op.op["responses"]
        if op.method in ("post", "put", "patch", "delete"):
            assert "forbiddenOrigin" in op.response_examples, f"{op}: no 403 FORBIDDEN_ORIGIN example"
        if op.method in ("post", "put", "patch"):
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
    """Reads the route registrations of Sources/WebApp, as closures (`routes.get("…") {`) or as
    handlers (`routes.get("…", use: handler)`): every one must be in the document."""
    sources = ROOT / "Sources" / "WebApp"
    if not sources.is_dir():
        pytest.skip("the sources are not next to the test")
    build = (sources / "Application+build.swift").read_text()
    prefixes = {name: prefix or "" for name, prefix in
                re.findall(r'addRoutes\((?:try )?(\w+)\(.*?\)\.endpoints(?:, atPath: "([^"]*)")?\)', build)}
    assert prefixes, "no controllers found in Application+build.swift"
    routes = set()
    files = {swift.stem: swift for swift in sources.rglob("*.swift")}  # the module's folders by job
    for name, prefix in prefixes.items():
        text = files[name].read_text()
        closures = re.findall(r'routes\.(get|post|put|patch|delete)\s*(?:\(\s*"([^"]*)"\s*\))?\s*\{', text)
        handlers = re.findall(r'routes\.(get|post|put|patch|delete)\(\s*(?:"([^"]*)"\s*,\s*)?use:', text)
        for method, path in closures + handlers:
            routes.add((method, (prefix + ("/" + path if path else "")) or "/"))
    websockets = set()
    for swift in files.values():
        text = swift.read_text()
        routes |= set(re.findall(r'router\.(get|post|put|patch|delete)\(\s*"([^"]+)"', text))
        websockets |= set(re.findall(r'router\.ws\(\s*"([^"]+)"', text))
    # FCM's method is a path segment with a colon, Twilio's message a SID with ".json": the routes match them as parameters.
    renamed = {"/v1/projects/{project}/{method}": "/v1/projects/{project}/messages:send",
               "/2010-04-01/Accounts/{account}/Messages/{message}": "/2010-04-01/Accounts/{account}/Messages/{message}.json"}
    documented = {(op.method, op.path) for op in OPS.values()}
    missing = sorted((m, renamed.get(p, p)) for m, p in routes if (m, renamed.get(p, p)) not in documented)
    assert not missing, f"routes not in the document: {missing}"
    assert websockets == set(SPEC["x-websockets"]), f"WebSockets: {websockets} vs {set(SPEC['x-websockets'])}"


def test_checker_refuses_undocumented_answers(api):
    """The checker itself: a status the document does not list fails the test."""
    answer = requests.get(f"{BASE_URL}/no/such/route", timeout=TIMEOUT)
    with pytest.raises(AssertionError, match="undocumented status 404"):
        api.check(OPS["health"], answer, None)


def test_zz_every_example_replayed():
    """Every named example was replayed by the tests that replay them (conftest.py runs this one last)."""
    needed = {"phones", "login", "push", "push log", "wire", "policy", "pictures", "guard", "second factors", "local data",
              "management wire", "otp", "doors", "timeline", "pin check", "otp accounts", "service account",
              "privacyIDEA enrolment", "privacyIDEA tokens", "privacyIDEA login", "privacyIDEA presence", "privacyIDEA forged",
              "privacyIDEA bad codes", "privacyIDEA down", "privacyIDEA unknown", "privacyIDEA inbox",
              "privacyIDEA decline reasons", "privacyIDEA unlock", "recordings",
              "recordings kept"}
    if not needed <= FINISHED:
        pytest.skip(f"the replaying tests {sorted(needed - FINISHED)} did not all pass")
    excused = {key for key, why in NOT_REPLAYED.items()
               if not (why == "AUTHPHONE_EXPIRY_URL" and "expiry" in FINISHED)
               and not (why == "AUTHPHONE_OFFLINE_URL" and "offline" in FINISHED)
               and not (why == "AUTHPHONE_BINARY" and "keyed" in FINISHED)}
    assert set(NOT_REPLAYED) <= example_keys(), f"NOT_REPLAYED names no example: {set(NOT_REPLAYED) - example_keys()}"
    missing = sorted(example_keys() - REPLAYED - excused)
    assert not missing, f"named examples never replayed: {missing}"
