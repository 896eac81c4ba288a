"""privacyIDEA's TOTP and HOTP tokens on the phone: enrolled in a real privacyIDEA 3.14
(privacyidea_server.py), their otpauth:// key URIs scanned by an AuthPhone phone as QR text, and
the codes the phone shows accepted by privacyIDEA's /validate/check, each once only.

Environment: as client.py and privacyidea_server.py say.
"""

import pytest

from client import new_phone

# (privacyIDEA's hashlib, the phone's algorithm, digits, period)
TOTP_KINDS = [("sha1", "SHA1", 6, 30), ("sha256", "SHA256", 8, 30), ("sha512", "SHA512", 6, 60)]


def scanned(api, uri):
    """A new phone that has scanned the key URI, and the OTP account it made of it."""
    phone = new_phone(api, "privacyIDEA OTP phone")
    account = api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": uri}, expect=201)[1]["otpAccount"]
    return {"id": phone["id"], "account": account["id"]}, account


def assert_accepted_once(privacyidea, user, code):
    accepted = privacyidea.admin.validate_check(user, code)
    assert (accepted.accepted, accepted.authentication) == (True, "ACCEPT"), accepted
    again = privacyidea.admin.validate_check(user, code)
    assert (again.accepted, again.authentication) == (False, "REJECT"), again


@pytest.mark.parametrize("hashlib_name, algorithm, digits, period", TOTP_KINDS)
def test_the_phones_totp_code_is_accepted_once(api, privacyidea, hashlib_name, algorithm, digits, period):
    user = privacyidea.new_user("totp")
    serial, uri = privacyidea.admin.init_totp(user, hashlib=hashlib_name, digits=digits, period=period)
    path, account = scanned(api, uri)
    assert (account["kind"], account["issuer"], account["label"]) == ("totp", "privacyIDEA", serial), uri
    assert (account["algorithm"], account["digits"], account["period"]) == (algorithm, digits, period), uri

    code = api.call("getOTPCode", path=path, expect=200)[1]["code"]
    assert_accepted_once(privacyidea, user, code)


def test_the_phones_hotp_codes_are_accepted_in_counter_order(api, privacyidea):
    user = privacyidea.new_user("hotp")
    serial, uri = privacyidea.admin.init_hotp(user, hashlib="sha256", digits=8)
    path, account = scanned(api, uri)
    assert (account["kind"], account["label"], account["algorithm"], account["digits"]) == ("hotp", serial, "SHA256", 8), uri
    # privacyIDEA's URIs say counter=1 while its own counter starts at 0: it accepts a code a few
    # steps ahead (its window), so the phone's first code is right.
    assert account["counter"] == 1, uri

    codes = [api.call("getOTPCode", path=path, expect=200)[1]["code"]]
    codes += [api.call("nextOTPCode", path=path, body={}, expect=200)[1]["code"] for _ in range(2)]
    for counter, code in enumerate(codes[:-1], start=1):
        check = privacyidea.admin.validate_check(user, code)
        assert check.accepted, f"counter {counter}: {check}"
    assert_accepted_once(privacyidea, user, codes[-1])
