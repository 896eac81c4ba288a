"""AuthPhone's phone as privacyIDEA's authenticator: a push token enrolled from privacyIDEA's own
QR text, and logins that privacyIDEA 3.14 itself (privacyidea_server.py) decides from the phone's
signed answers. privacyIDEA's answers are the proof: the token's rollout state, `/validate/check`.

Environment: AUTHPHONE_URL (the running server; scripts/api-test.sh sets it) and privacyIDEA's
virtual environment (PRIVACYIDEA_VENV).
"""

import socket
import time
import urllib.parse

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


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def polled_challenge(phone, serial):
    shown = api("POST", f"/api/phones/{phone['id']}/privacyidea/tokens/{serial}/poll", json={})["privacyIDEA"]
    assert shown and (shown["kind"], shown["state"], shown["serial"]) == ("CHALLENGE", "WAIT_FOR_INPUT", serial), shown
    return shown


def pushed_challenge(phone, serial):
    """The challenge privacyIDEA's Firebase provider pushed through AuthPhone's FCM endpoint, once the
    phone shows it (the phone takes a privacyIDEA push as it arrives, as privacyIDEA's app does)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        shown = api("GET", f"/api/phones/{phone['id']}/privacyidea/request")["privacyIDEA"]
        if shown and shown["kind"] == "CHALLENGE" and shown["state"] == "WAIT_FOR_INPUT":
            assert shown["serial"] == serial, shown
            return shown
        time.sleep(0.05)
    inbox = api("GET", f"/api/phones/{phone['id']}/inbox")
    raise AssertionError(f"no pushed challenge reached the phone; its inbox: {inbox}")


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

    # the registration on the phone's timeline, its key and credential redacted, privacyIDEA's answer kept
    hops = api("GET", f"/api/phones/{phone['id']}/timeline")["hops"]
    registration = next(hop for hop in hops if hop["url"] == privacyidea.url + "/ttype/push" and hop["method"] == "POST")
    assert registration["status"] == 200 and "serial=" + serial in registration["request"], registration
    assert "pubkey=‹redacted›" in registration["request"] and "enrollment_credential=‹redacted›" in registration["request"]
    assert "public_key" in registration["response"] and "BEGIN" not in registration["response"]


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


def test_with_presence_required_only_the_option_the_login_shows_logs_in(privacyidea):
    phone = new_phone("privacyIDEA presence phone")
    user = privacyidea.new_user("presence")
    serial = enrolled_token(privacyidea, phone, user)
    with privacyidea.admin.policy("presence", "authentication", {"push_require_presence": True}, user=user):
        started = privacyidea.admin.validate_check(user, "")
        right = presence_answer(started)
        shown = polled_challenge(phone, serial)
        assert right in shown["presenceOptions"] and len(shown["presenceOptions"]) >= 2, shown
        # an option privacyIDEA did not send is refused on the phone and changes nothing
        refused = requests.post(f"{BASE_URL}/api/phones/{phone['id']}/privacyidea/answer", json={"accept": True, "presence": "?"},
                                timeout=TIMEOUT)
        assert (refused.status_code, refused.json()["error"]["code"]) == (400, "INVALID_FIELD")
        assert answer(phone, accept=True, presence=right)["outcome"] == "ACCEPTED"
        assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted

        wrong_try = privacyidea.admin.validate_check(user, "")
        shown = polled_challenge(phone, serial)
        wrong = next(option for option in shown["presenceOptions"] if option != presence_answer(wrong_try))
        # privacyIDEA takes the signed answer but not the option: the phone says it was not accepted
        assert answer(phone, accept=True, presence=wrong)["error"]["code"] == "PRIVACYIDEA_REFUSED"
        assert not privacyidea.admin.validate_check(user, "", wrong_try.transaction_id).accepted


def presence_answer(check):
    """The option privacyIDEA's login page shows the user (its reply's `presence_answer`)."""
    for challenge in [check.detail, *check.detail.get("multi_challenge", [])]:
        if challenge.get("presence_answer"):
            return challenge["presence_answer"]
    raise AssertionError(f"privacyIDEA's reply names no presence answer: {check.detail}")


def test_a_forged_challenge_is_refused_on_the_phone_and_shown_as_such(privacyidea):
    phone = new_phone("privacyIDEA forged phone")
    serial = enrolled_token(privacyidea, phone, privacyidea.new_user("forged"))
    forged = {"nonce": "FORGEDNONCEFORGEDNONCE", "question": "Log in to your bank?", "serial": serial, "title": "privacyIDEA",
              "sslverify": "0", "url": privacyidea.url + "/ttype/push", "signature": "A" * 816}
    pasted = api("POST", f"/api/phones/{phone['id']}/inbox", expect=201, json={"push": {"data": forged}})
    opened = requests.post(f"{BASE_URL}/api/phones/{phone['id']}/inbox/{pasted['id']}/open", json={}, timeout=TIMEOUT)
    assert (opened.status_code, opened.json()["error"]["code"]) == (400, "PUSH_CHALLENGE_FORGED")
    screen = api("GET", f"/api/phones/{phone['id']}/privacyidea/request")["privacyIDEA"]
    assert (screen["state"], screen["error"]["code"], screen["question"]) == ("ERROR", "PUSH_CHALLENGE_FORGED", "Log in to your bank?")
    # nothing to answer: the forged request cannot be accepted
    refused = requests.post(f"{BASE_URL}/api/phones/{phone['id']}/privacyidea/answer", json={"accept": True}, timeout=TIMEOUT)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "NO_PRIVACYIDEA_REQUEST")


@pytest.mark.parametrize("qr_text, code", [
    ("otpauth://pipush/X?url=http%3A//127.0.0.1%3A1/ttype/push&v=1&serial=PIPU1", "INVALID_PUSH_ENROLMENT"),
    ("pia://pipush/X?url=ftp%3A//h/ttype/push&v=1&serial=PIPU1&enrollment_credential=1", "INVALID_PUSH_ENROLMENT"),
    ("otpauth://pipush/X?url=http%3A//h/p&v=9&serial=PIPU1&enrollment_credential=1", "INVALID_PUSH_ENROLMENT"),
])
def test_bad_enrolment_codes_are_refused_and_change_nothing(qr_text, code):
    phone = new_phone("privacyIDEA bad codes")
    refused = requests.post(f"{BASE_URL}/api/phones/{phone['id']}/oob", json={"qr": qr_text}, timeout=TIMEOUT)
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, code)
    assert api("GET", f"/api/phones/{phone['id']}/privacyidea/request")["privacyIDEA"] is None
    assert api("GET", f"/api/phones/{phone['id']}/privacyidea/tokens")["tokens"] == []


def test_a_privacyidea_that_is_down_is_tried_again_and_no_token_is_kept(privacyidea):
    phone = new_phone("privacyIDEA down phone")
    _, qr_text = privacyidea.admin.init_push_token(privacyidea.new_user("down"))
    dead = free_port()
    # privacyIDEA's QR text quotes its URL with Python's quote()
    here, there = urllib.parse.quote(privacyidea.url), urllib.parse.quote(f"http://127.0.0.1:{dead}")
    assert here in qr_text
    started = api("POST", f"/api/phones/{phone['id']}/oob", expect=202, json={"qr": qr_text.replace(here, there)})
    assert started["privacyIDEA"]["state"] == "WAIT_FOR_INPUT"
    # the first attempt failed: the phone tries again under its retry policy, the wait on the screen
    # (the last attempt's ERROR is PhoneTests' PrivacyIDEARequestTests: here each attempt waits out the
    # HTTP client's connect deadline)
    retrying = answer(phone, accept=True)
    assert (retrying["state"], retrying["attempt"], retrying["maxAttempts"]) == ("PROCESSING", 1, 4), retrying
    assert 0 <= retrying["nextAttemptIn"] <= 1 and "error" not in retrying, retrying
    assert api("GET", f"/api/phones/{phone['id']}/privacyidea/tokens")["tokens"] == []


def test_challenges_for_unknown_tokens_and_answers_without_a_request_are_refused(privacyidea):
    phone = new_phone("privacyIDEA unknown serial")
    polled = requests.post(f"{BASE_URL}/api/phones/{phone['id']}/privacyidea/tokens/PIPU404/poll", json={}, timeout=TIMEOUT)
    assert (polled.status_code, polled.json()["error"]["code"]) == (404, "UNKNOWN_SERIAL")
    stranger = {"nonce": "N", "question": "Q", "serial": "PIPU404", "title": "T", "sslverify": "1", "url": "http://h/ttype/push",
                "signature": "AAAAAAAA"}
    pasted = api("POST", f"/api/phones/{phone['id']}/inbox", expect=201, json={"push": {"data": stranger}})
    opened = requests.post(f"{BASE_URL}/api/phones/{phone['id']}/inbox/{pasted['id']}/open", json={}, timeout=TIMEOUT)
    assert (opened.status_code, opened.json()["error"]["code"]) == (404, "UNKNOWN_SERIAL")


def test_a_new_fcm_token_reaches_privacyidea_signed_by_the_token(privacyidea):
    phone = new_phone("privacyIDEA rotating phone")
    serial = enrolled_token(privacyidea, phone, privacyidea.new_user("rotate"))
    assert privacyidea.admin.token(serial).info["firebase_token"] == phone["fcmToken"]
    rotated = api("POST", f"/api/phones/{phone['id']}/fcm-token/rotate", json={})
    new = rotated["deviceInformation"]["fcmToken"]
    assert new != phone["fcmToken"] and rotated["progress"]["state"] == "succeeded"
    assert privacyidea.admin.token(serial).info["firebase_token"] == new


def test_a_login_pushed_by_privacyideas_own_firebase_provider_through_authphone(privacyidea):
    """privacyIDEA's Firebase provider, unchanged but for its send URL, fetches its access token from
    AuthPhone's token endpoint with the service account AuthPhone gave, and pushes the challenge."""
    phone = new_phone("privacyIDEA pushed phone")
    user = privacyidea.new_user("pushed")
    with privacyidea.firebase_push("authphone"):
        serial = enrolled_token(privacyidea, phone, user)
        assert privacyidea.admin.token(serial).info["firebase_token"] == phone["fcmToken"]
        started = privacyidea.admin.validate_check(user, "")
        assert started.authentication == "CHALLENGE", started
        shown = pushed_challenge(phone, serial)
        assert shown["question"] and shown["title"]
        assert answer(phone, accept=True)["outcome"] == "ACCEPTED"
        assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted


def test_a_rolled_over_token_is_enrolled_again_with_a_new_key_and_still_logs_in(privacyidea):
    """privacyIDEA's rollover: the same serial enrolled again. The phone (its server accepted
    before) registers at once with a new key, and only the new one answers."""
    phone = new_phone("privacyIDEA rollover phone")
    user = privacyidea.new_user("rollover")
    serial = enrolled_token(privacyidea, phone, user)
    _, detail = privacyidea.admin.call("POST", "/token/init", json={"type": "push", "genkey": 1, "user": user, "serial": serial,
                                                                     "rollover": 1})
    again = api("POST", f"/api/phones/{phone['id']}/oob", expect=202, json={"qr": detail["pushurl"]["value"]})["privacyIDEA"]
    assert (again["state"], again.get("outcome")) == ("DONE", "ENROLLED"), again
    assert [t["serial"] for t in api("GET", f"/api/phones/{phone['id']}/privacyidea/tokens")["tokens"]] == [serial]
    started = privacyidea.admin.validate_check(user, "")
    polled_challenge(phone, serial)
    assert answer(phone, accept=True)["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
