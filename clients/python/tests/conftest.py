"""The tests' own fixture beside the plugin's `authphone` and `phone`: a phone with an account."""

from __future__ import annotations

import pytest

from authphone import AuthPhone, Phone

from support import PIN, user


@pytest.fixture
def enrolled(authphone: AuthPhone, phone: Phone) -> str:
    """The test's phone with an account of a new user (its PIN set to PIN): the user's id."""
    alice = user("alice")
    session = authphone.backend.start_enrol(alice)
    phone.scan(session)
    phone.confirm()
    phone.enter_pin(PIN)
    assert session.wait_outcome() == "enrolled"
    return alice
