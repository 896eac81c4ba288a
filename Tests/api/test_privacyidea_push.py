"""AuthPhone's phone as privacyIDEA's authenticator: a push token enrolled from privacyIDEA's own
QR text, and logins that privacyIDEA 3.14 itself (privacyidea_server.py) decides from the phone's
signed answers. privacyIDEA's answers are the proof: the token's rollout state, `/validate/check`.

Environment: AUTHPHONE_URL (the running server; scripts/api-test.sh sets it) and privacyIDEA's
virtual environment (PRIVACYIDEA_VENV).
"""

import pytest
import requests

from client import BASE_URL, TIMEOUT


def api(method, path, expect=200, **kwargs):
    response = requests.request(method, BASE_URL + path, timeout=TIMEOUT, **kwargs)
    assert response.status_code == expect, f"{method} {path}: {response.status_code} {response.text}"
    return response.json() if response.content else None


def new_phone(name):
    return api("POST", "/api/phones", expect=201, json={"name": name})


def enrolled_token(privacyidea, phone, user):
    """privacyIDEA's push token for `user`, enrolled by the phone from the QR text (accepting
    privacyIDEA's server on the way when the phone asks)."""
    serial, qr_text = privacyidea.admin.init_push_token(user)
    assert privacyidea.admin.token(serial).rollout_state == "clientwait"
    started = api("POST", f"/api/phones/{phone['id']}/oob", expect=202, json={"qr": qr_text})["privacyIDEA"]
    assert (started["kind"], started["serial"]) == ("ENROLMENT", serial)
    if started["state"] == "WAIT_FOR_INPUT":
        assert started["origin"] == privacyidea.url
        done = api("POST", f"/api/phones/{phone['id']}/privacyidea/answer", json={"accept": True})["privacyIDEA"]
    else:
        done = started
    assert (done["state"], done.get("outcome")) == ("DONE", "ENROLLED"), done
    return serial


def polled_challenge(phone, serial):
    shown = api("POST", f"/api/phones/{phone['id']}/privacyidea/tokens/{serial}/poll", json={})["privacyIDEA"]
    assert shown and (shown["kind"], shown["state"], shown["serial"]) == ("CHALLENGE", "WAIT_FOR_INPUT", serial), shown
    return shown


def answer(phone, **body):
    return api("POST", f"/api/phones/{phone['id']}/privacyidea/answer", json=body)["privacyIDEA"]


def test_the_phone_enrols_a_push_token_that_privacyidea_then_holds_active(privacyidea):
    phone = new_phone("privacyIDEA phone")
    user = privacyidea.new_user("push")
    serial = enrolled_token(privacyidea, phone, user)
    token = privacyidea.admin.token(serial)
    assert (token.rollout_state, token.active, token.username) == ("enrolled", True, user)
    listed = api("GET", f"/api/phones/{phone['id']}/privacyidea/tokens")["tokens"]
    assert [t["serial"] for t in listed] == [serial]
    assert "tokenKey" not in listed[0] and "serverKey" not in listed[0]


def test_a_login_succeeds_after_the_phone_accepts_and_fails_after_it_declines(privacyidea):
    phone = new_phone("privacyIDEA login phone")
    user = privacyidea.new_user("login")
    serial = enrolled_token(privacyidea, phone, user)

    started = privacyidea.admin.validate_check(user, "")
    assert (started.accepted, started.authentication) == (False, "CHALLENGE"), started
    polled_challenge(phone, serial)
    assert answer(phone, accept=True)["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted

    declined = privacyidea.admin.validate_check(user, "")
    polled_challenge(phone, serial)
    assert answer(phone, accept=False)["outcome"] == "DECLINED"
    assert not privacyidea.admin.validate_check(user, "", declined.transaction_id).accepted
