"""Browser test of the ways in: enrol a user on a new phone, then log in with it by QR text (a
wrong PIN first), by push, by a picture of the QR code, by the pull fallback, and by a push the
phone opens at once.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By

from pages import (
    PIN, animations_done, click, confirm_with_pin, enrol_by_qr, enter_pin, find, flow_log_text, go_home,
    open_console, open_payload, rect, screenshot, start_session, visible, wait_console_status, wait_for, wait_screen,
    wait_visible,
)

WRONG_PIN = "999888"


def test_enrol_then_login(driver, windows):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"alice-{suffix}"
    display_name = "Alice Example"

    # 1. Console: start an enrol session. 2. A new phone, in a second tab, enrols with its QR text.
    open_console(driver, windows)
    enrol_sid, _ = enrol_by_qr(driver, windows, user_id, display_name, f"Browser test {suffix}")

    # 3. Console: start a login session for the same user.
    driver.switch_to.window(windows["console"])
    login_sid, login_qr = start_session(driver, "login", user_id)
    assert login_sid != enrol_sid

    driver.switch_to.window(windows["phone"])
    open_payload(driver, login_qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
    choices = driver.find_elements(By.CSS_SELECTOR, "input.account-choice[name='account']")
    assert choices, "no account to choose from"
    assert user_id in find(driver, "#account-choices").text
    assert any(c.is_selected() for c in choices), "no account pre-selected"
    click(driver, "#confirm")

    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    assert "Enter your PIN" in find(driver, "#pin-title").text
    enter_pin(driver, WRONG_PIN)
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-prev-result="PIN_FAIL"]')
    wait_for(driver, lambda d: "Wrong PIN" in find(d, "#pin-message").text, "wrong PIN not reported")
    assert "PIN_FAIL" in flow_log_text(driver)
    assert WRONG_PIN not in flow_log_text(driver)
    screenshot(driver, "login-wrong-pin.png")

    enter_pin(driver, PIN)
    wait_screen(driver, "DONE")
    assert "Logged in as" in find(driver, "#flow-done").text
    screenshot(driver, "login-done.png")

    driver.switch_to.window(windows["console"])
    wait_console_status(driver, login_sid, "loggedin")
    screenshot(driver, "console.png")


def test_login_by_push(driver, windows):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"bob-{suffix}"
    display_name = "Bob Example"

    open_console(driver, windows)
    enrol_by_qr(driver, windows, user_id, display_name, f"Push test {suffix}")
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#inbox .inbox-item"), "inbox not empty before the push")
    assert not visible(driver, "#push-banner"), "banner shown before any push"

    # Console: a login by push to all phones of the user.
    driver.switch_to.window(windows["console"])
    login_sid, _ = start_session(driver, "login", user_id, delivery="push", push_token="")
    dispatch = wait_visible(driver, "#session-dispatch", "push dispatch result not shown")
    assert dispatch.get_attribute("data-dispatch") == "dispatched", dispatch.text
    assert "The push was sent" in dispatch.text
    assert find(driver, "#session-dispatch details .dispatch-code").get_attribute("textContent") == "dispatched"
    delivery_cell = f'#sessions tr[data-session-id="{login_sid}"] .delivery-cell'
    wait_for(driver, lambda d: "push" in find(d, delivery_cell).text and "dispatched" in find(d, delivery_cell).text, "delivery column wrong")

    # Phone: the notification slides in at the top; it is also in the home screen's inbox.
    driver.switch_to.window(windows["phone"])
    banner = wait_visible(driver, "#push-banner", "notification banner not shown")
    message_id = banner.get_attribute("data-message-id")
    assert message_id
    # the banner names the app the push is for
    assert find(driver, "#push-banner-app").get_property("textContent") == "AuthPhone"
    assert user_id in banner.text, banner.text
    assert not visible(driver, "#push-count"), "count shown for a single notification"
    wait_visible(driver, f'#inbox .inbox-item[data-message-id="{message_id}"]', "notification missing from the inbox")
    wait_for(driver, lambda d: animations_done(d, "#push-banner"), "banner still sliding in")
    island, app_row = rect(driver, ".island"), rect(driver, "#push-banner .push-app")
    assert app_row["top"] >= island["bottom"], f"the island covers the banner's app row: {island} over {app_row}"
    screenshot(driver, "push-banner.png")

    click(driver, "#push-banner")
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
    wait_for(driver, lambda d: not visible(d, "#push-banner"), "banner still shown after opening it")
    assert user_id in find(driver, "#account-choices").text
    confirm_with_pin(driver)
    assert "Logged in as" in find(driver, "#flow-done").text
    assert PIN not in flow_log_text(driver)

    # the opened message has left the inbox
    go_home(driver)
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#inbox .inbox-item"), "opened notification still in the inbox")

    driver.switch_to.window(windows["console"])
    wait_console_status(driver, login_sid, "loggedin")
    # the card no longer asks to open the push on the phone
    assert find(driver, "#session-dispatch .dispatch-text").get_property("textContent") == "The push was sent."
    screenshot(driver, "console-push.png")


def test_picture_pull_and_open_at_once(driver, windows):
    """The other ways in: a screenshot of the console's QR code uploaded as the camera's picture,
    the pull fallback's "Check for requests", and a phone set to open pushes at once."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"carol-{suffix}"

    open_console(driver, windows)
    enrol_by_qr(driver, windows, user_id, "Carol Example", f"Ways in {suffix}")

    # A picture of the QR code, taken off the console, scanned by the phone.
    driver.switch_to.window(windows["console"])
    picture_sid, _ = start_session(driver, "login", user_id)
    picture = screenshot(driver, f"qr-{suffix}.png", "#session-qr")
    driver.switch_to.window(windows["phone"])
    wait_screen(driver, "HOME")
    find(driver, "#oob-image").send_keys(str(picture.resolve()))
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
    picture.unlink()
    click(driver, "#cancel")
    wait_screen(driver, "ERROR")
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, picture_sid, "canceled")
    # the outcome says it once ("Cancelled", not "Canceled: Cancelled")
    assert find(driver, "#session-outcome").get_property("textContent") == "Cancelled"

    # Pull: a login the phone was never told about, found by asking.
    pulled_sid, _ = start_session(driver, "login", user_id)
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    click(driver, "#pending-check")
    wait_visible(driver, f'#pending .pending-item[data-session-id="{pulled_sid}"]', "the waiting login was not found")
    screenshot(driver, "pending.png")
    click(driver, f'#pending .pending-item[data-session-id="{pulled_sid}"] .pending-open')
    confirm_with_pin(driver)
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, pulled_sid, "loggedin")

    # Open pushes at once: the login appears without a notification to tap.
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    click(driver, "#setting-open-pushes")
    wait_for(driver, lambda d: find(d, "#setting-open-pushes").is_selected() and find(d, "#setting-open-pushes").is_enabled(),
             "setting not saved")
    driver.switch_to.window(windows["console"])
    pushed_sid, _ = start_session(driver, "login", user_id, delivery="push", push_token="")
    driver.switch_to.window(windows["phone"])
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert not visible(driver, "#push-banner"), "a notification was shown though the phone opens pushes at once"
    click(driver, "#cancel")
    wait_screen(driver, "ERROR")
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, pushed_sid, "canceled")
