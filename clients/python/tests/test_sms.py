"""Texts through the client: a phone's number, texts sent through the SMS gateway's generic door
listed on the phone and in the gateway's log, the waits for a text and its code (only texts
that come after the call, unless told otherwise), their time-outs, and phones made with a number."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator

import httpx
import pytest

from authphone import (AuthPhone, AuthPhoneError, BadRequestError, ConflictError, Phone, TextMessage,
                       WaitTimeout)

E164 = re.compile(r"\+[1-9]\d{7,14}")


@pytest.fixture
def delayed_text(authphone: AuthPhone) -> Iterator[None]:
    """The next text the gateway takes reaches its phone 1 s later (a fault): so a wait begun
    after it was sent sees it come."""
    fault = {"target": "sms", "kind": "delayText", "delaySeconds": 1, "count": 1}
    httpx.post(f"{authphone.url}/api/faults", json=fault).raise_for_status()
    yield
    httpx.delete(f"{authphone.url}/api/faults")


def new_number() -> str:
    """A number no phone of the server's own numbering (+447700900000, …) gets."""
    return f"+1555{secrets.randbelow(10**7):07d}"


def test_a_phone_has_a_number(authphone: AuthPhone, phone: Phone) -> None:
    assert E164.fullmatch(phone.number)
    assert authphone.phone(phone.id).number == phone.number
    assert phone.number in [p.number for p in authphone.phones()]
    assert phone.messages.list() == []


def test_a_text_sent_through_the_gateway_is_listed_and_its_code_waited_for(
        authphone: AuthPhone, phone: Phone, delayed_text: None) -> None:
    sent = authphone.sms.send(phone, "Your code is 482913. Do not share it.", sender="Bank")
    assert (sent["status"], sent["to"]) == ("delayed", phone.number)
    assert phone.messages.wait_for(timeout=10) == "482913"
    [text] = phone.messages.list()
    assert isinstance(text, TextMessage)
    assert (text.sender, text.text, text.code) == ("Bank", "Your code is 482913. Do not share it.", "482913")
    [logged] = authphone.sms.log(to=phone)
    assert (logged["id"], logged["outcome"], logged["phoneId"]) == (sent["id"], "delivered", phone.id)


def test_a_pattern_with_a_group_picks_the_code(authphone: AuthPhone, phone: Phone) -> None:
    before = phone.messages.list()
    authphone.sms.send(phone.number, "Hello, no code here")
    authphone.sms.send(phone.number, "Your Acme PIN: AB-77 (valid 5 min)")
    assert phone.messages.wait_for(r"PIN: ([A-Z]{2}-\d+)", seen=before, timeout=5) == "AB-77"
    with pytest.raises(AuthPhoneError) as no_code:
        phone.messages.wait_for("Hello", seen=before, timeout=5)
    assert no_code.value.code == "NO_CODE" and "Hello, no code here" in no_code.value.message
    assert phone.messages.wait_for_text("Hello", seen=(), timeout=5).sender == "AuthPhone"


def test_a_text_from_before_the_call_is_not_returned(authphone: AuthPhone, phone: Phone) -> None:
    before = phone.messages.list()
    authphone.sms.send(phone, "Old code 111111")
    with pytest.raises(WaitTimeout):
        phone.messages.wait_for(timeout=1)
    assert phone.messages.wait_for(seen=before, timeout=5) == "111111"  # counted when the caller says so
    assert phone.messages.wait_for(seen=(), timeout=5) == "111111"


def test_the_newest_of_the_texts_from_before_is_not_preferred(authphone: AuthPhone, phone: Phone) -> None:
    """Texts that came before the call and count: the oldest that matches comes first, as they came."""
    authphone.sms.send(phone, "first 222222")
    authphone.sms.send(phone, "second 333333")
    assert phone.messages.wait_for(seen=(), timeout=5) == "222222"
    assert [t.text for t in phone.messages.list()] == ["second 333333", "first 222222"]  # newest first


def test_a_wait_times_out_naming_the_number_and_the_pattern(phone: Phone) -> None:
    began = time.monotonic()
    with pytest.raises(WaitTimeout) as timed_out:
        phone.messages.wait_for(r"code (\d+)", timeout=1)
    assert 1 <= time.monotonic() - began < 5
    assert timed_out.value.code == "TIMEOUT" and isinstance(timed_out.value, TimeoutError)
    assert f"waited 1 s for a text to {phone.name} ({phone.number}) matching /code (\\d+)/" in timed_out.value.message


def test_a_text_the_pattern_does_not_find_is_passed_over(authphone: AuthPhone, phone: Phone,
                                                         delayed_text: None) -> None:
    authphone.sms.send(phone, "Your parcel arrives today")
    with pytest.raises(WaitTimeout) as timed_out:
        phone.messages.wait_for(r"code (\d+)", timeout=3)
    assert "the last event was sms" in timed_out.value.message and "parcel" in timed_out.value.message


def test_a_phone_made_with_a_number_gets_its_texts(authphone: AuthPhone) -> None:
    number = new_number()
    made = authphone.new_phone("Numbered phone", number=number)
    try:
        assert made.number == number and authphone.phone(made.id).number == number
        with pytest.raises(ConflictError) as taken:
            authphone.new_phone("Second with that number", number=number)
        assert taken.value.code == "NUMBER_TAKEN"
        authphone.sms.send(number, "Code 5150")
        assert [t.code for t in made.messages.list()] == ["5150"]
    finally:
        made.delete()


def test_a_number_not_in_e164_form_is_refused(authphone: AuthPhone) -> None:
    before = len(authphone.phones())
    with pytest.raises(BadRequestError) as refused:
        authphone.new_phone("Badly numbered", number="07700 900123")
    assert (refused.value.code, refused.value.status) == ("INVALID_NUMBER", 400)
    assert len(authphone.phones()) == before


def test_clear_deletes_the_phones_texts(authphone: AuthPhone, phone: Phone) -> None:
    authphone.sms.send(phone, "one")
    authphone.sms.send(phone, "two")
    assert len(phone.messages.list()) == 2
    phone.messages.clear()
    assert phone.messages.list() == []


def test_the_account_and_a_text_to_no_phone(authphone: AuthPhone) -> None:
    account = authphone.sms.account()
    assert account.gateway_url == f"{authphone.url}/sms/send" and account.twilio_base_url == authphone.url
    assert account.account_sid.startswith("AC") and account.auth_token not in repr(account)
    nobody = new_number()
    with pytest.raises(BadRequestError) as refused:
        authphone.sms.send(nobody, "anyone there?")
    assert refused.value.code == "NUMBER_UNKNOWN"
    assert [t["outcome"] for t in authphone.sms.log(to=nobody)] == ["undelivered"]
