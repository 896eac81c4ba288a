"""Browser test: otpauth:// key URIs pasted into the phone's out-of-band box become one-time code
accounts on the home screen, showing the codes Python's own hmac computes (RFC 6238 for TOTP,
with its countdown running into the next period's code; RFC 4226 for HOTP, moved on by "Next"),
each change in the flow log without the key, and deleted again.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import base64
import hashlib
import hmac
import struct
import time
import uuid

from selenium.webdriver.common.by import By

from pages import click, create_phone, find, flow_log_text, open_payload, wait_for, wait_visible

SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # RFC 4226's key, "12345678901234567890"
KEY = base64.b32decode(SECRET)


def hotp(counter, digits=6):
    """RFC 4226 §5.3: the HMAC-SHA1 of the counter, dynamically truncated."""
    mac = hmac.new(KEY, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return str((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 10 ** digits).zfill(digits)


def totp(at, period):
    """RFC 6238: HOTP of the time step."""
    return hotp(int(at) // period)


def row(kind):
    return f'#otp-accounts .otp-account[data-kind="{kind}"]'


def shown_code(driver, kind):
    return find(driver, row(kind) + " .otp-code").get_attribute("data-code")


def test_key_uris_become_accounts_with_the_codes_python_computes(driver, windows):
    suffix = uuid.uuid4().hex[:8]
    create_phone(driver, windows, f"OTP phone {suffix}")
    # a new phone's apps hold nothing: one line says how to add an account, no empty sections
    assert find(driver, "#home-empty").is_displayed()
    assert not find(driver, "#otp-section").is_displayed() and not find(driver, "#privacyidea-section").is_displayed()

    # TOTP, 10 s steps: the code of now, and when the step ends the next one, asked for by the page.
    open_payload(driver, f"otpauth://totp/ACME%20Co:alice-{suffix}?secret={SECRET}&issuer=ACME%20Co&period=10")
    wait_visible(driver, row("totp"), "the TOTP account is not listed")
    assert f"alice-{suffix}" in find(driver, row("totp")).text and "ACME Co" in find(driver, row("totp")).text
    assert find(driver, row("totp") + " .otp-countdown-bar")
    wait_for(driver, lambda d: shown_code(d, "totp") == totp(time.time(), 10), "the TOTP code is not RFC 6238's of now")
    first = shown_code(driver, "totp")
    wait_for(driver, lambda d: shown_code(d, "totp") != first, "the code did not move on at the step's end", timeout=15)
    wait_for(driver, lambda d: shown_code(d, "totp") == totp(time.time(), 10), "the next code is not RFC 6238's")
    shown = find(driver, row("totp") + " .otp-code").text
    assert shown == shown_code(driver, "totp")[:3] + " " + shown_code(driver, "totp")[3:], shown

    # HOTP from counter 0: the counter's code until "Next" moves it on.
    open_payload(driver, f"otpauth://hotp/bob-{suffix}?secret={SECRET}&counter=0")
    wait_visible(driver, row("hotp"), "the HOTP account is not listed")
    wait_for(driver, lambda d: shown_code(d, "hotp") == hotp(0), "the HOTP code is not RFC 4226's for counter 0")
    hotp_id = find(driver, row("hotp")).get_attribute("data-account-id")
    click(driver, f"#otp-next-{hotp_id}")
    wait_for(driver, lambda d: shown_code(d, "hotp") == hotp(1), "Next did not show counter 1's code")
    assert find(driver, row("hotp")).get_attribute("data-counter") == "1"

    # The flow log has each change, and neither the key nor a code.
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#flow-log .otp-row")) == 3, "the flow log misses a change")
    changes = [e.get_attribute("data-change") for e in driver.find_elements(By.CSS_SELECTOR, "#flow-log .otp-row")]
    assert changes == ["advanced", "imported", "imported"], changes
    log = flow_log_text(driver)
    assert f"ACME Co: alice-{suffix}" in log and f"bob-{suffix}" in log
    assert SECRET not in log and hotp(1) not in log and hotp(0) not in log

    # A bad key URI is refused in the box, and nothing is added.
    open_payload(driver, "otpauth://totp/x?secret=GEZDGNBV1")
    wait_for(driver, lambda d: find(d, "#oob-error").get_attribute("data-code") == "OTPAUTH_INVALID_SECRET", "no refusal shown")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#otp-accounts .otp-account")) == 2

    # Delete asks for a second tap; the row goes.
    click(driver, f"#otp-delete-{hotp_id}")
    assert find(driver, f"#otp-delete-{hotp_id}").text == "Tap again: delete"
    click(driver, f"#otp-delete-{hotp_id}")
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, row("hotp")), "the HOTP account was not deleted")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#otp-accounts .otp-account")) == 1
