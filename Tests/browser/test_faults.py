"""Browser test of faults set on the console for one phone: a backend answering 503 that the
phone's retries get through, shown attempt by attempt; and a backend it cannot reach, where the
phone offers the offline OTP that the console types in for the pending login.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pages import (
    backend_session, click, enrol_by_qr, find, flow_log_text, open_console, open_payload, screenshot, start_session,
    visible, wait_console_status, wait_for, wait_screen, wait_visible,
)


def add_phone_fault(driver, phone_id, kind, fields=()):
    """Console: a fault of `kind` for one phone through the fault form, its (css, value) fields
    filled in; waits until the fault is listed."""
    Select(find(driver, "#fault-target")).select_by_value("phone")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#fault-phone option[value="{phone_id}"]'), "phone missing from the fault form")
    Select(find(driver, "#fault-phone")).select_by_value(phone_id)
    Select(find(driver, "#fault-kind")).select_by_value(kind)
    for css, value in fields:
        field = find(driver, css)
        field.clear()
        field.send_keys(value)
    click(driver, "#fault-add")
    wait_visible(driver, f'#faults .fault-row[data-kind="{kind}"]', "the fault is not listed")


def test_retry_in_progress_with_a_fault(driver, windows):
    """Console: the backend answers 503 (Retry-After 2 s) to one phone, twice. The phone renames
    itself: the screen shows the fault, each attempt and the countdown to the next, then success."""
    suffix = uuid.uuid4().hex[:10]
    open_console(driver, windows)
    _, phone_id = enrol_by_qr(driver, windows, f"frank-{suffix}", "Frank Example", f"Retry test {suffix}")

    driver.switch_to.window(windows["console"])
    add_phone_fault(driver, phone_id, "status", (("#fault-status", "503"), ("#fault-retry-after", "2"), ("#fault-count", "2")))
    assert "answers 503" in find(driver, "#faults").text

    driver.switch_to.window(windows["phone"])
    wait_visible(driver, "#fault-strip", "the phone does not show the fault")
    Select(find(driver, "#device-retry-policy")).select_by_value("constant")
    name = find(driver, "#device-name")
    name.clear()
    name.send_keys(f"Frank's phone {suffix}")
    click(driver, "#device-rename")
    wait_visible(driver, '#operation-banner[data-state="waiting"]', "no retry shown in progress")
    wait_for(driver, lambda d: "of 4 in" in find(d, "#operation-line").text, "no countdown to the next attempt")
    screenshot(driver, "retry-in-progress.png")
    wait_for(driver, lambda d: find(d, "#operation-banner").get_attribute("data-state") == "succeeded", "the change never succeeded", timeout=30)
    assert find(driver, "#operation-banner").get_attribute("data-attempts") == "3"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#flow-log .operation-row")) >= 4
    wait_for(driver, lambda d: not visible(d, "#fault-strip"), "the used-up fault is still shown")
    wait_for(driver, lambda d: find(d, "#home-phone-name").text == f"Frank's phone {suffix}", "the new name is not shown")

    # local data: removing the account asks for a second tap, then it is gone on both sides
    account_id = find(driver, "#local-accounts .local-account").get_attribute("data-account-id")
    click(driver, f"#remove-account-{account_id}")
    assert "Tap again" in find(driver, f"#remove-account-{account_id}").text
    assert find(driver, "#local-accounts .local-account"), "removed on the first tap"
    click(driver, f"#remove-account-{account_id}")
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#accounts .account"), "the account is still listed")


def test_offline_otp_when_the_backend_is_unreachable(driver, windows):
    """The offline OTP (docs/behaviour.md#offline-otp): the backend made unreachable for one phone; a login QR scanned on it shows the
    connection error with the countdown; "Get OTP now" shows the code, which the console types in
    for the pending login once ENABLE_OTP is set: the session is logged in, marked otplogin."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"olga-{suffix}"
    open_console(driver, windows)
    _, phone_id = enrol_by_qr(driver, windows, user_id, "Olga Example", f"OTP test {suffix}")

    driver.switch_to.window(windows["console"])
    add_phone_fault(driver, phone_id, "unreachable")
    sid, login_qr = start_session(driver, "login", user_id)

    driver.switch_to.window(windows["phone"])
    open_payload(driver, login_qr)
    wait_screen(driver, "STARTING", extra='[data-connection-error="true"]')
    wait_for(driver, lambda d: "offered in" in find(d, "#otp-countdown").text, "no countdown to the OTP offer")
    wait_for(driver, lambda d: "attempt" in find(d, "#session-retry").text.lower(), "the phone's retries are not shown")
    assert "cannot be reached" in find(driver, "#screen").text
    # the flow diagram shows the scanned session's start, not the enrolment that ended before it
    wait_visible(driver, '#flow-diagram[data-flow-type="SESSION"] .fd-node[data-node="STARTING"][data-status="processing"]',
                 "the diagram does not show the session's start")
    assert not driver.find_elements(By.CSS_SELECTOR, '#flow-diagram .fd-node[data-status="done"]'), "the enrolment's end is still drawn"
    wait_for(driver, lambda d: "OTP offered" in find(d, '#flow-diagram .fd-node[data-node="STARTING"]').text, "the diagram does not say the OTP is offered")
    wait_visible(driver, '#flow-diagram .fd-node[data-node="STARTING"] .fd-retry', "the diagram does not count the phone's retries")
    screenshot(driver, "otp-countdown.png")
    click(driver, "#otp-now")
    # the phone's next retry redraws the screen: the account choice stays open through it
    tried = wait_for(driver, lambda d: find(d, "#session-retry").text, "no retry shown")  # a retry may redraw it meanwhile
    wait_for(driver, lambda d: find(d, "#session-retry").text.split(";")[0] != tried.split(";")[0], "no further retry")
    assert find(driver, "#otp-accounts .otp-account").is_displayed(), "the OTP account choice folded at a retry"
    click(driver, "#otp-accounts .otp-account")
    wait_screen(driver, "OTP")
    otp = find(driver, "#otp-code").text.strip()
    assert len(otp) == 13 and otp[6] == " ", otp
    screenshot(driver, "otp-shown.png")
    assert "SESSION" in flow_log_text(driver)

    driver.switch_to.window(windows["console"])
    # the OTP form is offered only while ENABLE_OTP is on
    box = find(driver, "#flag-enable-otp")
    if box.is_selected():
        click(driver, "#flag-enable-otp")
    wait_for(driver, lambda d: not find(d, "#flag-enable-otp").is_selected(), "ENABLE_OTP not cleared")
    wait_for(driver, lambda d: not visible(d, "#otp-form"), "the OTP form is offered while ENABLE_OTP is off")
    click(driver, "#flag-enable-otp")
    wait_for(driver, lambda d: find(d, "#flag-enable-otp").is_selected(), "ENABLE_OTP not set")
    wait_visible(driver, "#otp-form", "the console offers no OTP form for the pending login")
    field = find(driver, "#otp-input")
    field.clear()
    field.send_keys(otp.lower().replace(" ", "-"))
    click(driver, "#otp-login")
    wait_console_status(driver, sid, "loggedin")
    assert "OTP login" in find(driver, "#session-meta").text
    assert backend_session(driver, sid)["otplogin"] is True
    screenshot(driver, "otp-console.png")

    driver.switch_to.window(windows["phone"])
    click(driver, "#otp-done")
    wait_screen(driver, "HOME")
