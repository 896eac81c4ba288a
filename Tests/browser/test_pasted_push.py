"""Browser test: a push pasted into the phone's out-of-band box arrives as a real push does (the
notification banner, the inbox), and with "open at once" starts its login straight away.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import base64
import json
import uuid

from selenium.webdriver.common.by import By

from pages import (
    call, click, confirm_with_pin, create_phone, enrol_by_qr, find, go_home, open_console, open_payload, screenshot, start_session,
    visible, wait_console_status, wait_for, wait_screen, wait_visible,
)


def push_json(qr_text, title):
    """The login's push as a developer copies it from a device log: FCM's data map and a banner."""
    payload = json.loads(base64.urlsafe_b64decode(qr_text + "=" * (-len(qr_text) % 4)))
    data = {
        "nma_data": json.dumps(payload["nma_data"], separators=(",", ":")),
        "nma_data_content_type": payload["nma_data_content_type"],
        "nma_data_version": payload["nma_data_version"],
    }
    return json.dumps({"data": data, "notification": {"title": title, "body": "Pasted from a device log"}})


def inbox_ids(driver):
    return [e.get_attribute("data-message-id") for e in driver.find_elements(By.CSS_SELECTOR, "#inbox .inbox-item")]


def log_in_on_the_phone(driver, windows, sid):
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
    confirm_with_pin(driver)
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, sid, "loggedin")


def test_a_pasted_push_goes_through_the_banner_and_the_inbox(driver, windows):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"dana-{suffix}"
    open_console(driver, windows)
    enrol_by_qr(driver, windows, user_id, "Dana Example", f"Pasted push {suffix}")

    # The device panel shows the installation id the token carries.
    fid = find(driver, "#device-fid").get_property("textContent")
    assert len(fid) == 22, fid
    assert find(driver, "#device-fcm-token").get_attribute("title").startswith(fid + ":APA91b")

    # Pasted: the banner announces it and it waits in the inbox; nothing starts yet.
    driver.switch_to.window(windows["console"])
    sid, qr_text = start_session(driver, "login", user_id)
    driver.switch_to.window(windows["phone"])
    wait_screen(driver, "HOME")
    assert not find(driver, "#oob-open-at-once").is_selected(), "open at once is on by default"
    open_payload(driver, push_json(qr_text, "Pasted login"))
    banner = wait_visible(driver, "#push-banner", "the pasted push shows no notification")
    message_id = banner.get_attribute("data-message-id")
    # the banner slides in: its title is in view once it has
    wait_for(driver, lambda d: "Pasted login" in banner.text, f"the banner shows no title: {banner.text}")
    wait_for(driver, lambda d: inbox_ids(d) == [message_id], "the pasted push is not in the inbox")
    wait_screen(driver, "HOME")
    assert find(driver, "#oob-text").get_property("value") == "", "the box kept the pasted push"
    screenshot(driver, "pasted-push.png")
    click(driver, "#push-banner")
    log_in_on_the_phone(driver, windows, sid)
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    wait_for(driver, lambda d: inbox_ids(d) == [], "the opened push is still in the inbox")

    # Open at once: the login starts without a notification to tap, and leaves no trace.
    driver.switch_to.window(windows["console"])
    sid, qr_text = start_session(driver, "login", user_id)
    driver.switch_to.window(windows["phone"])
    wait_screen(driver, "HOME")
    click(driver, "#oob-open-at-once")
    open_payload(driver, push_json(qr_text, "Opened at once"))
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert not visible(driver, "#push-banner"), "a push opened at once still shows its banner"
    log_in_on_the_phone(driver, windows, sid)
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    wait_for(driver, lambda d: inbox_ids(d) == [], "a push opened at once stays in the inbox")

    # A pasted push without a payload is refused where it was pasted, and nothing arrives.
    open_payload(driver, json.dumps({"data": {"k": "v"}}))
    error = wait_visible(driver, "#oob-error", "a push without a payload was not refused")
    assert "nma_data" in error.text, error.text
    assert inbox_ids(driver) == [] and not visible(driver, "#push-banner")


def test_a_push_pasted_as_a_device_log_shows_it_goes_to_the_inbox_too(driver, windows):
    """iOS's userInfo (data keys beside `aps` and `gcm.message_id`) and Android's data map on its
    own, as copied from a device log, are pushes too: banner and inbox, not QR text."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"ivo-{suffix}"
    open_console(driver, windows)
    enrol_by_qr(driver, windows, user_id, "Ivo Example", f"Device log {suffix}")
    for count, shape in enumerate(("ios", "android"), start=1):
        driver.switch_to.window(windows["console"])
        _, qr_text = start_session(driver, "login", user_id)
        data = json.loads(push_json(qr_text, "unused"))["data"]
        pasted = {**data, "aps": {"alert": {"title": f"From {shape}", "body": "userInfo"}}, "gcm.message_id": "1700000000000001"} \
            if shape == "ios" else data
        driver.switch_to.window(windows["phone"])
        wait_screen(driver, "HOME")
        open_payload(driver, json.dumps(pasted))
        banner = wait_visible(driver, "#push-banner", f"the pasted {shape} push shows no notification")
        if shape == "ios":
            wait_for(driver, lambda d: "From ios" in banner.text, f"the banner shows no title: {banner.text}")
        wait_for(driver, lambda d: len(inbox_ids(d)) == count, f"the pasted {shape} push is not in the inbox: {inbox_ids(driver)}")
        wait_screen(driver, "HOME")


def test_a_privacyidea_push_the_phone_cannot_take_leaves_no_notification(driver, windows):
    """privacyIDEA's challenge (its nonce, serial and signature) is opened as it arrives, whatever
    the phone's settings; one for a token the phone does not hold is refused and leaves the inbox,
    as privacyIDEA's app drops a push it cannot take: no banner stays and the inbox is empty."""
    phone_id = create_phone(driver, windows, f"Two apps {uuid.uuid4().hex[:8]}")
    wait_screen(driver, "HOME")
    challenge = {"nonce": "N" * 32, "serial": "PIPU0001", "signature": "S", "title": "privacyIDEA", "question": "Log in?",
                 "sslverify": "1", "url": "https://pi.example/ttype/push"}
    open_payload(driver, json.dumps({"data": challenge, "notification": {"title": "Log in?"}}))
    wait_for(driver, lambda d: call(d, "GET", f"/api/phones/{phone_id}/inbox")["messages"] == [], "the refused push stays in the inbox")
    wait_for(driver, lambda d: not visible(d, "#push-banner") and inbox_ids(d) == [], "the refused push left a notification")
