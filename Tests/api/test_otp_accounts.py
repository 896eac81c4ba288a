"""otpauth:// accounts on the phone (docs/otp.md#otpauth-accounts): key URIs handed over as QR text
and as links become OTP accounts, whose codes agree with RFC 4226 and RFC 6238 as Python's own
hmac computes them; HOTP's next code; every refusal answers its status and code and leaves the
phone's accounts as they were; the screen hears of each change without the key; no answer
carries the key.

Environment: as client.py says.
"""

import base64
import hashlib
import hmac
import struct
import time

from client import NO_PHONE, new_phone, screen_of
from document import FINISHED, OPS

SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # RFC 4226's key, "12345678901234567890"
KEY = base64.b32decode(SECRET)
HASHES = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


def hotp(key, counter, digits=6, algorithm="SHA1"):
    """RFC 4226 §5.3: the HMAC of the counter, dynamically truncated."""
    mac = hmac.new(key, struct.pack(">Q", counter), HASHES[algorithm]).digest()
    offset = mac[-1] & 0x0F
    number = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return str(number % 10 ** digits).zfill(digits)


def totp(key, at, period=30, digits=6, algorithm="SHA1"):
    """RFC 6238: HOTP of the time step."""
    return hotp(key, int(at) // period, digits, algorithm)


def test_rfc_vectors_hold_for_the_reference():
    """The reference itself: RFC 4226 Appendix D and RFC 6238 Appendix B (SHA1, 59 s)."""
    assert [hotp(b"12345678901234567890", c) for c in (0, 1, 9)] == ["755224", "287082", "520489"]
    assert totp(b"12345678901234567890", 59, digits=8) == "94287082"


def examples_value(op_id, name):
    return OPS[op_id].request_examples[name][0]


def test_walk_otp_accounts(api):
    """Key URIs through the QR and link doors, their codes, HOTP's next, the refusals, removal."""
    phone = new_phone(api, "OTP phone")
    path = {"id": phone["id"]}
    screen = screen_of(api, phone)
    answers = []

    def call(*args, **kwargs):
        response, body = api.call(*args, **kwargs)
        answers.append(response.text)
        return body

    def accounts():
        return call("listOTPAccounts", path=path, expect=200)["accounts"]

    try:
        imported = call("startOutOfBand", "totpKeyURI", path=path, expect=201)["otpAccount"]
        assert (imported["kind"], imported["issuer"], imported["label"]) == ("totp", "ACME Co", "alice@example.com")
        assert (imported["algorithm"], imported["digits"], imported["period"]) == ("SHA256", 8, 30)
        linked = call("startOutOfBand", "hotpKeyLink", path=path, expect=201)["otpAccount"]
        assert (linked["kind"], linked["issuer"], linked["label"], linked["counter"]) == ("hotp", "privacyIDEA", "OATH0001A2B3", 1)
        message = screen.until(lambda m: m["type"] == "otpAccount", "the imported account")["otpAccount"]
        assert message == {"change": "imported", "account": imported}
        assert call("listOTPAccounts", "twoAccounts", path=path, expect=200)["accounts"] == [imported, linked]

        # TOTP: the code of the server's clock, between the test's clock before and after asking
        totp_path = {**path, "account": imported["id"]}
        before = time.time()
        code = call("getOTPCode", path=totp_path, expect=200)
        after = time.time()
        expected = {totp(KEY, t, digits=8, algorithm="SHA256") for t in (before, after)}
        assert code["code"] in expected and code["period"] == 30 and 1 <= code["validFor"] <= 30
        if len(expected) == 1:  # no step began meanwhile
            assert 30 - int(after) % 30 <= code["validFor"] <= 30 - int(before) % 30
        # HOTP: the counter's code, which stays until next moves it
        hotp_path = {**path, "account": linked["id"]}
        assert call("getOTPCode", "hotpCode", path=hotp_path, expect=200) == {"code": hotp(KEY, 1), "counter": 1}
        assert call("getOTPCode", path=hotp_path, expect=200) == {"code": hotp(KEY, 1), "counter": 1}
        assert call("nextOTPCode", "nextCode", path=hotp_path, expect=200) == {"code": hotp(KEY, 2), "counter": 2}
        assert screen.until(lambda m: m["type"] == "otpAccount" and m["otpAccount"]["change"] == "advanced",
                            "the advanced account")["otpAccount"]["account"]["counter"] == 2
        assert call("getOTPCode", path=hotp_path, expect=200) == {"code": hotp(KEY, 2), "counter": 2}
        call("nextOTPCode", "timeBased", path=totp_path, body={}, expect=409)
        api.call("nextOTPCode", path=hotp_path, body={"counter": 9}, expect=400)

        # Every refusal answers its code and keeps nothing.
        held = accounts()
        for example, status in (("sameKeyAgain", 409), ("badSecret", 400), ("unknownAlgorithm", 400),
                                ("hotpWithoutCounter", 400), ("privacyIDEAPush", 422)):
            call("startOutOfBand", example, path=path, expect=status)
            assert accounts() == held, f"{example} changed the accounts"
        for uri, status, code in (
                (f"otpauth://totp/x?secret={SECRET}&digits=7", 400, "OTPAUTH_INVALID_DIGITS"),
                (f"otpauth://totp/x?secret={SECRET}&period=5", 400, "OTPAUTH_INVALID_PERIOD"),
                ("otpauth://totp/x?secret=GEZDGNBV", 400, "OTPAUTH_SECRET_LENGTH"),
                ("otpauth://totp/x?issuer=ACME", 400, "OTPAUTH_MISSING_SECRET"),
                (f"otpauth://daypassword/x?secret={SECRET}", 400, "OTPAUTH_UNSUPPORTED_TYPE"),
                (f"otpauth://totp/x?secret={SECRET}&2step_salt=8", 400, "OTPAUTH_UNSUPPORTED_PARAMETER"),
                ("pia://pipush/PIPU0001", 422, "UNSUPPORTED_CODE")):
            for door in ("qr", "link"):
                refusal = call("startOutOfBand", path=path, body={door: uri}, expect=status)
                assert refusal["error"]["code"] == code and "sdkCode" not in refusal["error"], refusal
        assert accounts() == held
        api.call("startOutOfBand", "phoneNotFound", path={"id": NO_PHONE}, body=examples_value("startOutOfBand", "totpKeyURI"),
                 expect=404)
        api.call("listOTPAccounts", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
        api.call("getOTPCode", "phoneNotFound", path={"id": NO_PHONE, "account": linked["id"]}, expect=404)

        # Removal: the account and its key are gone; another phone's account is not this one's.
        other = new_phone(api, "Other OTP phone")
        api.call("deleteOTPAccount", "otpAccountNotFound", path={"id": other["id"], "account": linked["id"]}, expect=404)
        api.call("deleteOTPAccount", path=hotp_path, expect=204)
        assert screen.until(lambda m: m["type"] == "otpAccount" and m["otpAccount"]["change"] == "deleted",
                            "the deleted account")["otpAccount"]["account"]["id"] == linked["id"]
        for op, status in (("getOTPCode", 404), ("nextOTPCode", 404), ("deleteOTPAccount", 404)):
            body = {} if op == "nextOTPCode" else None
            assert api.call(op, path=hotp_path, body=body, expect=status)[1]["error"]["code"] == "OTP_ACCOUNT_NOT_FOUND"
        assert accounts() == [imported]
    finally:
        screen.close()
    for text in answers + [str(m) for m in screen.seen]:
        assert SECRET not in text and base64.b64encode(KEY).decode() not in text, "an answer carried the key"
    FINISHED.add("otp accounts")
