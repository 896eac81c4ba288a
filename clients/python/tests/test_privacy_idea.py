"""The phone's privacyIDEA screen through the client, against a real AuthPhone (privacyIDEA itself
answers in Tests/browser/test_privacyidea_web_login.py): nothing on screen, an enrolment from a
server the phone has not seen waiting for the user, cancelled; refusals as exceptions."""

import pytest

from authphone import BadRequestError, ConflictError, NotFoundError, Phone

# privacyIDEA's enrolment code for a server nobody runs: cancelling it never reaches the server
ENROLMENT = ("otpauth://pipush/PIPU0001?url=http%3A//127.0.0.1%3A9/ttype/push&ttl=10&issuer=privacyIDEA"
             "&enrollment_credential=c&v=1&serial=PIPU0001&sslverify=1")


def test_nothing_on_screen_is_none_and_an_answer_to_nothing_is_refused(phone: Phone) -> None:
    assert phone.privacy_idea_request() is None
    with pytest.raises(ConflictError) as refused:
        phone.answer_privacy_idea(True)
    assert refused.value.code == "NO_PRIVACYIDEA_REQUEST"


def test_an_enrolment_waits_for_the_user_and_is_cancelled(phone: Phone) -> None:
    started = phone.scan(ENROLMENT).privacy_idea
    assert started is not None and (started["kind"], started["state"]) == ("ENROLMENT", "WAIT_FOR_INPUT")
    assert phone.privacy_idea_request() == started
    with pytest.raises(BadRequestError) as refused:
        phone.answer_privacy_idea(True, decline_reason="cancelled")
    assert refused.value.code == "INVALID_FIELD"
    cancelled = phone.answer_privacy_idea(False)
    assert (cancelled["state"], cancelled["outcome"]) == ("DONE", "CANCELLED")


def test_a_new_phone_holds_nothing_of_privacy_idea_and_unknown_serials_are_refused(phone: Phone) -> None:
    assert (phone.privacy_idea_tokens(), phone.containers(), phone.otp_accounts()) == ([], [], [])
    assert phone.display_code() is None
    with pytest.raises(NotFoundError) as unknown:
        phone.poll_privacy_idea("PIPU404")
    assert unknown.value.code == "UNKNOWN_SERIAL"
    with pytest.raises(NotFoundError) as unknown:
        phone.sync_container("SMPH404")
    assert unknown.value.code == "UNKNOWN_CONTAINER"
