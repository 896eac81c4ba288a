"""Phones: made, found, listed and deleted, and the server's refusals as exceptions that carry
its error code."""

from __future__ import annotations

import pytest

from authphone import AuthPhone, AuthPhoneError, BadRequestError, NotFoundError, Phone

NO_PHONE = "00000000-0000-4000-8000-000000000000"


def test_a_new_phone_is_found_by_its_id_and_listed(authphone: AuthPhone) -> None:
    made = authphone.new_phone("Listed phone")
    try:
        found = authphone.phone(made.id)
        assert (found.id, found.name, found.fcm_token) == (made.id, "Listed phone", made.fcm_token)
        assert made.fid and made.fcm_token.startswith(made.fid + ":")
        assert made.id in [p.id for p in authphone.phones()]
        assert made.details()["accounts"] == [] and made.flow() is None
    finally:
        made.delete()


def test_a_deleted_phone_is_not_found(authphone: AuthPhone) -> None:
    gone = authphone.new_phone("Deleted phone")
    gone.delete()
    with pytest.raises(NotFoundError) as refused:
        gone.details()
    assert (refused.value.code, refused.value.status) == ("PHONE_NOT_FOUND", 404)
    assert gone.id in refused.value.message


def test_an_unknown_phone_raises_its_code_and_message(authphone: AuthPhone) -> None:
    with pytest.raises(NotFoundError) as refused:
        authphone.phone(NO_PHONE)
    assert refused.value.code == "PHONE_NOT_FOUND"
    assert str(refused.value) == f"PHONE_NOT_FOUND: no phone with id {NO_PHONE}"


def test_a_bad_name_is_refused_and_makes_no_phone(authphone: AuthPhone) -> None:
    before = len(authphone.phones())
    with pytest.raises(BadRequestError) as refused:
        authphone.new_phone("two\nlines")
    assert (refused.value.code, refused.value.status) == ("INVALID_FIELD", 400)
    assert "'name'" in refused.value.message
    assert len(authphone.phones()) == before


def test_every_refusal_is_an_authphone_error(phone: Phone) -> None:
    with pytest.raises(AuthPhoneError) as refused:
        phone.scan("not a payload")
    assert refused.value.status == 400 and refused.value.code.isupper()
