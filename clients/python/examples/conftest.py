"""What the browser examples share: the login page, and a phone on which a new user is enrolled
and that approves that user's logins by itself (an auto-answer rule, pushes opened at once)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from authphone import AuthPhone, Phone
from login_page import serving

PIN = "260418"


@pytest.fixture
def login_page(authphone: AuthPhone) -> Iterator[str]:
    """The page's URL."""
    with serving(authphone) as url:
        yield url


@pytest.fixture
def approving_user(authphone: AuthPhone, phone: Phone) -> str:
    """A user enrolled on the test's phone, whose logins the phone approves with its PIN by a rule."""
    user = f"bob-{secrets.token_hex(3)}"
    enrolment = authphone.backend.start_enrol(user)
    phone.scan(enrolment)
    phone.confirm()
    phone.enter_pin(PIN)
    assert enrolment.wait_outcome() == "enrolled"
    phone.change_settings(openPushesAtOnce=True)
    phone.auto_answer("confirm", pin=PIN, user=user)
    return user
