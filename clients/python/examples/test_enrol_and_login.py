"""Enrol a user on a phone and log in through AuthPhone's demo backend: the whole test, with the
plugin's `authphone` and `phone` fixtures (pip install ./clients/python; pytest)."""

from authphone import AuthPhone, Phone


def test_enrol_and_log_in(authphone: AuthPhone, phone: Phone) -> None:
    enrolment = authphone.backend.start_enrol("alice")
    phone.scan(enrolment)
    phone.confirm()
    phone.enter_pin("260418")
    assert enrolment.wait_outcome() == "enrolled"
    phone.auto_answer("confirm", pin="260418")  # from now on the phone approves by itself
    login = authphone.backend.start_login("alice", push_to=phone)
    phone.open_push()
    assert login.wait_outcome() == "loggedin"
