"""privacyIDEA's TOTP and HOTP tokens: enrolled in a real privacyIDEA 3.14 (privacyidea_server.py),
their otpauth:// key URIs well-formed, and their codes accepted by its /validate/check.

For now the codes are computed here (RFC 4226, RFC 6238), which proves the harness and the client;
once the phone imports otpauth URIs, the codes come from the phone.
"""

import base64
import hmac
import struct
import time
import urllib.parse

import pytest

# (privacyIDEA's hashlib, the URI's algorithm, digits, period)
TOTP_KINDS = [("sha1", "SHA1", 6, 30), ("sha256", "SHA256", 8, 30), ("sha512", "SHA512", 6, 60)]


def key_uri(uri, kind, serial):
    """The URI's parameters, after checking its scheme, kind and label."""
    parts = urllib.parse.urlsplit(uri)
    assert (parts.scheme, parts.netloc) == ("otpauth", kind), uri
    assert urllib.parse.unquote(parts.path) == f"/{serial}", uri
    parameters = dict(urllib.parse.parse_qsl(parts.query, strict_parsing=True))
    assert parameters["issuer"] == "privacyIDEA", uri
    return parameters


def code(secret, counter, algorithm, digits):
    """RFC 4226's HOTP value (RFC 6238 with the time step as the counter)."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", counter), algorithm.lower()).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


@pytest.mark.parametrize("hashlib_name, algorithm, digits, period", TOTP_KINDS)
def test_a_totp_code_is_accepted_and_a_wrong_one_refused(privacyidea, hashlib_name, algorithm, digits, period):
    user = privacyidea.new_user("totp")
    serial, uri = privacyidea.admin.init_totp(user, hashlib=hashlib_name, digits=digits, period=period)
    parameters = key_uri(uri, "totp", serial)
    assert parameters.get("algorithm", "SHA1") == algorithm, uri
    assert (int(parameters["digits"]), int(parameters["period"])) == (digits, period), uri
    assert privacyidea.admin.token(serial).rollout_state == "enrolled"

    right = code(parameters["secret"], int(time.time()) // period, algorithm, digits)
    wrong = str((int(right) + 1) % 10**digits).zfill(digits)
    refused = privacyidea.admin.validate_check(user, wrong)
    assert (refused.accepted, refused.authentication) == (False, "REJECT"), refused
    accepted = privacyidea.admin.validate_check(user, right)
    assert (accepted.accepted, accepted.authentication) == (True, "ACCEPT"), accepted


def test_hotp_codes_are_accepted_in_counter_order(privacyidea):
    user = privacyidea.new_user("hotp")
    serial, uri = privacyidea.admin.init_hotp(user, hashlib="sha256", digits=8)
    parameters = key_uri(uri, "hotp", serial)
    assert (parameters["algorithm"], parameters["digits"]) == ("SHA256", "8"), uri
    # privacyIDEA's URIs say counter=1 while its own counter starts at 0: it accepts codes a few
    # steps ahead (its window), so the code for the URI's counter is right too.
    first = int(parameters["counter"])

    for counter in range(first, first + 3):
        check = privacyidea.admin.validate_check(user, code(parameters["secret"], counter, "SHA256", 8))
        assert check.accepted, f"counter {counter}: {check}"
    replayed = privacyidea.admin.validate_check(user, code(parameters["secret"], first, "SHA256", 8))
    assert (replayed.accepted, replayed.authentication) == (False, "REJECT"), replayed
