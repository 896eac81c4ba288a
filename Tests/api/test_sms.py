"""The SMS gateway AuthPhone plays (docs/sms.md): each phone's number, texts from real senders
(privacyIDEA 3.14's SMS token through its HttpSMSProvider, the `twilio` library from PyPI, a
script through the generic door) on the phone's Messages app and its event stream, and every
refusal in the sender's own dialect, logged, changing nothing.

Environment: as client.py and privacyidea_server.py say.
"""

import re
import secrets
import urllib.parse

import pytest
import requests
from twilio.base.exceptions import TwilioRestException
from twilio.rest import Client

from client import BASE_URL, EventStream, new_phone, wait_for
from document import OPS

FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def account(api):
    return api.call("getSMSAccount", expect=200)[1]


def texts(api, phone):
    return api.call("listTextMessages", path={"id": phone["id"]}, expect=200)[1]["messages"]


def logged(api, number):
    return api.call("listSMSLog", query={"to": number}, expect=200)[1]["texts"]


def gateway(api, account, params=None, *, body=None, op="sendSMS", auth=None, expect=None):
    """A text through the generic door, its answer checked against the document."""
    credentials = auth if auth is not None else (account["accountSid"], account["authToken"])
    headers = {"Authorization": requests.auth._basic_auth_str(*credentials)} if credentials else {}
    return api.call(op, body=body, query=params, headers=headers, expect=expect)


def twilio_client(account, token=None):
    """Twilio's own library with only its host pointed at AuthPhone."""
    client = Client(account["accountSid"], token or account["authToken"])
    client.api.base_url = account["twilioBaseURL"]
    return client


def test_a_phone_has_a_number_of_its_own_or_the_one_it_was_given(api):
    phone = new_phone(api, "numbered phone")
    assert re.fullmatch(r"\+4477009\d{5}", phone["number"]), phone
    assert api.call("getPhone", path={"id": phone["id"]}, expect=200)[1]["number"] == phone["number"]
    digits = f"{secrets.randbelow(10 ** 7):07d}"
    given = api.call("createPhone", body={"name": "given number", "number": f"+1 (555) {digits[:3]}-{digits[3:]}"}, expect=201)[1]
    assert given["number"] == "+1555" + digits
    taken = api.call("createPhone", body={"name": "same number", "number": "+1555" + digits}, expect=409)[1]
    assert taken["error"]["code"] == "NUMBER_TAKEN"
    bad = api.call("createPhone", body={"name": "bad number", "number": "call me"}, expect=400)[1]
    assert bad["error"]["code"] == "INVALID_NUMBER"


def test_privacyideas_sms_token_sends_its_code_to_the_phone_and_accepts_it(api, privacyidea):
    phone = new_phone(api, "privacyIDEA SMS phone")
    user = privacyidea.new_user("sms")
    with privacyidea.sms_through_authphone():
        privacyidea.admin.init_sms_token(user, phone["number"])
        challenge = privacyidea.admin.validate_check(user, "")
        assert challenge.transaction_id, challenge
        text = wait_for(lambda: texts(api, phone), "privacyIDEA's text")[0]
        assert text["from"] == "privacyIDEA" and re.fullmatch(r"\d{6}", text["code"]), text
        wrong = privacyidea.admin.validate_check(user, "000000" if text["code"] != "000000" else "111111", challenge.transaction_id)
        assert not wrong.accepted, wrong
        again = privacyidea.admin.validate_check(user, "")
        code = wait_for(lambda: [t for t in texts(api, phone) if t["id"] != text["id"]], "the second text")[0]["code"]
        accepted = privacyidea.admin.validate_check(user, code, again.transaction_id)
        assert (accepted.accepted, accepted.authentication) == (True, "ACCEPT"), accepted
    entry = logged(api, phone["number"])[0]
    assert (entry["door"], entry["outcome"], entry["phoneId"]) == ("gateway", "delivered", phone["id"]), entry


def test_twilios_library_sends_to_a_phone_and_reads_the_message_back(api, account):
    phone = new_phone(api, "Twilio phone")
    client = twilio_client(account)
    sent = client.messages.create(to=phone["number"], from_="+15005550006", body="Your ACME code is 734291")
    assert (sent.status, sent.to, sent.body, sent.account_sid) == ("queued", phone["number"], "Your ACME code is 734291", account["accountSid"])
    assert sent.sid.startswith("SM") and sent.date_created is not None
    fetched = client.messages(sent.sid).fetch()
    assert (fetched.sid, fetched.status) == (sent.sid, "delivered")
    assert texts(api, phone)[0]["code"] == "734291"


@pytest.mark.parametrize("to, body, code", [  # the library itself refuses a message without `to`
    ("+447700999999", "hi", 21211),  # no phone has it
    ("not a number", "hi", 21211),
    ("PHONE", "x" * 1601, 21617),
    ("PHONE", "bell \x07", 70002),
])
def test_twilios_library_reads_twilios_errors(api, account, to, body, code):
    phone = new_phone(api, "Twilio refusals")
    with pytest.raises(TwilioRestException) as refused:
        twilio_client(account).messages.create(to=phone["number"] if to == "PHONE" else to, from_="+15005550006", body=body)
    assert (refused.value.status, refused.value.code) == (400, code), refused.value
    assert texts(api, phone) == []


def test_twilios_library_with_a_wrong_token_is_refused(api, account):
    phone = new_phone(api, "Twilio wrong token")
    with pytest.raises(TwilioRestException) as refused:
        twilio_client(account, token="0" * 32).messages.create(to=phone["number"], from_="+15005550006", body="hi 1234")
    assert (refused.value.status, refused.value.code) == (401, 20003)
    assert texts(api, phone) == []


def test_the_generic_door_takes_a_query_a_form_or_json_and_streams_an_sms_event(api, account):
    phone = new_phone(api, "generic door phone")
    events = EventStream(BASE_URL, {"kind": "sms", "phone": phone["id"]})
    try:
        gateway(api, account, {"phone": phone["number"], "message": "Code 1111"}, op="sendSMSByQuery", expect=200)
        gateway(api, account, body={"to": phone["number"], "text": "Code 2222", "from": "Bank"}, expect=200)
        event = events.until(lambda e: e.get("event") == "sms")[-1]
        assert (event["data"]["phone"], event["data"]["sms"]["code"]) == (phone["id"], "1111")
    finally:
        events.drop()
    assert [(t["from"], t["code"]) for t in texts(api, phone)] == [("Bank", "2222"), ("AuthPhone", "1111")]
    api.call("clearTextMessages", path={"id": phone["id"]}, expect=204)
    assert texts(api, phone) == []


@pytest.mark.parametrize("params, auth, status, code", [
    ({"to": "PHONE", "text": "hi"}, ("ACnobody", "nothing"), 401, "SMS_CREDENTIALS_REQUIRED"),
    ({"to": "PHONE", "text": "hi"}, (), 401, "SMS_CREDENTIALS_REQUIRED"),
    ({"to": "+44 7700 9OO123", "text": "hi"}, None, 400, "INVALID_NUMBER"),
    ({"to": "+447700999999", "text": "hi"}, None, 400, "NUMBER_UNKNOWN"),
    ({"to": "PHONE", "text": "x" * 1601}, None, 400, "TEXT_TOO_LONG"),
    ({"to": "PHONE", "text": "null \x00 byte"}, None, 400, "TEXT_UNREADABLE"),
    ({"to": "PHONE", "phone": "PHONE", "text": "hi"}, None, 400, "INVALID_REQUEST"),
    ({"text": "hi"}, None, 400, "INVALID_REQUEST"),
])
def test_the_generic_door_refuses_bad_input_and_logs_why(api, account, params, auth, status, code):
    phone = new_phone(api, "generic refusals")
    params = {key: phone["number"] if value == "PHONE" else value for key, value in params.items()}
    refused = gateway(api, account, body=params, auth=auth, expect=status)
    assert refused[1]["error"]["code"] == code
    if status == 401:
        assert refused[0].headers["WWW-Authenticate"].startswith("Basic ")
    assert texts(api, phone) == []
    latest = api.call("listSMSLog", query={"limit": 1}, expect=200)[1]["texts"][0]
    assert latest["error"]["code"] == code and latest["outcome"] in ("refused", "undelivered"), latest


def test_a_sender_faster_than_the_rate_limit_gets_429_and_the_phone_nothing_more(api, account):
    phone = new_phone(api, "flooded phone")
    for n in range(30):
        gateway(api, account, body={"to": phone["number"], "text": f"flood {n}"}, expect=200)
    refused, body = gateway(api, account, body={"to": phone["number"], "text": "one too many"}, expect=429)
    assert body["error"]["code"] == "TOO_MANY_TEXTS" and 1 <= int(refused.headers["Retry-After"]) <= 60
    with pytest.raises(TwilioRestException) as twilio_refused:
        twilio_client(account).messages.create(to=phone["number"], from_="Bank", body="still too many")
    assert (twilio_refused.value.status, twilio_refused.value.code) == (429, 20429)
    assert len(texts(api, phone)) == 30


def test_faults_drop_a_text_or_make_the_gateway_fail(api, account):
    phone = new_phone(api, "faulty gateway phone")
    api.call("addFault", body={"target": "sms", "kind": "dropText", "count": 1}, expect=201)
    dropped = gateway(api, account, body={"to": phone["number"], "text": "lost 1234"}, expect=200)[1]
    assert dropped["status"] == "dropped"
    api.call("addFault", body={"target": "sms", "kind": "status", "status": 503, "retryAfter": 7, "count": 1}, expect=201)
    failed, body = gateway(api, account, body={"to": phone["number"], "text": "failed 1234"}, expect=503)
    assert body["error"]["code"] == "GATEWAY_FAULT" and failed.headers["Retry-After"] == "7"
    gateway(api, account, body={"to": phone["number"], "text": "arrived 5678"}, expect=200)
    assert [t["code"] for t in texts(api, phone)] == ["5678"]
    assert [e["outcome"] for e in logged(api, phone["number"])] == ["delivered", "refused", "dropped"]
    wrong = api.call("addFault", body={"target": "push", "kind": "dropText"}, expect=400)[1]
    assert wrong["error"]["code"] == "INVALID_FIELD"


def form(op, example, **changes):
    """The request example as the form a sender posts, with `changes` (None: left out)."""
    value = {**OPS[op].request_examples[example][0], **changes}
    return urllib.parse.urlencode({key: v for key, v in value.items() if v is not None}).encode()


def test_the_documented_examples_are_what_the_gateway_answers(api, account):
    """Every example the document gives for the phone's number, its texts and the gateway's doors,
    replayed (each text to a phone of the test's own, the number in the example swapped for it)."""
    basic = {"Authorization": requests.auth._basic_auth_str(account["accountSid"], account["authToken"])}
    twilio = {"account": account["accountSid"]}
    number = f"+447700{secrets.randbelow(10 ** 6):06d}"
    uk = api.call("createPhone", "ukNumber", merge={"number": number}, expect=201)[1]
    api.call("createPhone", "numberTaken", merge={"number": "00" + number[1:]}, expect=409)
    api.call("createPhone", "invalidNumber", expect=400)

    phone = new_phone(api, "documented texts")
    path = {"id": phone["id"]}
    api.call("listTextMessages", "empty", path=path, expect=200)
    api.call("sendSMSByQuery", "delivered", query={"to": phone["number"], "text": "Your code is 1234"}, headers=basic, expect=200)
    api.call("sendSMS", "json", merge={"number": int(phone["number"][1:])}, headers=basic, expect=200)
    api.call("sendSMS", "form", raw=form("sendSMS", "form", to=phone["number"]), content_type=FORM, headers=basic, expect=200)
    api.call("listTextMessages", "texts", path=path, expect=200)
    api.call("listSMSLog", "smsLog", query={"to": phone["number"]}, expect=200)
    api.call("sendSMS", "numberUnknown", merge={"to": "+1555" + f"{secrets.randbelow(10 ** 7):07d}"}, headers=basic, expect=400)
    api.call("sendSMS", "twoRecipients", merge={"phone": phone["number"]}, headers=basic, expect=400)
    api.call("sendSMS", "invalidSender", merge={"to": phone["number"]}, headers=basic, expect=400)
    api.call("sendSMS", "smsCredentialsRequired", body={"to": phone["number"], "text": "x"}, expect=401)

    # Twilio's door, and its messages read back
    created = api.call("createTwilioMessage", "verificationCode", path=twilio, raw=form("createTwilioMessage", "verificationCode", To=phone["number"]),
                       content_type=FORM, headers=basic, expect=201)[1]
    api.call("createTwilioMessage", "messagingService", path=twilio,
             raw=form("createTwilioMessage", "messagingService", To=phone["number"]), content_type=FORM, headers=basic, expect=201)
    api.call("createTwilioMessage", "toMissing", path=twilio, raw=form("createTwilioMessage", "toMissing"), content_type=FORM,
             headers=basic, expect=400)
    api.call("createTwilioMessage", "numberUnknown", path=twilio, raw=form("createTwilioMessage", "numberUnknown", To="+15550000001"),
             content_type=FORM, headers=basic, expect=400)
    unknown_sid = api.call("listSMSLog", query={"to": "+15550000001", "limit": 1}, expect=200)[1]["texts"][0]["id"]
    api.call("createTwilioMessage", "unauthenticated", path=twilio, raw=form("createTwilioMessage", "verificationCode", To=phone["number"]),
             content_type=FORM, expect=401)
    api.call("createTwilioMessage", "otherAccount", path={"account": "AC" + "0" * 32},
             raw=form("createTwilioMessage", "verificationCode", To=phone["number"]), content_type=FORM, headers=basic, expect=403)
    api.call("getTwilioMessage", "delivered", path={**twilio, "message": created["sid"]}, headers=basic, expect=200)
    api.call("getTwilioMessage", "undelivered", path={**twilio, "message": unknown_sid}, headers=basic, expect=200)
    api.call("getTwilioMessage", "unauthenticated", path={**twilio, "message": created["sid"]}, expect=401)
    api.call("getTwilioMessage", "messageNotFound", path={**twilio, "message": "SM" + "0" * 32}, headers=basic, expect=404)

    # the log
    api.call("listSMSLog", "empty", query={"to": "+15550000002"}, expect=200)
    api.call("listSMSLog", "invalidNumber", query={"to": "call me"}, expect=400)
    api.call("listSMSLog", "invalidLimit", query={"limit": "0"}, expect=400)
    api.call("getSMSAccount", "account", expect=200)

    # a number flooded, and the gateway's faults
    flooded = new_phone(api, "documented flood")["number"]
    for n in range(30):
        api.call("sendSMS", body={"to": flooded, "text": f"flood {n}"}, headers=basic, expect=200)
    api.call("sendSMS", "tooManyTexts", body={"to": flooded, "text": "one too many"}, headers=basic, expect=429)
    api.call("createTwilioMessage", "tooManyTexts", path=twilio, raw=form("createTwilioMessage", "verificationCode", To=flooded),
             content_type=FORM, headers=basic, expect=429)
    api.call("addFault", "unreachableGateway", expect=400)
    api.call("addFault", "droppedText", expect=201)
    assert api.call("sendSMS", body={"to": phone["number"], "text": "dropped"}, headers=basic, expect=200)[1]["status"] == "dropped"
    api.call("addFault", body={"target": "sms", "kind": "status", "status": 503, "count": 1}, expect=201)
    api.call("sendSMSByQuery", "gatewayFault", query={"to": phone["number"], "text": "failed"}, headers=basic, expect=503)
