"""The event stream as the client reads it: filters, a resume from an event id, a dropped
connection opened again without losing an event, and filters that name nothing refused."""

from __future__ import annotations

import time

import pytest

from authphone import AuthPhone, BadRequestError, NotFoundError, Phone, WaitTimeout

from support import user

NO_PHONE = "00000000-0000-4000-8000-000000000000"


def test_a_phones_events_resume_after_an_id(authphone: AuthPhone, phone: Phone) -> None:
    with authphone.events(phone=phone, timeout=10) as events:
        phone.scan(authphone.backend.start_enrol(user("kim")))
        phone.confirm()
        first, second = next(events), next(events)
    assert first.id is not None and second.id is not None and first.id < second.id
    assert all(e.data["phone"] == phone.id for e in (first, second))
    with authphone.events(phone=phone, last_event_id=first.id, timeout=10) as resumed:
        again = next(resumed)
    assert (again.id, again.kind, again.data) == (second.id, second.kind, second.data)


def test_a_dropped_connection_loses_no_event(authphone: AuthPhone, phone: Phone) -> None:
    session = authphone.backend.start_enrol(user("lee"))
    with authphone.events(phone=phone, kind="interaction", timeout=10) as events:
        phone.scan(session)
        confirm = next(events)
        assert confirm.data["flow"]["currentInteraction"]["type"] == "CONFIRM"
        events.close()  # as if the network dropped it
        phone.confirm()  # its interaction comes while no connection is open
        pin_pad = next(events)
    assert pin_pad.data["flow"]["currentInteraction"]["type"] == "SET_SECOND_FACTOR"
    assert pin_pad.id is not None and confirm.id is not None and pin_pad.id > confirm.id


def test_a_filter_that_names_nothing_is_refused(authphone: AuthPhone) -> None:
    with pytest.raises(NotFoundError):
        authphone.events(phone=NO_PHONE)
    with pytest.raises(BadRequestError):
        authphone.events(kind="weather")


def test_keep_alives_do_not_stretch_a_wait(authphone: AuthPhone, phone: Phone) -> None:
    """The server sends `: keep-alive` every 15 s: a 16 s wait with no event still ends at 16 s."""
    began = time.monotonic()
    with pytest.raises(WaitTimeout):
        next(authphone.events(phone=phone, timeout=16))
    assert 16 <= time.monotonic() - began < 20
