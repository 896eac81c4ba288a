"""`authphone serve` listening on IPv6, end to end: on `::1`, and on `::` (every address, so off
loopback, with an access key).

The server says where it listens, its QR codes send phones to redeem at, and its key link all
name the address in brackets (`http://[::1]:PORT`); a phone enrols through the QR code: it
redeems at that URL, its user confirms and sets a PIN on its screen (the WebSocket), and the
backend has the account. A wrong URL here (no brackets, 127.0.0.1 without the port) is refused
by every phone that scans it.

Environment: AUTHPHONE_BINARY, the server to start (scripts/api-test.sh sets it).
"""

import base64
import json
import re

import requests
import websocket

from servers import TIMEOUT, serving

PIN = "260418"


def redeem_url(qr_text):
    """The redeem URL a session's QR text carries."""
    payload = json.loads(base64.urlsafe_b64decode(qr_text + "=" * (-len(qr_text) % 4)))
    return payload["nma_data"]["redeem_url"]


def enrol_through_qr(url, user, headers):
    """A new phone scans a new enrolment's QR code; its user confirms and sets the PIN on the
    screen. Returns the QR code's redeem URL and the session as the backend ends it."""
    phone = requests.post(f"{url}/api/phones", json={"name": f"IPv6 {user}"}, headers=headers, timeout=TIMEOUT)
    assert phone.status_code == 201, phone.text
    phone_id = phone.json()["id"]
    session = requests.post(f"{url}/api/backend/sessions", json={"type": "enrol", "userId": user},
                            headers=headers, timeout=TIMEOUT).json()
    screen = websocket.create_connection(url.replace("http", "ws", 1) + f"/api/phones/{phone_id}/stream",
                                         header=headers, timeout=TIMEOUT)
    try:
        def next_flow(state):
            while True:
                message = json.loads(screen.recv())
                if message["type"] == "flowUpdate" and message["flow"]["state"] in (state, "DONE", "ERROR"):
                    return message["flow"]

        scanned = requests.post(f"{url}/api/phones/{phone_id}/oob", json={"qr": session["qrText"]},
                                headers=headers, timeout=TIMEOUT)
        assert scanned.status_code == 202, scanned.text
        assert next_flow("WAIT_FOR_INPUT")["currentInteraction"]["type"] == "CONFIRM"
        screen.send(json.dumps({"action": "confirmSession"}))
        assert "secondFactorInfo" in next_flow("WAIT_FOR_INPUT")["currentInteraction"]
        screen.send(json.dumps({"action": "inputSecondFactor", "pin": PIN}))
        ended = next_flow("DONE")
        assert ended["state"] == "DONE", ended
    finally:
        screen.close()
    done = requests.get(f"{url}/api/backend/sessions/{session['id']}", headers=headers, timeout=TIMEOUT).json()
    return redeem_url(session["qrText"]), done


def test_listening_on_ipv6_loopback(tmp_path):
    with serving(tmp_path, ["--host", "::1", "--in-memory", "--pin-kdf", "fast"]) as (_, url, log_path):
        port = url.rsplit(":", 1)[1]
        assert url == f"http://[::1]:{port}"
        assert f"AuthPhone is listening on http://[::1]:{port}" in log_path.read_text()
        redeem, session = enrol_through_qr(url, "alice", {})
        assert redeem == f"http://[::1]:{port}/api/backend/redeem"
        assert session["accountId"]


def test_listening_on_every_ipv6_address(tmp_path):
    # off loopback every route but the probes needs the key, until the key link is opened
    with serving(tmp_path, ["--host", "::", "--in-memory", "--pin-kdf", "fast"]) as (_, url, log_path):
        assert requests.get(f"{url}/api/phones", timeout=TIMEOUT).status_code == 401
        port = url.rsplit(":", 1)[1]
        link = re.search(r"open (http://\S+/\?key=\S+)", log_path.read_text())
        assert link, log_path.read_text()
        assert link[1].startswith(f"http://[::1]:{port}/?key=")
        opened = requests.Session()
        assert opened.get(link[1], timeout=TIMEOUT).status_code == 200  # the redirect, then the page with the key's cookie
        assert opened.get(f"{url}/api/phones", timeout=TIMEOUT).ok
        key = link[1].split("?key=", 1)[1]
        redeem, session = enrol_through_qr(url, "bob", {"Authorization": f"Bearer {key}"})
        assert redeem == f"http://[::1]:{port}/api/backend/redeem"
        assert session["accountId"]
