"""What reaches a phone: a session's QR text, its deep link, a picture of its QR code (bytes or a
file), a push through the push service; and the push log."""

from __future__ import annotations

from pathlib import Path

import pytest

from authphone import AuthPhone, BadRequestError, NotFoundError, Phone, Session

from support import qr_picture, user


@pytest.mark.parametrize("form", ["session", "qr text", "deep link", "picture", "picture file"])
def test_every_form_of_a_code_starts_the_enrolment(authphone: AuthPhone, phone: Phone, form: str,
                                                   tmp_path: Path) -> None:
    session = authphone.backend.start_enrol(user("carol"))
    picture = tmp_path / "qr.pgm"
    if form == "picture file":
        picture.write_bytes(qr_picture(authphone, session))
    codes: dict[str, str | bytes | Path | Session] = {
        "session": session, "qr text": session.qr_text, "deep link": session.deep_link,
        "picture": qr_picture(authphone, session), "picture file": picture}
    flow = phone.scan(codes[form]).flow
    assert flow is not None and (flow.type, flow.state, flow.interaction) == ("ENROL", "WAIT_FOR_INPUT", "CONFIRM")
    assert authphone.backend.session(session.id).status == "redeemed"


def test_a_picture_of_another_type_raises_the_servers_refusal(phone: Phone) -> None:
    with pytest.raises(BadRequestError) as refused:
        phone.scan(b"GIF89a")
    assert (refused.value.code, refused.value.status) == ("UNSUPPORTED_MEDIA_TYPE", 415)
    assert phone.flow() is None


def test_a_picture_without_a_code_raises_the_servers_refusal(phone: Phone) -> None:
    with pytest.raises(BadRequestError) as refused:
        phone.scan(b"P5 2 2 255\n\xff\xff\xff\xff")
    assert (refused.value.code, refused.value.status) == ("NO_QR_CODE", 422)


def test_a_push_sent_to_the_phone_waits_in_its_inbox_and_in_the_log(authphone: AuthPhone, phone: Phone) -> None:
    name = authphone.push.send({"data": {"hello": "world"}, "notification": {"title": "Hi"}}, to=phone)
    message_id = name.rsplit("/", 1)[1]
    assert [m["id"] for m in phone.inbox()] == [message_id]
    logged = authphone.push.messages(phone=phone)
    assert [(m["id"], m["outcome"]) for m in logged] == [(message_id, "inbox")]
    assert authphone.push.messages(phone=phone, outcome="opened") == []
    assert len(authphone.push.messages(limit=1)) == 1


def test_a_validated_push_reaches_no_phone(authphone: AuthPhone, phone: Phone) -> None:
    authphone.push.send({"data": {"k": "v"}}, to=phone, validate_only=True)
    assert phone.inbox() == []


def test_the_push_services_refusal_raises_fcms_code(authphone: AuthPhone) -> None:
    with pytest.raises(NotFoundError) as refused:
        authphone.push.send({"token": "no-such-token", "data": {"k": "v"}})
    assert (refused.value.code, refused.value.status) == ("UNREGISTERED", 404)


def test_a_bad_log_filter_raises_its_code(authphone: AuthPhone) -> None:
    with pytest.raises(BadRequestError) as refused:
        authphone.push.messages(outcome="lost")
    assert refused.value.code == "UNKNOWN_OUTCOME"


def test_the_phones_timeline_is_a_har_file(authphone: AuthPhone, phone: Phone, tmp_path: Path) -> None:
    session = authphone.backend.start_enrol(user("dave"), push_to=phone)
    kept = tmp_path / "phone.har"
    har = authphone.timeline_har(phone, kept)
    assert har["log"]["version"] == "1.2" and har["log"]["entries"]
    assert kept.read_text().startswith("{")
    assert authphone.timeline_har(session)["log"]["entries"]
