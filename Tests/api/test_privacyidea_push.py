"""AuthPhone's phone as privacyIDEA's authenticator: a push token enrolled from privacyIDEA's own
QR text, and logins that privacyIDEA 3.14 itself (privacyidea_server.py) decides from the phone's
signed answers. privacyIDEA's answers are the proof: the token's rollout state, `/validate/check`.
Every call goes through the document's named examples where one fits (client.py checks each).

Environment: AUTHPHONE_URL (the running server; scripts/api-test.sh sets it) and privacyIDEA's
virtual environment (PRIVACYIDEA_VENV).
"""

import itertools
import json
import urllib.parse

import pytest

from client import NO_PHONE, enrolled_token, new_phone, screen_of, wait_for
from document import FINISHED, OPS
from privacyidea_phone import answer, inbox_of, polled_challenge, presence_answer, pushed_challenge, tokens_of
from servers import free_port


def test_the_phone_enrols_a_push_token_that_privacyidea_then_holds_active(api, privacyidea):
    phone = new_phone(api, "privacyIDEA phone")
    user = privacyidea.new_user("push")
    screen = screen_of(api, phone)
    try:
        serial = enrolled_token(api, privacyidea, phone, user)
        # the screen was told as the request went: waiting for the user, registering, enrolled
        done = screen.until(lambda m: m["type"] == "privacyIDEA" and m["privacyIDEA"]["state"] == "DONE", "the enrolled token")
        states = [m["privacyIDEA"]["state"] for m in screen.seen if m["type"] == "privacyIDEA"]
        assert [state for state, _ in itertools.groupby(states)] == ["WAIT_FOR_INPUT", "PROCESSING", "DONE"], states
        assert done["privacyIDEA"]["outcome"] == "ENROLLED", done
    finally:
        screen.close()
    token = privacyidea.admin.token(serial)
    assert (token.rollout_state, token.active, token.username) == ("enrolled", True, user)
    listed = tokens_of(api, phone)
    assert [t["serial"] for t in listed] == [serial]
    assert "tokenKey" not in listed[0] and "serverKey" not in listed[0]

    # the registration on the phone's timeline, its key and credential redacted, privacyIDEA's answer kept
    hops = api.call("getPhoneTimeline", path={"id": phone["id"]}, expect=200)[1]["hops"]
    registration = next(hop for hop in hops if hop["url"] == privacyidea.url + "/ttype/push" and hop["method"] == "POST")
    assert registration["status"] == 200 and "serial=" + serial in registration["request"], registration
    assert "pubkey=‹redacted›" in registration["request"] and "enrollment_credential=‹redacted›" in registration["request"]
    assert "public_key" in registration["response"] and "BEGIN" not in registration["response"]
    FINISHED.add("privacyIDEA enrolment")


def test_privacyideas_pia_scheme_enrols_the_same_token(api, privacyidea):
    """`push_use_pia_scheme` makes the enrolment code `pia://pipush/…`, which opens privacyIDEA's
    app on a real phone: the phone enrols from it as from `otpauth://`, and the token logs in."""
    phone = new_phone(api, "privacyIDEA pia scheme")
    user = privacyidea.new_user("pia")
    path = {"id": phone["id"]}
    with privacyidea.admin.policy("authphone-pia-scheme", "enrollment", {"push_use_pia_scheme": True}, user=user):
        serial, qr_text = privacyidea.admin.init_push_token(user)
    assert qr_text.startswith(f"pia://pipush/{serial}?"), qr_text
    api.call("startOutOfBand", path=path, body={"qr": qr_text}, expect=202)
    enrolled = api.call("answerPrivacyIDEA", "acceptServer", path=path, expect=200)[1]["privacyIDEA"]
    assert (enrolled["serial"], enrolled["outcome"]) == (serial, "ENROLLED"), enrolled
    assert privacyidea.admin.token(serial).rollout_state == "enrolled"
    login = privacyidea.admin.validate_check(user, "")
    polled_challenge(api, phone, serial)
    assert answer(api, phone, "accept")["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", login.transaction_id).accepted


def test_a_second_token_registers_at_once_and_a_removed_token_is_gone_from_the_phone(api, privacyidea):
    """The server accepted with the first token, the second registers without asking; a token
    privacyIDEA forgot is refused at its poll; one removed on the phone is no longer there."""
    phone = new_phone(api, "privacyIDEA two tokens")
    user = privacyidea.new_user("two")
    first = enrolled_token(api, privacyidea, phone, user)
    second = enrolled_token(api, privacyidea, phone, user, server_accepted=True)
    assert privacyidea.admin.token(second).rollout_state == "enrolled"
    assert [t["serial"] for t in tokens_of(api, phone, "twoTokens")] == [first, second]

    privacyidea.admin.delete_token(second)
    path = {"id": phone["id"], "serial": second}
    refused = api.call("pollPushToken", "tokenDeletedAtPrivacyIDEA", path=path, expect=502)[1]
    assert "Could not verify signature" in refused["error"]["message"], refused
    api.call("deletePushToken", path=path, expect=204)
    assert [t["serial"] for t in tokens_of(api, phone)] == [first]
    api.call("deletePushToken", "unknownSerial", path=path, expect=404)
    FINISHED.add("privacyIDEA tokens")


def test_a_login_succeeds_after_the_phone_accepts_and_fails_after_it_declines(api, privacyidea):
    phone = new_phone(api, "privacyIDEA login phone")
    user = privacyidea.new_user("login")
    serial = enrolled_token(api, privacyidea, phone, user)
    nothing = api.call("pollPushToken", "nothingOpen", path={"id": phone["id"], "serial": serial}, expect=200)[1]
    assert nothing["privacyIDEA"] is None

    started = privacyidea.admin.validate_check(user, "")
    assert (started.accepted, started.authentication) == (False, "CHALLENGE"), started
    polled_challenge(api, phone, serial)
    assert answer(api, phone, "accept")["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted

    declined = privacyidea.admin.validate_check(user, "")
    polled_challenge(api, phone, serial)
    assert answer(api, phone, "decline")["outcome"] == "DECLINED"
    assert not privacyidea.admin.validate_check(user, "", declined.transaction_id).accepted
    FINISHED.add("privacyIDEA login")


def test_a_forged_challenge_is_refused_on_the_phone_and_shown_as_such(api, privacyidea):
    phone = new_phone(api, "privacyIDEA forged phone")
    serial = enrolled_token(api, privacyidea, phone, privacyidea.new_user("forged"))
    path = {"id": phone["id"]}
    forged = {"serial": serial, "url": privacyidea.url + "/ttype/push"}  # privacyIDEA never signed this
    # the phone opens it as it arrives, refuses it, and drops it from the inbox as the app does
    api.call("receivePush", "forgedChallenge", path=path, merge={"push": {"data": forged}}, expect=201)
    wait_for(lambda: inbox_of(api, phone) == [], "the refused challenge gone from the inbox")
    screen = api.call("getPrivacyIDEARequest", "forgedChallenge", path=path, expect=200)[1]["privacyIDEA"]
    assert (screen["state"], screen["error"]["code"], screen["question"]) == ("ERROR", "PUSH_CHALLENGE_FORGED", "Log in to your bank?")
    # nothing to answer: the forged request cannot be accepted
    refused = api.call("answerPrivacyIDEA", "nothingWaiting", path=path, expect=409)[1]
    assert refused["error"]["code"] == "NO_PRIVACYIDEA_REQUEST"
    FINISHED.add("privacyIDEA forged")


@pytest.mark.parametrize("example, qr_text", [
    ("privacyIDEAPushWithoutCredential", OPS["startOutOfBand"].request_examples["privacyIDEAPushWithoutCredential"][0]["qr"]),
    (None, "pia://pipush/X?url=ftp%3A//h/ttype/push&v=1&serial=PIPU1&enrollment_credential=1"),
    (None, "otpauth://pipush/X?url=http%3A//h/p&v=9&serial=PIPU1&enrollment_credential=1"),
    # a right-to-left override in the issuer or the label, which the otpauth importer refuses too
    (None, "otpauth://pipush/PIPU1?url=http%3A//h/ttype/push&v=1&serial=PIPU1&enrollment_credential=1&issuer=%E2%80%AEAnk"),
    (None, "otpauth://pipush/alice%E2%80%AEtxt.exe?url=http%3A//h/ttype/push&v=1&serial=PIPU1&enrollment_credential=1"),
])
def test_bad_enrolment_codes_are_refused_and_change_nothing(api, example, qr_text):
    phone = new_phone(api, "privacyIDEA bad codes")
    path = {"id": phone["id"]}
    refused = api.call("startOutOfBand", example, path=path, merge={"qr": qr_text}, expect=400)[1]
    assert refused["error"]["code"] == "INVALID_PUSH_ENROLMENT"
    assert api.call("getPrivacyIDEARequest", "nothingShown", path=path, expect=200)[1]["privacyIDEA"] is None
    assert tokens_of(api, phone, "noTokens") == []
    FINISHED.add("privacyIDEA bad codes")


def test_a_privacyidea_that_is_down_is_tried_again_and_no_token_is_kept(api, privacyidea):
    phone = new_phone(api, "privacyIDEA down phone")
    _, qr_text = privacyidea.admin.init_push_token(privacyidea.new_user("down"))
    dead = free_port()
    # privacyIDEA's QR text quotes its URL with Python's quote()
    here, there = urllib.parse.quote(privacyidea.url), urllib.parse.quote(f"http://127.0.0.1:{dead}")
    assert here in qr_text
    started = api.call("startOutOfBand", "privacyIDEAPush", path={"id": phone["id"]}, body={"qr": qr_text.replace(here, there)},
                       expect=202)[1]
    assert started["privacyIDEA"]["state"] == "WAIT_FOR_INPUT"
    # the first attempt failed: the phone tries again under its retry policy, the wait and why on the screen
    refusal = f"the server could not be reached: the connection to 127.0.0.1:{dead} was refused (nothing listens there)"
    retrying = answer(api, phone, "privacyIDEADown")
    assert (retrying["state"], retrying["attempt"], retrying["maxAttempts"]) == ("PROCESSING", 1, 4), retrying
    assert 0 <= retrying["nextAttemptIn"] <= 1 and "error" not in retrying, retrying
    assert retrying["attemptFailure"] == refusal, retrying
    # a refused connection is not tried again until the HTTP client's deadline: the four attempts end
    # in the retry policy's waits (1 + 2 + 4 s, with jitter), not in four 10 s deadlines
    path = {"id": phone["id"]}

    def ended():
        request = api.call("getPrivacyIDEARequest", path=path, expect=200)[1]["privacyIDEA"]
        return request if request["state"] == "ERROR" else None
    failed = wait_for(ended, "the failed registration", within=15)
    assert failed["error"]["message"] == f"privacyIDEA could not be reached in 4 attempts: {refusal}", failed
    # each attempt on the timeline, to privacyIDEA, numbered, its error in words
    hops = [hop for hop in api.call("getPhoneTimeline", path=path, expect=200)[1]["hops"] if hop["to"] == "privacyIDEA"]
    said = f"the connection to 127.0.0.1:{dead} was refused (nothing listens there)"
    assert [(hop["attempt"], hop["error"], "status" in hop) for hop in hops] == [(n, said, False) for n in (1, 2, 3, 4)], hops
    assert tokens_of(api, phone) == []
    FINISHED.add("privacyIDEA down")


def test_challenges_for_unknown_tokens_and_answers_without_a_request_are_refused(api, privacyidea):
    phone = new_phone(api, "privacyIDEA unknown serial")
    path = {"id": phone["id"]}
    polled = api.call("pollPushToken", "unknownSerial", path={**path, "serial": "PIPU404"}, expect=404)[1]
    assert polled["error"]["code"] == "UNKNOWN_SERIAL"
    api.call("receivePush", "unknownSerialChallenge", path=path, expect=201)
    wait_for(lambda: inbox_of(api, phone) == [], "the challenge for a token the phone does not hold gone from the inbox")
    assert api.call("getPrivacyIDEARequest", path=path, expect=200)[1]["privacyIDEA"] is None
    for op in ("listPushTokens", "getPrivacyIDEARequest"):
        api.call(op, "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    for op, body in (("pollPushToken", {}), ("deletePushToken", None), ("answerPrivacyIDEA", {"accept": True})):
        refused = api.call(op, path={"id": NO_PHONE, "serial": "PIPU404"}, body=body, expect=404)[1]
        assert refused["error"]["code"] == "PHONE_NOT_FOUND", (op, refused)
    FINISHED.add("privacyIDEA unknown")


def test_a_new_fcm_token_reaches_privacyidea_signed_by_the_token(api, privacyidea):
    phone = new_phone(api, "privacyIDEA rotating phone")
    serial = enrolled_token(api, privacyidea, phone, privacyidea.new_user("rotate"))
    assert privacyidea.admin.token(serial).info["firebase_token"] == phone["fcmToken"]
    rotated = api.call("rotateFcmToken", path={"id": phone["id"]}, body={}, expect=200)[1]
    new = rotated["deviceInformation"]["fcmToken"]
    assert new != phone["fcmToken"] and rotated["progress"]["state"] == "succeeded"
    assert privacyidea.admin.token(serial).info["firebase_token"] == new


def test_a_login_pushed_by_privacyideas_own_firebase_provider_through_authphone(api, privacyidea):
    """privacyIDEA's Firebase provider, unchanged but for its send URL, fetches its access token from
    AuthPhone's token endpoint with the service account AuthPhone gave, and pushes the challenge."""
    phone = new_phone(api, "privacyIDEA pushed phone")
    user = privacyidea.new_user("pushed")
    with privacyidea.firebase_push("authphone"):
        serial = enrolled_token(api, privacyidea, phone, user)
        assert privacyidea.admin.token(serial).info["firebase_token"] == phone["fcmToken"]
        started = privacyidea.admin.validate_check(user, "")
        assert started.authentication == "CHALLENGE", started
        shown = pushed_challenge(api, phone, serial)
        assert shown["question"] and shown["title"]
        assert answer(api, phone, "accept")["outcome"] == "ACCEPTED"
        assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted

        # a pushed login the phone declines fails
        declined = privacyidea.admin.validate_check(user, "")
        pushed_challenge(api, phone, serial)
        assert answer(api, phone, "decline")["outcome"] == "DECLINED"
        assert not privacyidea.admin.validate_check(user, "", declined.transaction_id).accepted
        assert inbox_of(api, phone) == [], "the pushes shown leave the inbox, accepted or declined"

        # with presence required, the pushed options come signed and the one the login shows logs in
        with privacyidea.admin.policy("pushed-presence", "authentication", {"push_require_presence": True}, user=user):
            present = privacyidea.admin.validate_check(user, "")
            shown = pushed_challenge(api, phone, serial)
            assert presence_answer(present) in shown["presenceOptions"], shown
            assert answer(api, phone, "acceptWithPresence", presence=presence_answer(present))["outcome"] == "ACCEPTED"
            assert privacyidea.admin.validate_check(user, "", present.transaction_id).accepted


def test_a_rolled_over_token_is_enrolled_again_with_a_new_key_and_still_logs_in(api, privacyidea):
    """privacyIDEA's rollover: the same serial enrolled again. The phone (its server accepted
    before) registers at once with a new key, and only the new one answers."""
    phone = new_phone(api, "privacyIDEA rollover phone")
    user = privacyidea.new_user("rollover")
    serial = enrolled_token(api, privacyidea, phone, user)
    _, detail = privacyidea.admin.call("POST", "/token/init", json={"type": "push", "genkey": 1, "user": user, "serial": serial,
                                                                     "rollover": 1})
    again = api.call("startOutOfBand", "privacyIDEAPushKnownServer", path={"id": phone["id"]},
                     body={"qr": detail["pushurl"]["value"]}, expect=202)[1]["privacyIDEA"]
    assert (again["state"], again.get("outcome")) == ("DONE", "ENROLLED"), again
    assert [t["serial"] for t in tokens_of(api, phone)] == [serial]
    started = privacyidea.admin.validate_check(user, "")
    polled_challenge(api, phone, serial)
    assert answer(api, phone, "accept")["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted


def test_a_registration_that_fails_leaves_the_server_untrusted(api, privacyidea):
    """The user accepts a server whose registration then fails (here AuthPhone itself, which is no
    privacyIDEA): the phone trusts it no more than before, so the next code from it asks again."""
    phone = new_phone(api, "privacyIDEA untrusted")
    path = {"id": phone["id"]}
    here, there = urllib.parse.quote(privacyidea.url), urllib.parse.quote(api.base)
    for attempt in ("failing", "asked again"):
        _, qr_text = privacyidea.admin.init_push_token(privacyidea.new_user("untrusted"))
        started = api.call("startOutOfBand", path=path, body={"qr": qr_text.replace(here, there)}, expect=202)[1]["privacyIDEA"]
        assert (started["state"], started["origin"]) == ("WAIT_FOR_INPUT", api.base), (attempt, started)
        if attempt == "failing":
            api.call("answerPrivacyIDEA", path=path, body={"accept": True}, expect=200)

            def ended():
                shown = api.call("getPrivacyIDEARequest", path=path, expect=200)[1]["privacyIDEA"]
                return shown if shown["state"] in ("DONE", "ERROR") else None
            assert wait_for(ended, "the failed registration", within=60)["state"] == "ERROR"
    declined = api.call("answerPrivacyIDEA", path=path, body={"accept": False}, expect=200)[1]["privacyIDEA"]
    assert declined["outcome"] == "CANCELLED"
    assert tokens_of(api, phone) == []

