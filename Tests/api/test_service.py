"""Running AuthPhone as a service: `/ready` and `/metrics` (Prometheus text, read with the
real `prometheus_client` parser) behind the same doors as every route, with the named series
moving during a login by push.

Environment: AUTHPHONE_URL (the running server; scripts/api-test.sh sets it).
"""

import time

import requests
import websocket
from prometheus_client.parser import text_string_to_metric_families

from client import BASE_URL, PIN, TIMEOUT, Api, EventStream, Screen, enrol_phone, new_phone, screen_of, uniq, wait_for
from servers import serving


def samples():
    """Every sample of /metrics as {(name, frozenset(labels)): value}, through prometheus_client."""
    answer = requests.get(f"{BASE_URL}/metrics", timeout=TIMEOUT)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(answer.text) for s in family.samples}


def value(seen, name, **labels):
    return seen.get((name, frozenset(labels.items())), 0)


def test_ready_names_the_version_the_databases_and_the_uptime():
    answer = requests.get(f"{BASE_URL}/ready", timeout=TIMEOUT)
    assert answer.status_code == 200
    ready = answer.json()
    assert ready["status"] == "ready" and ready["version"]
    assert ready["databases"] == {name: {"status": "ok", "storage": "file"} for name in ("phones", "backend", "push", "timeline", "sms")}
    assert ready["uptimeSeconds"] > 0
    later = requests.get(f"{BASE_URL}/ready", timeout=TIMEOUT).json()
    assert later["uptimeSeconds"] >= ready["uptimeSeconds"]


def test_named_series_move_during_a_login(api):
    phone = new_phone(api, "Metrics phone")
    user = uniq("metrics")
    account = enrol_phone(api, phone, user)
    api.call("updatePhoneSettings", path={"id": phone["id"]}, body={"openPushesAtOnce": True}, expect=200)
    before = samples()
    screen = screen_of(api, phone)
    during = samples()
    assert value(during, "authphone_websockets_open", stream="phone") == \
        value(before, "authphone_websockets_open", stream="phone") + 1

    session = api.call("createSession", body={"type": "login", "userId": user, "delivery": "push"}, expect=201)[1]
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession", "account": account})
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "LOGIN"
    screen.close()
    wait_for(lambda: api.call("getSession", path={"id": session["id"]})[1]["status"] == "loggedin", "the login")
    after = wait_for(lambda: (lambda s: s if value(s, "authphone_websockets_open", stream="phone")
                              == value(before, "authphone_websockets_open", stream="phone") else None)(samples()),
                     "the screen's socket closing")

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("authphone_flows_started_total", type="LOGIN") == 1
    assert moved("authphone_flows_ended_total", type="LOGIN", outcome="DONE") == 1
    assert moved("authphone_flow_duration_seconds_count", type="LOGIN") == 1
    for state in ("pending", "redeemed", "confirmed", "loggedin"):
        assert moved("authphone_sessions_total", type="login", state=state) == 1, state
    assert moved("authphone_pushes_total", outcome="delivered") == 1
    assert moved("authphone_http_requests_total", method="POST", route="/api/backend/sessions", status="201") == 1
    assert moved("authphone_http_request_duration_seconds_count", method="POST", route="/api/backend/sessions") == 1
    # ids never become labels: the phone's route is counted by its template
    assert moved("authphone_http_requests_total", method="GET", route="/api/backend/sessions/{id}", status="200") >= 1
    assert not any(phone["id"] in dict(labels).get("route", "") for _, labels in after)
    assert value(after, "process_resident_memory_bytes") > 0
    assert value(after, "process_cpu_seconds_total") > 0


def test_faults_in_force_and_applied_are_counted(api):
    phone = new_phone(api, "Faulty metrics phone")
    before = samples()
    fault = api.call("addFault", body={"target": "push", "kind": "dropPush", "count": 1}, expect=201)[1]
    assert value(samples(), "authphone_faults_active", target="push") == value(before, "authphone_faults_active", target="push") + 1
    api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": phone["fcmToken"], "data": {"k": "v"}}},
             expect=200)
    after = samples()
    assert value(after, "authphone_pushes_total", outcome="dropped") == value(before, "authphone_pushes_total", outcome="dropped") + 1
    assert value(after, "authphone_faults_applied_total", target="push", kind="dropPush") == \
        value(before, "authphone_faults_applied_total", target="push", kind="dropPush") + 1
    assert value(after, "authphone_faults_active", target="push") == value(before, "authphone_faults_active", target="push")
    requests.delete(f"{BASE_URL}/api/faults/{fault['id']}", timeout=TIMEOUT)
    # a refused push counts by FCM's error code
    api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": "no-such-token", "data": {"k": "v"}}},
             expect=404)
    assert value(samples(), "authphone_pushes_total", outcome="UNREGISTERED") == \
        value(after, "authphone_pushes_total", outcome="UNREGISTERED") + 1


def test_ready_and_metrics_answer_only_to_this_servers_names():
    for path in ("/ready", "/metrics"):
        answer = requests.get(f"{BASE_URL}{path}", headers={"Host": "evil.example"}, timeout=TIMEOUT)
        assert answer.status_code == 421 and answer.json()["error"]["code"] == "UNKNOWN_HOST", path
        assert "authphone_" not in answer.text


def test_a_stop_is_not_held_by_open_pages_that_do_not_answer(tmp_path):
    """SIGTERM with a phone's screen, a console, a timeline and an event stream open, none of
    their clients reading (a script's, as a browser would answer the close at once): the server
    stops within seconds, not when they go."""
    with serving(tmp_path, ["--data-dir", str(tmp_path), "--pin-kdf", "fast"]) as (process, base, _):
        screen = Screen(base, new_phone(Api(base))["id"])
        pages = [websocket.create_connection(base.replace("http", "ws", 1) + path, timeout=TIMEOUT)
                 for path in ("/api/backend/stream", "/api/timeline/stream")]
        events = EventStream(base, {"kind": "session"})
        started = time.monotonic()
        process.terminate()
        assert process.wait(TIMEOUT) == 0
        assert time.monotonic() - started < 5, f"the stop took {time.monotonic() - started:.1f} s"
        for page in [screen.ws, *pages]:
            page.close()
        events.drop()
