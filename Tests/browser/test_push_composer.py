"""Browser test of the console's push composer and push log: a login push composed from the
template for an enrolled phone, sent through the FCM endpoint, opened from the phone's banner and
completed; a message with two targets refused with the rule named; a push sent meanwhile by a
script (urllib, as curl would); all three in the push log with their outcomes; the composer's last
message back after a reload.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import json
import urllib.request
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pages import (
    BASE_URL, animations_done, backend_session, call, click, confirm_with_pin, enrol_by_qr, find, new_phone, open_console, rect, screenshot,
    wait_for, wait_screen, wait_visible,
)

COMPOSER = "#push-composer"
LOG = "#push-log"


def composer(driver, name):
    return find(driver, f'{COMPOSER} [data-composer="{name}"]')


def log_row(driver, outcome, target=None):
    """The newest push log row with this outcome (and target), read whole at once, or False. The
    log redraws while a test reads it: a row kept as an element may be gone the next moment (a
    stale element), so `wait_for` reads it again instead."""
    for row in driver.find_elements(By.CSS_SELECTOR, f'{LOG} tr.log-row[data-outcome="{outcome}"]'):
        if target is None or row.get_attribute("data-target") == target:
            def linked(css, attribute):
                return [link.get_attribute(attribute) for link in row.find_elements(By.CSS_SELECTOR, css)]
            return {"message_id": row.get_attribute("data-message-id"), "text": row.text,
                    "content": row.get_attribute("textContent"),
                    "phone_ids": linked("a.log-phone", "data-phone-id"),
                    "session_ids": linked("a.log-session", "data-session-id")}
    return False


def send_by_script(token):
    """A push as an outside sender posts it (curl's request, from Python)."""
    request = urllib.request.Request(
        f"{BASE_URL}/v1/projects/authphone/messages:send", method="POST",
        data=json.dumps({"message": {"token": token, "notification": {"title": "From a script"}, "data": {"hello": "curl"}}}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["name"]


def test_compose_a_login_push_and_follow_it_in_the_log(driver, windows):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"carol-{suffix}"
    open_console(driver, windows)
    _, phone_id = enrol_by_qr(driver, windows, user_id, "Carol Example", f"Composer test {suffix}")
    token = call(driver, "GET", f"/api/phones/{phone_id}")["fcmToken"]
    scripted = send_by_script(token)  # the phone's screen is open: a banner

    # Console: the login template for the user, to the enrolled phone.
    driver.switch_to.window(windows["console"])
    driver.refresh()  # the new phone is listed
    wait_visible(driver, f'{COMPOSER}[data-ready="true"]', "composer not ready")
    Select(composer(driver, "template")).select_by_value("login")
    composer(driver, "template-user").send_keys(user_id)
    click(driver, f'{COMPOSER} [data-composer="use-template"]')
    wait_for(driver, lambda d: find(d, COMPOSER).get_attribute("data-session-id"), "no session made for the template")
    login_sid = find(driver, COMPOSER).get_attribute("data-session-id")
    # the user's phone is the target, ticked by the template
    wait_for(driver, lambda d: find(d, f'{COMPOSER} input[data-phone-id="{phone_id}"]').is_selected(), "the user's phone is not ticked")
    preview = composer(driver, "preview").text
    assert preview.startswith("POST /v1/projects/authphone/messages:send"), preview
    assert '"nma_data"' in preview and token in preview
    assert "authphone push" in find(driver, f'{COMPOSER} [data-line="authphone push"]').text
    assert find(driver, f'{COMPOSER} [data-line="curl"]').text.startswith("curl -sS -X POST")
    click(driver, f'{COMPOSER} [data-composer="send"]')
    answer = wait_visible(driver, f'{COMPOSER} .composer-answer[data-outcome="ok"]', "no answer to the send")
    assert "projects/authphone/messages/" in answer.text, answer.text
    sent_id = answer.text.split("/")[-1].strip()

    # Phone: the banner opens the login, which completes with the PIN.
    driver.switch_to.window(windows["phone"])
    banner = wait_visible(driver, f'#push-banner[data-message-id="{sent_id}"]', "the composed push's banner not shown")
    assert user_id in banner.text
    wait_for(driver, lambda d: animations_done(d, "#push-banner"), "banner still sliding in")
    click(driver, "#push-banner")
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
    confirm_with_pin(driver)
    # the backend did not push it, and says so
    assert (backend_session(driver, login_sid)["status"], backend_session(driver, login_sid)["delivery"]) == ("loggedin", "external")

    # Console: the same message with a second target is FCM's INVALID_ARGUMENT, the rule named.
    driver.switch_to.window(windows["console"])
    click(driver, f'{COMPOSER} [data-composer="add-target"]')
    find(driver, f'{COMPOSER} [data-row="target"] input').send_keys("news")
    click(driver, f'{COMPOSER} [data-composer="send"]')
    refused = wait_visible(driver, f'{COMPOSER} .composer-answer[data-outcome="INVALID_ARGUMENT"]', "no refusal shown")
    assert "400" in refused.text and "Exactly one of token, topic, condition or fid" in refused.text, refused.text
    assert refused.text.count("INVALID_ARGUMENT") == 1, f"the code said twice: {refused.text}"
    assert "Rule: A message has exactly one target" in find(driver, f"{COMPOSER} .composer-rule").text

    # The log: all three, with their outcomes, linked to the phone and the session.
    opened = wait_for(driver, lambda d: log_row(d, "opened", token), "the login push is not logged as opened")
    assert opened["message_id"] == sent_id
    assert opened["phone_ids"][:1] == [phone_id]
    assert opened["session_ids"][:1] == [login_sid]
    assert "127.0.0.1" in opened["text"]
    refusal = wait_for(driver, lambda d: log_row(d, "INVALID_ARGUMENT", token), "the refusal is not logged")
    assert "Exactly one of token" in refusal["content"]
    by_script = wait_for(driver, lambda d: log_row(d, "banner", token), "the scripted push is not logged")
    assert by_script["message_id"] == scripted.split("/")[-1]
    rows = wait_for(driver, lambda d: [r.get_attribute("data-message-id") for r in d.find_elements(By.CSS_SELECTOR, f"{LOG} tr.log-row")], "no log rows")
    assert rows.index(refusal["message_id"]) < rows.index(sent_id) < rows.index(by_script["message_id"]), "not newest first"
    driver.set_window_size(1280, 1900)
    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView()", COMPOSER)
    screenshot(driver, "push-composer-and-log.png")
    driver.set_window_size(1280, 900)

    # The filter by outcome keeps only the refusal.
    Select(find(driver, f'{LOG} [data-log="outcome"]')).select_by_value("INVALID_ARGUMENT")
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{LOG} tr.log-row")) == 1 and log_row(d, "INVALID_ARGUMENT"), "the outcome filter did not apply")

    # The last message survives a reload: it is kept on the server.
    driver.refresh()
    wait_visible(driver, f'{COMPOSER}[data-ready="true"]', "composer not ready after the reload")
    Select(composer(driver, "template")).select_by_value("last")
    click(driver, f'{COMPOSER} [data-composer="use-template"]')
    wait_for(driver, lambda d: find(d, f'{COMPOSER} [data-row="target"] input').get_attribute("value") == "news", "the last message did not come back")
    assert find(driver, f'{COMPOSER} input[data-phone-id="{phone_id}"]').is_selected()


def test_an_opened_log_message_stays_open_as_the_log_follows(driver, windows):
    """The log keeps up with new messages without redrawing the ones shown: a message opened
    to read stays open (the same row) when the next one arrives."""
    open_console(driver, windows)
    token = new_phone(driver, f"Log reader {uuid.uuid4().hex[:8]}")["fcmToken"]
    first = send_by_script(token).split("/")[-1]
    row = f'{LOG} tr.log-row[data-message-id="{first}"]'
    click(driver, f"{row} details summary")
    # the message by its notification's title, its id beside it
    summary = find(driver, f"{row} details summary")
    assert summary.get_property("textContent") == "From a script" and first.startswith(summary.get_attribute("title"))
    opened = find(driver, f"{row} details")
    assert opened.get_attribute("open") is not None
    second = send_by_script(token).split("/")[-1]
    wait_visible(driver, f'{LOG} tr.log-row[data-message-id="{second}"]', "the log did not follow the second message")
    assert opened.get_attribute("open") is not None, "the opened message was closed (its row redrawn)"


def test_a_refused_data_value_is_named_by_its_place_in_the_message(driver, windows):
    """FCM names a data entry by its place in the message as written: the second entry is data[1]."""
    open_console(driver, windows)
    phone_id = new_phone(driver, f"Data order {uuid.uuid4().hex[:8]}")["id"]
    driver.refresh()  # the new phone is listed
    wait_visible(driver, f'{COMPOSER}[data-ready="true"]', "composer not ready")
    click(driver, f'{COMPOSER} input[data-phone-id="{phone_id}"]')
    Select(composer(driver, "data-mode")).select_by_value("json")
    data = composer(driver, "data-json")
    data.clear()
    data.send_keys('{"zeta": "x", "alpha": 5}')
    click(driver, f'{COMPOSER} [data-composer="send"]')
    refused = wait_visible(driver, f'{COMPOSER} .composer-answer[data-outcome="INVALID_ARGUMENT"]', "no refusal shown")
    assert "message.data[1].value" in refused.text, refused.text


def test_send_is_in_view_wherever_the_composer_is_read(driver, windows):
    """At a laptop's 1366×900 the composer is taller than the window: its Send stays at the
    window's foot while any part of the form is in view."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1366, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    open_console(driver, windows)
    wait_visible(driver, f'{COMPOSER}[data-ready="true"]', "composer not ready")
    for part in (COMPOSER, f"{COMPOSER} textarea[data-composer='android']"):
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", find(driver, part))
        box = rect(driver, f'{COMPOSER} [data-composer="send"]')
        assert 0 <= box["top"] and box["bottom"] <= 900, f"Send is out of view with {part} at the top: {box}"
