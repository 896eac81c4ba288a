"""`authphone push` takes a push in every shape a developer copies one from: the FCM send request,
the app's received shape, Android's data map on its own and iOS's `userInfo`; each arrives in the
phone's inbox as a real push does.

Environment: AUTHPHONE_URL (the running server) and AUTHPHONE_BINARY (scripts/api-test.sh sets both).
"""

import json
import subprocess

import requests

from client import BASE_URL, TIMEOUT, push_data
from servers import BINARY


def test_every_shape_of_a_push_reaches_the_inbox():
    phone = requests.post(f"{BASE_URL}/api/phones", json={"name": "cli"}, timeout=TIMEOUT).json()
    session = requests.post(f"{BASE_URL}/api/backend/sessions", json={"type": "enrol", "userId": "cli-user"},
                            timeout=TIMEOUT).json()
    data = push_data(session["qrText"])
    shapes = {
        "send request": {"message": {"data": data, "notification": {"title": "Enrol?"}}},
        "received": {"from": "authphone", "data": data},
        "android data map": data,
        "ios userInfo": {**data, "aps": {"alert": {"title": "Enrol?", "body": "On this phone"}},
                         "gcm.message_id": "1700000000000001", "google.c.a.e": "1"},
    }
    for name, shape in shapes.items():
        sent = subprocess.run([BINARY, "push", "--server", BASE_URL, "--token", phone["fcmToken"]],
                              input=json.dumps(shape).encode(), capture_output=True, timeout=TIMEOUT)
        assert sent.returncode == 0, f"{name}: {sent.stderr.decode()}"
        assert json.loads(sent.stdout)["name"].startswith("projects/authphone/messages/"), name
    # --fid instead of --token replaces the message's own target
    by_fid = subprocess.run([BINARY, "push", "--server", BASE_URL, "--fid", phone["fid"]],
                            input=json.dumps({"message": {"token": "stale", "data": data}}).encode(),
                            capture_output=True, timeout=TIMEOUT)
    assert by_fid.returncode == 0, by_fid.stderr.decode()
    inbox = requests.get(f"{BASE_URL}/api/phones/{phone['id']}/inbox", timeout=TIMEOUT).json()["messages"]
    assert len(inbox) == len(shapes) + 1
    assert all(m["message"]["data"] == data for m in inbox)
    assert inbox[-2]["message"]["notification"] == {"title": "Enrol?", "body": "On this phone"}
    # a data value that is not a string is refused before anything is sent
    bad = subprocess.run([BINARY, "push", "--server", BASE_URL, "--token", phone["fcmToken"]],
                         input=json.dumps({**data, "nma_data_version": 1}).encode(), capture_output=True, timeout=TIMEOUT)
    assert bad.returncode != 0 and b"must be a string" in bad.stderr


def test_an_address_past_port_65535_is_refused_not_a_crash():
    """AsyncHTTPClient traps on such a port; every command that sends checks the address first."""
    commands = {
        "push": [BINARY, "push", "--server", "http://127.0.0.1:186112345", "--token", "t"],
        "load": [BINARY, "load", "--url", "http://127.0.0.1:186112345", "--phones", "1", "--duration", "1"],
        "serve --backend-url": [BINARY, "serve", "--port", "0", "--in-memory", "--backend-url", "http://127.0.0.1:70000"],
        "serve --push-url": [BINARY, "serve", "--port", "0", "--in-memory", "--push-url", "http://127.0.0.1:70000"],
    }
    for name, command in commands.items():
        ran = subprocess.run(command, input=b"{}", capture_output=True, timeout=TIMEOUT)
        assert ran.returncode in (1, 64), f"{name}: exit {ran.returncode} {ran.stderr.decode()[-300:]}"
        assert b"65535" in ran.stderr + ran.stdout, name
