"""AuthPhone's phone as eduMFA's authenticator: eduMFA 2.9.5, a privacyIDEA fork that speaks
privacyIDEA's push protocol under its own names (privacyidea_server.py starts it as it starts
privacyIDEA), enrols its own `edupush` token from eduMFA's QR text (`edumfa-push://edumfa/…`),
and decides logins from the phone's signed answers, polled or pushed by eduMFA's own Firebase
provider through AuthPhone's FCM endpoint. eduMFA's answers are the proof: the token's rollout
state, `/validate/check`. eduMFA's challenges carry no capabilities, so the phone answers them as
privacyIDEA's older app does (a decline without a reason): the answers go with explicit bodies,
since the document's examples show privacyIDEA 3.14's challenges.

Environment: as client.py and privacyidea_server.py say (EDUMFA_VENV: eduMFA's own venv).
"""

from client import enrolled_token, new_phone
from privacyidea_phone import answer_named, inbox_of, polled_challenge, pushed_challenge, tokens_of

QUESTION, TITLE = "Do you want to confirm the login?", "eduMFA"  # eduMFA's defaults


def test_the_phone_enrols_an_edupush_token_from_edumfas_own_code_and_edumfa_holds_it_enrolled(api, edumfa):
    phone = new_phone(api, "eduMFA phone")
    user = edumfa.new_user("edu")
    serial, qr_text = edumfa.admin.init_push_token(user)
    assert qr_text.startswith(f"edumfa-push://edumfa/{serial}?") and serial.startswith("EDUP"), qr_text
    assert "poll_only" not in qr_text  # eduMFA's code never says so
    assert edumfa.admin.token(serial).rollout_state == "clientwait"
    path = {"id": phone["id"]}
    started = api.call("startOutOfBand", path=path, body={"qr": qr_text}, expect=202)[1]["privacyIDEA"]
    assert (started["kind"], started["state"], started["serial"]) == ("ENROLMENT", "WAIT_FOR_INPUT", serial), started
    assert (started["server"], started["issuer"], started["origin"]) == ("eduMFA", "eduMFA", edumfa.url), started
    done = api.call("answerPrivacyIDEA", path=path, body={"accept": True}, expect=200)[1]["privacyIDEA"]
    assert (done["state"], done.get("outcome"), done["server"]) == ("DONE", "ENROLLED", "eduMFA"), done

    token = edumfa.admin.token(serial)
    assert (token.tokentype, token.rollout_state, token.active, token.username) == ("edupush", "enrolled", True, user)
    assert token.info["firebase_token"] == phone["fcmToken"]
    assert [(t["serial"], t["issuer"]) for t in tokens_of(api, phone)] == [(serial, "eduMFA")]
    # the phone registered at eduMFA's own endpoint, which its code named
    hops = api.call("getPhoneTimeline", path=path, expect=200)[1]["hops"]
    registration = next(hop for hop in hops if hop["url"] == edumfa.url + "/ttype/edupush" and hop["method"] == "POST")
    assert registration["status"] == 200 and "serial=" + serial in registration["request"], registration


def test_an_edumfa_login_is_accepted_after_the_phone_accepts_and_rejected_after_it_declines(api, edumfa):
    phone = new_phone(api, "eduMFA login phone")
    user = edumfa.new_user("edulogin")
    serial = enrolled_token(api, edumfa, phone, user)
    nothing = api.call("pollPushToken", path={"id": phone["id"], "serial": serial}, body={}, expect=200)[1]
    assert nothing["privacyIDEA"] is None

    started = edumfa.admin.validate_check(user, "")
    assert (started.accepted, started.authentication, started.detail["type"]) == (False, "CHALLENGE", "edupush"), started
    shown = polled_challenge(api, phone, serial, None)
    assert (shown["question"], shown["title"], "declineReasons" in shown) == (QUESTION, TITLE, False), shown
    assert answer_named(api, phone, accept=True)["outcome"] == "ACCEPTED"
    assert edumfa.admin.poll_transaction(started.transaction_id) == "accept"
    accepted = edumfa.admin.validate_check(user, "", started.transaction_id)
    assert (accepted.accepted, accepted.authentication) == (True, "ACCEPT"), accepted

    declined = edumfa.admin.validate_check(user, "")
    polled_challenge(api, phone, serial, None)
    assert answer_named(api, phone, accept=False)["outcome"] == "DECLINED"
    assert edumfa.admin.poll_transaction(declined.transaction_id) == "declined"
    rejected = edumfa.admin.validate_check(user, "", declined.transaction_id)
    assert (rejected.accepted, rejected.authentication) == (False, "REJECT"), rejected


def test_a_login_pushed_by_edumfas_own_firebase_provider_through_authphone_is_accepted(api, edumfa):
    """eduMFA's Firebase provider, unchanged but for its send URL, fetches its access token from
    AuthPhone's token endpoint with the service account AuthPhone gave, and pushes the challenge."""
    phone = new_phone(api, "eduMFA pushed phone")
    user = edumfa.new_user("edupushed")
    with edumfa.firebase_push("authphone"):
        serial = enrolled_token(api, edumfa, phone, user)
        assert edumfa.admin.token(serial).info["edupush_firebase_configuration"] == "authphone-authphone"
        started = edumfa.admin.validate_check(user, "")
        assert started.authentication == "CHALLENGE", started
        shown = pushed_challenge(api, phone, serial)
        assert (shown["question"], shown["title"]) == (QUESTION, TITLE), shown
        assert answer_named(api, phone, accept=True)["outcome"] == "ACCEPTED"
        assert edumfa.admin.validate_check(user, "", started.transaction_id).authentication == "ACCEPT"
        assert inbox_of(api, phone) == [], "the push shown leaves the inbox"
