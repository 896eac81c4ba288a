"""The user's part of a flow through the actions route (confirm, PIN, cancel), the waits on the
event stream, and their refusals and time-outs as exceptions."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import httpx
import pytest

from authphone import AuthPhone, BadRequestError, ConflictError, Phone, ServerError, WaitTimeout

from support import PIN, user

T = TypeVar("T")


def in_background(call: Callable[[], T]) -> Callable[[], T]:
    """Runs `call` in a thread; the returned function waits for it and gives its result (or raises)."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # raised again in the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result() -> T:
        thread.join(30)
        assert not thread.is_alive(), "the background call never finished"
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["value"]  # type: ignore[return-value]
    return result


def test_an_enrolment_and_a_login_step_by_step(authphone: AuthPhone, phone: Phone) -> None:
    alice = user("alice")
    enrolment = authphone.backend.start_enrol(alice)
    phone.scan(enrolment)
    assert phone.wait_for("CONFIRM").type == "ENROL"
    after_confirm = phone.confirm()
    assert after_confirm is not None and after_confirm.state in ("PROCESSING", "WAIT_FOR_INPUT")
    assert phone.wait_for("SET_SECOND_FACTOR").interaction == "SET_SECOND_FACTOR"
    phone.enter_pin(PIN)
    assert phone.wait_for("DONE").type == "ENROL"
    assert enrolment.wait_outcome() == "enrolled" and enrolment.status == "enrolled"

    login = authphone.backend.start_login(alice, push_to=phone)
    started = phone.open_push()
    assert started.flow is not None and started.flow.type == "LOGIN"
    phone.confirm()
    phone.wait_for("VERIFY_SECOND_FACTOR")
    phone.enter_pin(PIN)
    assert login.wait_outcome() == "loggedin"
    assert phone.wait_for("DONE").automatic_rule is None


def test_wait_for_returns_when_the_flow_gets_there(authphone: AuthPhone, phone: Phone) -> None:
    phone.scan(authphone.backend.start_enrol(user("erin")))
    waiting = in_background(lambda: phone.wait_for("SET_SECOND_FACTOR", timeout=20))
    phone.confirm()
    flow = waiting()
    assert (flow.state, flow.interaction) == ("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")


def test_open_push_waits_for_the_push(authphone: AuthPhone, phone: Phone) -> None:
    opened = in_background(lambda: phone.open_push(timeout=20))
    session = authphone.backend.start_enrol(user("frank"), push_to=phone)
    started = opened().flow
    assert started is not None and started.interaction == "CONFIRM"
    assert authphone.backend.session(session.id).status == "redeemed"


def test_wait_for_times_out_with_a_clear_error(authphone: AuthPhone, phone: Phone) -> None:
    phone.scan(authphone.backend.start_enrol(user("gina")))
    began = time.monotonic()
    with pytest.raises(WaitTimeout) as timed_out:
        phone.wait_for("DONE", timeout=1)
    assert 1 <= time.monotonic() - began < 5
    assert timed_out.value.code == "TIMEOUT" and isinstance(timed_out.value, TimeoutError)
    assert f"waited 1 s for {phone.name}'s flow to show DONE" in timed_out.value.message
    flow = phone.flow()
    assert flow is not None and flow.interaction == "CONFIRM"  # the wait changed nothing


def test_waits_for_a_push_or_an_outcome_time_out(authphone: AuthPhone, phone: Phone) -> None:
    with pytest.raises(WaitTimeout, match="a push to"):
        phone.open_push(timeout=0.5)
    with pytest.raises(WaitTimeout, match="to end"):
        authphone.backend.start_enrol(user("hank")).wait_outcome(timeout=0.5)


def test_an_action_no_flow_waits_for_is_a_conflict(phone: Phone) -> None:
    with pytest.raises(ConflictError) as refused:
        phone.confirm()
    assert (refused.value.code, refused.value.status) == ("NO_ACTIVE_FLOW", 409)


def test_an_action_the_flow_does_not_wait_for_changes_nothing(authphone: AuthPhone, phone: Phone) -> None:
    phone.scan(authphone.backend.start_enrol(user("ivan")))
    with pytest.raises(ConflictError) as refused:
        phone.enter_pin(PIN)
    assert refused.value.code == "UNEXPECTED_INPUT"
    assert phone.wait_for("CONFIRM", timeout=1).interaction == "CONFIRM"


def test_a_malformed_action_is_refused(phone: Phone) -> None:
    with pytest.raises(BadRequestError) as refused:
        phone.act({"action": "confirmSession", "colour": "red"})
    assert (refused.value.code, refused.value.status) == ("UNKNOWN_FIELD", 400) and "colour" in refused.value.message


def test_a_cancelled_enrolment_ends_the_session(authphone: AuthPhone, phone: Phone) -> None:
    session = authphone.backend.start_enrol(user("judy"))
    phone.scan(session)
    ended = phone.cancel()
    assert ended is not None and (ended.state, ended.error) == ("ERROR", "USER_CANCELED") and ended.ended
    assert session.wait_outcome() == "canceled"


def test_the_offline_otp_of_a_login_the_phone_cannot_fetch(authphone: AuthPhone, phone: Phone, enrolled: str) -> None:
    fault = {"target": "phone", "phoneId": phone.id, "kind": "unreachable", "count": 10}
    httpx.post(f"{authphone.url}/api/faults", json=fault).raise_for_status()
    try:
        with pytest.raises(ServerError) as refused:
            phone.scan(authphone.backend.start_login(enrolled))
        assert (refused.value.code, refused.value.body.get("sdkCode")) == ("SERVER_CONNECTION_ERROR", 70)
        otp = phone.otp().replace(" ", "")  # shown in two groups of six
        assert len(otp) == 12 and otp.isalnum()
    finally:
        httpx.delete(f"{authphone.url}/api/faults")
