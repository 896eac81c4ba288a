"""AuthPhone's phone answering privacyIDEA's logins: a decline's reason, an unlock before an
accept (`push_force_app_pin`, and `push_app_force_unlock` naming the one factor), the presence
option the login page shows (`push_require_presence`), the code to type into the login page
(`push_code_to_phone`), and several open challenges each answered on its own. privacyIDEA 3.14
itself (privacyidea_server.py) decides from the phone's signed answers: `/validate/check` is the
proof.

Environment: as test_privacyidea_push.py says.
"""

import json

import pytest

from client import PIN, enrol_phone, enrolled_token, new_phone, uniq, wait_for
from document import FINISHED, OPS
from privacyidea_phone import answer, answer_named, inbox_of, polled_challenge, presence_answer, pushed_challenge


def test_a_decline_says_why_as_privacyidea_takes_it(api, privacyidea):
    """privacyIDEA 3.14 advertises decline reasons under its signature; the reason given reaches
    its log: a login the user did not start is `declined`, one they gave up `cancelled`."""
    phone = new_phone(api, "privacyIDEA decline reasons")
    user = privacyidea.new_user("reasons")
    serial = enrolled_token(api, privacyidea, phone, user)
    for example, status in [("declineNotMe", "declined"), ("declineCancelled", "cancelled")]:
        started = privacyidea.admin.validate_check(user, "")
        assert polled_challenge(api, phone, serial)["declineReasons"] == ["unknown_trigger", "cancelled"]
        declined = answer(api, phone, example)
        reason = OPS["answerPrivacyIDEA"].request_examples[example][0]["declineReason"]
        assert (declined["outcome"], declined["declineReason"]) == ("DECLINED", reason), declined
        assert privacyidea.admin.poll_transaction(started.transaction_id) == status
        assert not privacyidea.admin.validate_check(user, "", started.transaction_id).accepted

    # a reason with an accept is refused, and the challenge still waits
    started = privacyidea.admin.validate_check(user, "")
    polled_challenge(api, phone, serial)
    refused = api.call("answerPrivacyIDEA", "declineReasonWithAccept", path={"id": phone["id"]}, expect=400)[1]
    assert refused["error"]["code"] == "INVALID_FIELD"
    assert privacyidea.admin.poll_transaction(started.transaction_id) == "pending"
    assert answer(api, phone, "accept")["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
    FINISHED.add("privacyIDEA decline reasons")


def test_a_token_privacyidea_enrols_with_an_unlock_is_unlocked_before_an_accept(api, privacyidea):
    """privacyIDEA's `push_app_force_unlock=any` puts `app_force_unlock=any` into the enrolment
    code: the phone then takes either of its locks (a biometric here: the phone has no PIN) before
    it signs an accept. A missing or failed unlock sends nothing; privacyIDEA's login stays pending."""
    phone = new_phone(api, "privacyIDEA locked phone")
    user = privacyidea.new_user("locked")
    with privacyidea.admin.policy("force-unlock", "enrollment", {"push_app_force_unlock": "any"}, user=user):
        serial = enrolled_token(api, privacyidea, phone, user)
    started = privacyidea.admin.validate_check(user, "")
    assert polled_challenge(api, phone, serial, "lockedChallenge")["unlockWith"] == ["BIOMETRIC"]
    path = {"id": phone["id"]}
    for example in ("unlockRequired", "unlockNotRecognised"):
        refused = api.call("answerPrivacyIDEA", example, path=path, expect=400)[1]
        assert refused["error"]["code"] in ("UNLOCK_REQUIRED", "UNLOCK_FAILED"), refused
        assert privacyidea.admin.poll_transaction(started.transaction_id) == "pending"
    refused = api.call("answerPrivacyIDEA", "unlockWithoutAPin", path=path, expect=409)[1]
    assert refused["error"]["code"] == "UNLOCK_UNAVAILABLE"
    assert answer(api, phone, "acceptUnlocked")["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
    FINISHED.add("privacyIDEA unlock")


def test_with_presence_required_only_the_option_the_login_shows_logs_in(api, privacyidea):
    phone = new_phone(api, "privacyIDEA presence phone")
    user = privacyidea.new_user("presence")
    serial = enrolled_token(api, privacyidea, phone, user)
    with privacyidea.admin.policy("presence", "authentication", {"push_require_presence": True}, user=user):
        started = privacyidea.admin.validate_check(user, "")
        right = presence_answer(started)
        shown = polled_challenge(api, phone, serial, "presenceChallenge")
        assert right in shown["presenceOptions"] and len(shown["presenceOptions"]) >= 2, shown
        # an option privacyIDEA did not send is refused on the phone and changes nothing
        refused = api.call("answerPrivacyIDEA", "wrongPresence", path={"id": phone["id"]}, expect=400)[1]
        assert refused["error"]["code"] == "INVALID_FIELD"
        assert answer(api, phone, "acceptWithPresence", presence=right)["outcome"] == "ACCEPTED"
        assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted

        wrong_try = privacyidea.admin.validate_check(user, "")
        shown = polled_challenge(api, phone, serial, "presenceChallenge")
        wrong = next(option for option in shown["presenceOptions"] if option != presence_answer(wrong_try))
        # privacyIDEA takes the signed answer but not the option: the phone says it was not accepted
        assert answer(api, phone, "presenceRefused", presence=wrong)["error"]["code"] == "PRIVACYIDEA_REFUSED"
        assert not privacyidea.admin.validate_check(user, "", wrong_try.transaction_id).accepted
    FINISHED.add("privacyIDEA presence")


def test_a_second_pushed_login_goes_on_screen_and_each_is_answered_on_its_own(api, privacyidea):
    """Two logins at once (a user who tried again): the second push goes on screen and the first
    is listed with it; an answer names its challenge and settles that login only; privacyIDEA's own
    push of an answered challenge, delivered again, is refused."""
    phone = new_phone(api, "privacyIDEA busy phone")
    user = privacyidea.new_user("busy")
    path = {"id": phone["id"]}
    with privacyidea.firebase_push("authphone"):
        serial = enrolled_token(api, privacyidea, phone, user)
        first = privacyidea.admin.validate_check(user, "")
        shown = pushed_challenge(api, phone, serial)
        second = privacyidea.admin.validate_check(user, "")

        def both_open():
            request = api.call("getPrivacyIDEARequest", path=path, expect=200)[1]["privacyIDEA"]
            return request if request.get("waiting") else None
        newest = wait_for(both_open, "the second login on screen, the first listed with it")
        assert newest["nonce"] != shown["nonce"] and newest["state"] == "WAIT_FOR_INPUT", newest
        assert [r["nonce"] for r in newest["waiting"]] == [shown["nonce"]]

        # an answer naming no open challenge is refused and changes nothing
        refused = api.call("answerPrivacyIDEA", path=path, body={"accept": True, "nonce": "NOT" + shown["nonce"]}, expect=409)[1]
        assert refused["error"]["code"] == "NO_PRIVACYIDEA_REQUEST"

        # the older, answered by its nonce, settles the first login and leaves the second open
        done = answer_named(api, phone, accept=True, nonce=shown["nonce"])
        assert (done["nonce"], done["outcome"]) == (shown["nonce"], "ACCEPTED")
        assert [r["nonce"] for r in done["waiting"]] == [newest["nonce"]]
        assert privacyidea.admin.poll_transaction(first.transaction_id) == "accept"
        assert privacyidea.admin.poll_transaction(second.transaction_id) == "pending"
        declined = answer_named(api, phone, accept=False, nonce=newest["nonce"])
        assert (declined["outcome"], declined.get("waiting")) == ("DECLINED", None), declined
        assert privacyidea.admin.validate_check(user, "", first.transaction_id).accepted
        assert not privacyidea.admin.validate_check(user, "", second.transaction_id).accepted

        # the first challenge's data exactly as privacyIDEA sent it (the push service's log)
        log = api.call("listPushMessages", expect=200)[1]["messages"]
        sent = next(json.loads(entry["request"])["message"]["data"] for entry in log if shown["nonce"] in entry["request"])
        api.call("receivePush", path=path, body={"push": {"data": sent}}, expect=201)
        wait_for(lambda: inbox_of(api, phone) == [], "the replayed challenge gone from the inbox")
        assert api.call("getPrivacyIDEARequest", path=path, expect=200)[1]["privacyIDEA"] == declined, "a replay changes nothing"
    FINISHED.add("privacyIDEA inbox")


def test_of_two_open_challenges_the_poll_shows_the_newest_and_only_it_is_answered(api, privacyidea):
    """A user who logs in again within the challenges' two minutes leaves two open at privacyIDEA:
    the phone's poll shows the newest, the older listed with it, and accepting it logs in that
    login, never the one abandoned."""
    phone = new_phone(api, "privacyIDEA two challenges")
    user = privacyidea.new_user("twice")
    serial = enrolled_token(api, privacyidea, phone, user)
    abandoned = privacyidea.admin.validate_check(user, "")
    older = polled_challenge(api, phone, serial)
    current = privacyidea.admin.validate_check(user, "")
    newest = api.call("pollPushToken", path={"id": phone["id"], "serial": serial}, expect=200)[1]["privacyIDEA"]
    assert newest["nonce"] != older["nonce"] and newest["state"] == "WAIT_FOR_INPUT", newest
    assert [r["nonce"] for r in newest["waiting"]] == [older["nonce"]]
    assert answer_named(api, phone, accept=True)["nonce"] == newest["nonce"]
    assert privacyidea.admin.validate_check(user, "", current.transaction_id).accepted
    assert privacyidea.admin.poll_transaction(abandoned.transaction_id) == "pending"
    assert not privacyidea.admin.validate_check(user, "", abandoned.transaction_id).accepted


def test_with_code_to_phone_the_phone_shows_the_code_the_login_page_takes(api, privacyidea):
    phone = new_phone(api, "privacyIDEA code to phone")
    user = privacyidea.new_user("code-to-phone")
    serial = enrolled_token(api, privacyidea, phone, user)
    with privacyidea.admin.policy("code-to-phone", "authentication", {"push_code_to_phone": True}, user=user):
        started = privacyidea.admin.validate_check(user, "")
        polled_challenge(api, phone, serial)
        shown = answer_named(api, phone, accept=True)  # no example shows the code, which privacyIDEA makes anew
        assert shown["outcome"] == "ACCEPTED" and shown["displayCode"].isdigit() and shown.get("displayMessage"), shown
        # the phone's accept alone does not log in: the login page takes the code it shows
        assert not privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
        assert privacyidea.admin.validate_check(user, shown["displayCode"], started.transaction_id).accepted


@pytest.mark.parametrize("policy, allowed", [
    ({"push_app_force_unlock": "pin"}, "PIN"),
    ({"push_app_force_unlock": "biometric"}, "BIOMETRIC"),
    # privacyIDEA 3.14 writes `app_force_unlock=pin` beside `pin=True` for the older policy
    ({"push_force_app_pin": True}, "PIN"),
])
def test_app_force_unlock_names_the_one_factor_that_unlocks(api, privacyidea, policy, allowed):
    """privacyIDEA's `push_app_force_unlock=pin` (or `biometric`) puts that factor into the
    enrolment code: a phone with both a PIN and a biometric offers only it, and the other is
    refused before anything is sent."""
    phone = new_phone(api, f"privacyIDEA {allowed} unlock phone")
    enrol_phone(api, phone, uniq("unlock"))  # the phone's PIN
    user = privacyidea.new_user("forced")
    with privacyidea.admin.policy("force-unlock", "enrollment", policy, user=user):
        serial = enrolled_token(api, privacyidea, phone, user)
    started = privacyidea.admin.validate_check(user, "")
    assert polled_challenge(api, phone, serial, "lockedChallenge")["unlockWith"] == [allowed]
    unlocks = {"PIN": {"pin": PIN}, "BIOMETRIC": {"biometrics": "match"}}
    other = next(factor for factor in unlocks if factor != allowed)
    wrong = api.call("answerPrivacyIDEA", path={"id": phone["id"]}, body={"accept": True, **unlocks[other]}, expect=409)[1]
    assert wrong["error"]["code"] == "UNLOCK_UNAVAILABLE", wrong
    assert privacyidea.admin.poll_transaction(started.transaction_id) == "pending"
    assert answer_named(api, phone, accept=True, **unlocks[allowed])["outcome"] == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
