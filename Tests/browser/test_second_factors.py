"""Browser test of the second factors: the phone's own flows from its home screen (the PIN
changed both ways, biometrics added and lost to a new fingerprint), an enrolment that sets the PIN
and biometrics together, and the wrong-PIN policy the console sets.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.support.ui import Select

from pages import (
    PIN, choose_pin, click, create_phone, enrol_by_qr, enter_pin, find, flow_log_text, go_home, open_console,
    open_payload, screenshot, start_session, visible, wait_console_status, wait_for, wait_screen, wait_visible,
)


def login_from_console(driver, windows, user_id):
    """Console: a login for the user; the phone opens it and confirms; returns the session id."""
    driver.switch_to.window(windows["console"])
    sid, qr = start_session(driver, "login", user_id)
    driver.switch_to.window(windows["phone"])
    if visible(driver, "#home"):
        click(driver, "#home")
    open_payload(driver, qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    return sid


def log_in_by_biometric(driver, windows, user_id):
    """A login from the console that the phone's biometric prompt, opening first, completes."""
    login_sid = login_from_console(driver, windows, user_id)
    wait_visible(driver, "#bio-prompt", "the biometric prompt did not open")
    click(driver, "#bio-match")
    wait_screen(driver, "DONE")
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, login_sid, "loggedin")


def test_change_pin_and_biometrics(driver, windows):
    """The phone's own flows from its home screen: CHANGE_PIN (nextAuth's way, then Nevis's),
    ADD_BIOMETRICS with the simulated sensor, a login by biometric, and a new fingerprint that
    turns biometrics off at their next use (BIOMETRICS_REMOVED, then the PIN)."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"erin-{suffix}"
    new_pin, nevis_pin = "739105", "582047"

    open_console(driver, windows)
    enrol_by_qr(driver, windows, user_id, "Erin Example", f"Second factors {suffix}")

    # CHANGE_PIN: the old PIN, then the new one twice
    click(driver, "#start-change-pin")
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-flow-type="CHANGE_PIN"]')
    assert not visible(driver, "#use-biometrics"), "biometrics offered before they were added"
    enter_pin(driver, PIN)
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    assert "Choose a new PIN" in find(driver, "#pin-title").text
    choose_pin(driver, new_pin)
    wait_screen(driver, "DONE")
    assert "PIN changed" in find(driver, "#flow-done").text

    # ADD_BIOMETRICS: the PIN, then the sensor (no match first)
    go_home(driver)
    assert find(driver, "#has-enabled-biometrics").text == "no"
    click(driver, "#start-add-biometrics")
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-flow-type="ADD_BIOMETRICS"]')
    enter_pin(driver, new_pin)
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    wait_visible(driver, "#set-biometrics")
    click(driver, "#use-biometrics")
    wait_visible(driver, "#bio-prompt")
    screenshot(driver, "biometric-prompt.png")
    click(driver, "#bio-no-match")
    wait_for(driver, lambda d: find(d, "#toast").get_attribute("data-code") == "BIOMETRIC_NOT_RECOGNISED", "no match not reported")
    click(driver, "#use-biometrics")
    click(driver, "#bio-match")
    wait_screen(driver, "DONE")
    assert "Biometrics added" in find(driver, "#flow-done").text
    go_home(driver)
    wait_for(driver, lambda d: find(d, "#has-enabled-biometrics").text == "yes", "biometrics not shown as enabled")
    wait_visible(driver, "#start-remove-biometrics")

    # a login by biometric: the prompt comes first
    log_in_by_biometric(driver, windows, user_id)

    # another fingerprint: BIOMETRICS_REMOVED at the next use, then the PIN
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    click(driver, "#sensor-enrol")
    wait_for(driver, lambda d: find(d, "#sensor-state").get_attribute("data-features") == "2", "fingerprint not enrolled")
    login_from_console(driver, windows, user_id)
    click(driver, "#bio-match")
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-prev-result="BIOMETRICS_REMOVED"]')
    assert "fingerprints changed" in find(driver, "#pin-message").text
    assert not visible(driver, "#use-biometrics")
    screenshot(driver, "biometrics-removed.png")
    enter_pin(driver, new_pin)
    wait_screen(driver, "DONE")
    go_home(driver)
    wait_for(driver, lambda d: find(d, "#has-enabled-biometrics").text == "no", "biometrics still shown as enabled")

    # the Nevis PIN change, chosen in the settings: old and new on one screen
    Select(find(driver, "#setting-pin-change-style")).select_by_value("nevis")
    wait_for(driver, lambda d: find(d, "#setting-pin-change-style").get_property("value") == "nevis"
             and find(d, "#setting-pin-change-style").is_enabled(), "setting not saved")
    click(driver, "#start-change-pin")
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR", '[data-flow-type="CHANGE_PIN"]')
    assert "current PIN" in find(driver, "#pin-title").text
    enter_pin(driver, new_pin)
    wait_visible(driver, '#pin-pad[data-phase="new"]')
    enter_pin(driver, nevis_pin)
    wait_visible(driver, '#pin-pad[data-phase="repeat"]')
    enter_pin(driver, nevis_pin)
    wait_screen(driver, "DONE")
    assert "PIN changed" in find(driver, "#flow-done").text
    # the server by its name, not a placeholder
    assert find(driver, "#flow-done .screen-subtitle").text == "AuthPhone demo backend"
    for pin in (PIN, new_pin, nevis_pin):
        assert pin not in flow_log_text(driver)
    screenshot(driver, "pin-changed.png")


def test_enrol_sets_pin_and_biometrics_together(driver, windows):
    """Seeds 000 and 002: on a phone whose sensor has a feature enrolled, the enrolment's
    SET_SECOND_FACTOR offers biometrics beside the new PIN, and both are set in one input; the
    next login then opens with the biometric prompt."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"gina-{suffix}"

    open_console(driver, windows)
    enrol_sid, enrol_qr = start_session(driver, "enrol", user_id, "Gina Example")
    create_phone(driver, windows, f"Both factors {suffix}")
    open_payload(driver, enrol_qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    wait_visible(driver, '#pin-pad[data-phase="choose"]')
    choice = wait_visible(driver, "#set-with-biometrics")
    assert not choice.is_selected(), "biometrics are the user's choice, not a default"
    click(driver, "#set-with-biometrics")
    screenshot(driver, "enrol-pin-and-biometrics.png")
    choose_pin(driver, PIN)
    wait_screen(driver, "DONE")
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, enrol_sid, "enrolled")

    driver.switch_to.window(windows["phone"])
    go_home(driver)
    wait_for(driver, lambda d: find(d, "#has-enabled-biometrics").text == "yes", "biometrics not set with the PIN")
    log_in_by_biometric(driver, windows, user_id)


def test_wrong_pin_policy_from_the_console(driver, windows):
    """The console switches the Second Factor Server to the Nevis table and to a custom one, and
    refuses waits that are not whole seconds. Ends on the default."""
    open_console(driver, windows)
    try:
        wait_for(driver, lambda d: "blocked at failure 3" in find(d, "#policy-current").text, "the policy in force is not shown")
        Select(find(driver, "#policy-preset")).select_by_value("nevis")
        assert find(driver, "#policy-penalties").get_property("value") == "0, 0, 60, 180"
        assert find(driver, "#policy-penalties").get_property("readOnly")
        click(driver, "#policy-save")
        wait_for(driver, lambda d: find(d, "#policy-current").text.endswith("waits 60 s after 3, 180 s after 4"), "Nevis policy not applied")
        assert find(driver, "#policy-form").get_attribute("data-preset") == "nevis"

        Select(find(driver, "#policy-preset")).select_by_value("custom")
        for css, value in (("#policy-max-attempts", "4"), ("#policy-penalties", "0, 5, x")):
            field = find(driver, css)
            field.clear()
            field.send_keys(value)
        click(driver, "#policy-save")
        wait_visible(driver, "#policy-error", "waits that are not numbers were not refused")
        assert "60 s after 3" in find(driver, "#policy-current").text, "a refused policy changed the one in force"
        find(driver, "#policy-penalties").clear()
        find(driver, "#policy-penalties").send_keys("0, 5, 0, 9")
        click(driver, "#policy-save")
        wait_visible(driver, "#policy-error", "four waits before a block at 4 were not refused")
        wait_for(driver, lambda d: "at most 3 failures" in find(d, "#policy-error").text, "the server's reason is not shown")
        find(driver, "#policy-penalties").clear()
        find(driver, "#policy-penalties").send_keys("0, 5")
        click(driver, "#policy-save")
        wait_for(driver, lambda d: find(d, "#policy-current").text.endswith("blocked at failure 4; waits 5 s after 2"), "custom policy not applied")
        assert not visible(driver, "#policy-error")
        screenshot(driver, "console-policy.png")
    finally:
        Select(find(driver, "#policy-preset")).select_by_value("nextAuth")
        click(driver, "#policy-save")
        wait_for(driver, lambda d: find(d, "#policy-form").get_attribute("data-preset") == "nextAuth", "default not restored")
