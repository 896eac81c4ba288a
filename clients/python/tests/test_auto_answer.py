"""Auto-answer rules through the client: a rule approves a login by itself and says so on the
flow, a used-up rule answers no more, a request no rule covers waits, and refusals change nothing."""

from __future__ import annotations

import pytest

from authphone import AuthPhone, BadRequestError, Flow, NotFoundError, Phone

from support import PIN



def test_a_rule_approves_a_pushed_login_and_the_flow_says_so(authphone: AuthPhone, phone: Phone,
                                                             enrolled: str) -> None:
    rule = phone.auto_answer("confirm", pin=PIN, user=enrolled, count=1)
    assert (rule.answer, rule.second_factor, rule.remaining) == ("confirm", "PIN", 1)
    assert PIN not in str(rule.data) and [r.id for r in phone.auto_answer_rules()] == [rule.id]
    with authphone.events(phone=phone, kind="flowEnded", timeout=20) as ended:
        login = authphone.backend.start_login(enrolled, push_to=phone)
        phone.open_push()
        assert login.wait_outcome() == "loggedin"
        assert Flow.from_json(next(ended).data["flow"]).automatic_rule == rule.id
    assert phone.auto_answer_rules() == []  # its one answer is used

    authphone.backend.start_login(enrolled, push_to=phone)
    phone.open_push()
    assert phone.wait_for("CONFIRM", timeout=5).automatic_rule is None  # no rule: it waits for a person


def test_a_declining_rule_refuses_the_login(authphone: AuthPhone, phone: Phone, enrolled: str) -> None:
    phone.auto_answer("decline")
    login = authphone.backend.start_login(enrolled)
    phone.scan(login)
    assert login.wait_outcome() == "canceled"


def test_a_rule_for_another_user_leaves_the_request_to_a_person(authphone: AuthPhone, phone: Phone,
                                                               enrolled: str) -> None:
    phone.auto_answer("confirm", pin=PIN, user="somebody-else")
    phone.scan(authphone.backend.start_login(enrolled))
    assert phone.wait_for("CONFIRM", timeout=5).interaction == "CONFIRM"


def test_a_wrong_pin_is_refused_and_adds_no_rule(phone: Phone, enrolled: str) -> None:
    with pytest.raises(BadRequestError) as refused:
        phone.auto_answer("confirm", pin="999888")
    assert refused.value.code == "RULE_PIN_WRONG" and "999888" not in refused.value.message
    assert phone.auto_answer_rules() == []


def test_rules_are_removed_one_by_one_or_all(phone: Phone) -> None:
    first, second = phone.auto_answer("confirm", server="127.0.0.1"), phone.auto_answer("decline", count=2)
    phone.remove_auto_answer(first)
    assert [r.id for r in phone.auto_answer_rules()] == [second.id]
    with pytest.raises(NotFoundError) as refused:
        phone.remove_auto_answer(first.id)
    assert refused.value.code == "RULE_NOT_FOUND"
    phone.remove_auto_answer()
    assert phone.auto_answer_rules() == []


def test_a_rule_for_an_unknown_phone_is_not_found(authphone: AuthPhone, phone: Phone) -> None:
    phone.delete()
    with pytest.raises(NotFoundError) as refused:
        phone.auto_answer("confirm")
    assert refused.value.code == "PHONE_NOT_FOUND"
