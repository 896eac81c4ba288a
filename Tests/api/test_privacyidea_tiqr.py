"""AuthPhone's phone as the tiqr app for privacyIDEA 3.14's tiqr tokens (docs/privacyidea.md#tiqr):
it enrols from privacyIDEA's QR text (the service's metadata, then the phone's secret), answers a
login's tiqrauth code with the OCRA response privacyIDEA checks, declines one by sending nothing,
shows the response to type in when the server cannot be reached, and refuses a login for an
identity it does not hold before any server hears of it.

privacyIDEA 3.14 loses a right answer unless something commits after /ttype/tiqr (it sets the
challenge answered in memory only): privacyidea_server.py's enable_tiqr adds the event handler
that does, as docs/privacyidea.md tells an administrator to.
"""

import pytest
import requests

from client import TIMEOUT, new_phone
from privacyidea_phone import answer_named, enrolled_identity, tiqr_login
from privacyidea_server import TIQR_SERVICE as SERVICE, TIQR_SERVICE_NAME as SERVICE_NAME
from servers import free_port


@pytest.fixture
def tiqr(privacyidea):
    """privacyIDEA with tiqr set up (privacyidea_server.py)."""
    privacyidea.enable_tiqr()
    return privacyidea


def shown_login(api, phone, code):
    shown = api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": code}, expect=202)[1]["privacyIDEA"]
    assert (shown["kind"], shown["state"], shown["server"], shown["title"]) == ("CHALLENGE", "WAIT_FOR_INPUT", "tiqr", SERVICE_NAME), shown
    return shown


def test_a_tiqr_login_the_phone_accepts_logs_in_and_one_it_declines_does_not(api, tiqr):
    phone = new_phone(api, "tiqr phone")
    user = tiqr.new_user("tiqr")
    serial = enrolled_identity(api, tiqr, phone, user)
    # privacyIDEA drops the enrolment session once the phone's secret came
    assert "session" not in tiqr.admin.token(serial).info
    listed = api.call("listPushTokens", path={"id": phone["id"]}, expect=200)[1]["tokens"]
    assert [(t["serial"], t["tokenType"], t["issuer"]) for t in listed] == [(serial, "tiqr", SERVICE_NAME)], listed

    accepted, code = tiqr_login(tiqr, user)
    shown = shown_login(api, phone, code)
    assert shown["nonce"] == accepted.transaction_id and user in shown["question"], shown
    assert answer_named(api, phone, accept=True)["outcome"] == "ACCEPTED"
    assert tiqr.admin.poll_transaction(accepted.transaction_id) == "accept"
    assert tiqr.admin.validate_check(user, "", accepted.transaction_id).accepted

    # tiqr has no decline: the phone sends nothing and the login never completes
    declined, code = tiqr_login(tiqr, user)
    shown_login(api, phone, code)
    assert answer_named(api, phone, accept=False)["outcome"] == "DECLINED"
    assert tiqr.admin.poll_transaction(declined.transaction_id) == "pending"
    assert not tiqr.admin.validate_check(user, "", declined.transaction_id).accepted
    # the code again, answered before, is refused
    replayed = api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": code}, expect=409)[1]
    assert replayed["error"]["code"] == "CHALLENGE_REPLAYED"
    # deleted on the phone, the identity is gone from its list
    api.call("deletePushToken", path={"id": phone["id"], "serial": serial}, expect=204)
    assert api.call("listPushTokens", path={"id": phone["id"]}, expect=200)[1]["tokens"] == []


def test_a_server_out_of_reach_leaves_the_response_to_type_in(api, tiqr):
    """privacyIDEA's tiqr.authServer names where logins are answered; here nothing listens there.
    The phone shows the OCRA response instead, and it is the right one: privacyIDEA takes it."""
    phone = new_phone(api, "tiqr offline phone")
    user = tiqr.new_user("tiqroff")
    dead = f"http://127.0.0.1:{free_port()}/ttype/tiqr"
    tiqr.admin.set_config({"tiqr.authServer": dead})
    try:
        enrolled_identity(api, tiqr, phone, user)
    finally:
        tiqr.admin.call("DELETE", "/system/tiqr.authServer")
    login, code = tiqr_login(tiqr, user)
    shown = shown_login(api, phone, code)
    offline = answer_named(api, phone, accept=True)
    assert (offline["state"], offline["error"]["code"]) == ("ERROR", "SERVER_CONNECTION_ERROR"), offline
    assert offline["displayCode"].isdigit() and len(offline["displayCode"]) == 6, offline
    # the response the user would type, sent as the app would have: privacyIDEA takes it
    taken = requests.post(tiqr.url + "/ttype/tiqr", timeout=TIMEOUT, data={
        "sessionKey": shown["nonce"], "userId": code.split("://")[1].split("@")[0], "response": offline["displayCode"],
        "operation": "login"})
    assert taken.text == "OK", taken.text
    assert tiqr.admin.validate_check(user, "", login.transaction_id).accepted


def test_codes_for_identities_the_phone_does_not_hold_are_refused(api, tiqr):
    phone = new_phone(api, "tiqr stranger phone")
    path = {"id": phone["id"]}
    stranger = f"tiqrauth://mallory_authphone@{SERVICE}/12345678901234567890/0123456789/Evil%20Corp"
    refused = api.call("startOutOfBand", path=path, body={"qr": stranger}, expect=404)[1]
    assert refused["error"]["code"] == "TIQR_IDENTITY_UNKNOWN", refused
    broken = api.call("startOutOfBand", path=path, body={"qr": "tiqrauth://nobody"}, expect=400)[1]
    assert broken["error"]["code"] == "INVALID_TIQR_CODE", broken
    hops = api.call("getPhoneTimeline", path=path, expect=200)[1]["hops"]
    assert [hop for hop in hops if hop["to"] == "privacyIDEA"] == [], "no server hears of a refused code"
    assert api.call("getPrivacyIDEARequest", path=path, expect=200)[1]["privacyIDEA"] is None
