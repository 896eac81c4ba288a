"""The push log over HTTP on a server of the test's own whose log keeps 3 messages: every send is
logged (accepted or refused, from any sender), filters by phone and outcome, the bound holds,
and only this server's own pages or a script can clear it.

Environment: AUTHPHONE_BINARY (scripts/api-test.sh sets it), as servers.own_server needs.
"""

import pytest
import requests

from client import TIMEOUT
from servers import own_server

LOG_SIZE = 3


@pytest.fixture(scope="module")
def server():
    with own_server("--push-log-size", str(LOG_SIZE)) as url:
        yield url


def send(url, message):
    return requests.post(f"{url}/v1/projects/authphone/messages:send", json={"message": message}, timeout=TIMEOUT)


def log(url, **query):
    answer = requests.get(f"{url}/api/push/messages", params=query, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_log_filters_bound_and_clear(server):
    phones = [requests.post(f"{server}/api/phones", json={"name": name}, timeout=TIMEOUT).json() for name in ("A", "B")]
    a, b = (p["fcmToken"] for p in phones)
    assert send(server, {"token": a, "data": {"k": "v"}}).status_code == 200
    refused = send(server, {"token": a, "data": {"n": 1}})
    assert refused.status_code == 400
    violation = refused.json()["error"]["details"][1]["fieldViolations"][0]
    assert violation["field"] == "message.data" and "string" in violation["description"]
    assert send(server, {"token": b, "data": {"k": "v"}}).status_code == 200

    entries = log(server)["messages"]
    assert [(e["target"], e["outcome"]) for e in entries] == [(b, "inbox"), (a, "INVALID_ARGUMENT"), (a, "inbox")]
    assert entries[1]["rule"] == "stringValues" and entries[1]["error"].startswith("Invalid value at 'message.data")
    assert [e["outcome"] for e in log(server, phone=phones[0]["id"])["messages"]] == ["INVALID_ARGUMENT", "inbox"]
    assert [e["target"] for e in log(server, outcome="INVALID_ARGUMENT")["messages"]] == [a]
    assert log(server, target=b)["messages"] == entries[:1]
    assert len(log(server, limit=1)["messages"]) == 1

    # the bound: a fourth message pushes the oldest out
    assert send(server, {"token": "not-registered", "data": {}}).status_code == 404
    after = log(server)
    assert after["limit"] == LOG_SIZE
    assert [e["outcome"] for e in after["messages"]] == ["UNREGISTERED", "inbox", "INVALID_ARGUMENT"]
    assert log(server, target=a, outcome="inbox")["messages"] == [], "the oldest message is still stored"
    assert requests.get(f"{server}/api/push/messages", params={"limit": LOG_SIZE + 1}, timeout=TIMEOUT).status_code == 400

    # another site's page cannot clear it; the server's own page (or a script) can
    foreign = requests.delete(f"{server}/api/push/messages", headers={"Origin": "https://evil.example"}, timeout=TIMEOUT)
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "FORBIDDEN_ORIGIN"
    assert log(server)["messages"] == after["messages"]
    own = requests.delete(f"{server}/api/push/messages", headers={"Origin": server}, timeout=TIMEOUT)
    assert own.status_code == 204
    assert log(server)["messages"] == []
