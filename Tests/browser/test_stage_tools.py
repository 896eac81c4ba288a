"""Browser test of recovering on the stage: a PIN blocked by wrong tries unblocked as the
backend's administrator would, a fault set and cleared from the stage's faults menu, and the
whole demo reset to one new phone, all without leaving the stage.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import contextlib
import re
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pages import (
    PIN, call, click, confirm_with_pin, enter_pin, find, open_stage, rect, visible, wait_for, wait_screen, wait_visible,
)
from test_stage import new_phone_on_stage, on_phone, outcome, start
from test_stage_presenter import assert_audience_sees_words

WRONG_PIN = "999888"


def login_on_phone(driver, phone_id, user_id):
    """Starts a login on the stage, opens it on the phone and confirms it: the phone asks for the PIN."""
    driver.switch_to.default_content()
    start(driver, "login", user_id)
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")


def block_with_wrong_pins(driver):
    """Three wrong PINs on the phone's PIN pad, each counted, the third ending the flow blocked."""
    for attempt in (1, 2):
        enter_pin(driver, WRONG_PIN)
        wait_for(driver, lambda d: (shown := visible(d, "#pin-attempts")) and shown.text == f"Failed attempt {attempt} of 3",
                 f"wrong try {attempt} not counted")
    enter_pin(driver, WRONG_PIN)
    wait_screen(driver, "ERROR")


def test_a_blocked_pin_is_unblocked_from_the_stage(driver):
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    user_id = f"blocked-{uuid.uuid4().hex[:10]}"
    call(driver, "PUT", "/api/backend/server-flags", {"flags": {"ENABLE_OTP": False}})
    start(driver, "enrol", user_id, display_name="Bea Blocked")
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver, new_pin=True)
    click(driver, "#home")

    login_on_phone(driver, phone_id, user_id)
    block_with_wrong_pins(driver)
    assert find(driver, "#flow-error .screen-title").text == "PIN blocked after too many wrong tries"
    # the way out the stage offers (Unblock PIN) is the one the screen names first
    assert "administrator can unblock it" in find(driver, "#flow-error-message").get_property("textContent")
    driver.switch_to.default_content()
    outcome(driver, "Failed: PIN blocked after too many wrong tries")
    # in plain words on both, the codes one click away
    assert_audience_sees_words(driver, phone_id, "a blocked PIN")
    click(driver, "#session-meta details summary")
    assert visible(driver, "#session-meta details code").text == "PIN_BLOCKED"
    on_phone(driver, phone_id)
    click(driver, "#flow-error summary")
    assert visible(driver, "#flow-error-code").text == "PIN_BLOCKED"
    click(driver, "#home")
    driver.switch_to.default_content()

    # the starter still names the user: one click unblocks the PIN, and the right PIN logs in again
    click(driver, "#stage-unblock")
    wait_for(driver, lambda d: find(d, "#stage-note").text == f"The PIN of {user_id} is unblocked: the phone can use it again.", "the PIN was not unblocked")
    login_on_phone(driver, phone_id, user_id)
    assert not visible(driver, "#pin-attempts"), "the wrong tries still count after the unblock"
    enter_pin(driver, PIN)
    wait_screen(driver, "DONE")
    driver.switch_to.default_content()
    outcome(driver, "Logged in")
    # the note said what it had to: the next session on the card takes it away
    assert find(driver, "#stage-note").get_property("textContent") == ""

    # a user with no account: said, nothing changes
    user = find(driver, "#session-user")
    user.clear()
    user.send_keys("nobody-" + uuid.uuid4().hex[:6])
    click(driver, "#stage-unblock")
    error = wait_visible(driver, "#stage-error", "no refusal for a user without an account")
    assert "has no account here" in error.text, error.text


def test_faults_from_the_stage_and_a_reset_of_the_demo(driver):
    open_stage(driver)
    old_phone = new_phone_on_stage(driver)
    start(driver, "enrol", f"reset-{uuid.uuid4().hex[:10]}", display_name="Rita Reset")

    # the console's faults form, dropped down from the stage's bar
    assert not visible(driver, "#fault-form"), "the faults are not folded away"
    click(driver, "#stage-faults summary")
    try:
        click(driver, "#fault-add")  # the backend unreachable, the form's first choice
        fault_id = wait_visible(driver, '#faults .fault-row[data-kind="unreachable"]', "the fault is not listed").get_attribute("data-fault-id")
        assert any(str(f["id"]) == fault_id for f in call(driver, "GET", "/api/faults")["faults"]), "the fault is not in force"
        row = f'#faults .fault-row[data-fault-id="{fault_id}"]'
        click(driver, f"{row} .fault-remove")  # the list redraws: found afresh
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, row), "the fault was not removed")
    finally:
        call(driver, "DELETE", "/api/faults")  # a failure here must not leave the backend unreachable for the next test
    click(driver, "#stage-faults summary")

    # a reset asks for a second click, then starts the demo again with one new phone
    click(driver, "#stage-reset")
    assert find(driver, "#stage-reset").text == "Click again: erase everything"
    assert call(driver, "GET", f"/api/phones/{old_phone}")["id"] == old_phone, "the first click already reset"
    click(driver, "#stage-reset")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".stage-phone") and
             d.find_element(By.CSS_SELECTOR, ".stage-phone").get_attribute("data-phone-id") != old_phone, "no new phone on stage")
    phones = call(driver, "GET", "/api/phones")["phones"]
    assert [p["id"] for p in phones] == [find(driver, ".stage-phone").get_attribute("data-phone-id")], phones
    assert not visible(driver, "#session-card"), "the reset demo still shows a session"
    # its one phone is on stage: no empty choice of phones to put on, no dead button beside New phone
    assert not visible(driver, "#stage-phone-choice") and not visible(driver, "#stage-show-phone")
    assert visible(driver, "#stage-new-phone")


def test_the_card_says_when_the_backend_retries_a_push(driver):
    """The push service refuses twice, asking for a second's wait (a fault): the card says the backend is
    trying again, then that the push went out. (A refusal without Retry-After is tried again after
    a wait of full jitter, which can be shorter than the card's half second.)"""
    open_stage(driver)
    new_phone_on_stage(driver)
    start(driver, "enrol", f"retried-{uuid.uuid4().hex[:10]}", display_name="Rhea Retried")
    call(driver, "POST", "/api/faults", {"target": "push", "kind": "status", "status": 503, "retryAfter": 1, "count": 2})
    click(driver, "#push-to-phone")
    wait_for(driver, lambda d: find(d, "#session-send-note").text == "The push service has not answered: the backend is trying again…",
             "the card does not say the backend is retrying the push")
    wait_for(driver, lambda d: find(d, "#session-dispatch").get_attribute("data-dispatch") == "dispatched", "the retried push was not sent")
    assert find(driver, "#session-send-note").text.startswith("Pushed to"), find(driver, "#session-send-note").text


@contextlib.contextmanager
def login_while_unreachable(driver, name):
    """An enrolled phone on stage, the backend unreachable for it, and a login opened on it: inside
    the block the phone keeps trying (the caller is in its frame); the fault goes after it."""
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    user_id = f"{name.split()[0].lower()}-{uuid.uuid4().hex[:10]}"
    start(driver, "enrol", user_id, display_name=name)
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver, new_pin=True)
    click(driver, "#home")
    driver.switch_to.default_content()
    call(driver, "POST", "/api/faults", {"target": "phone", "phoneId": phone_id, "kind": "unreachable"})
    try:
        start(driver, "login", user_id)
        click(driver, "#open-on-phone")
        on_phone(driver, phone_id)
        yield phone_id
    finally:
        driver.switch_to.default_content()
        call(driver, "DELETE", "/api/faults")


def test_a_retry_series_is_one_line_on_the_phone(driver):
    """The backend unreachable for the phone on stage: the phone says so in words, its retries one
    line that updates (the SDK's error one click away), not a line a retry."""
    with login_while_unreachable(driver, "Uma Unreached") as phone_id:
        wait_screen(driver, "STARTING", extra='[data-connection-error="true"]')
        attempt = lambda d: "trying again" in find(d, "#session-retry").text and find(d, "#session-retry").text.split(";")[0]
        first = wait_for(driver, attempt, "the phone's retries are not shown")
        wait_for(driver, lambda d: attempt(d) not in (False, first), "no further retry")
        assert find(driver, "#screen").text.count("trying again") == 1, find(driver, "#screen").text
        assert_audience_sees_words(driver, phone_id, "a retry series")


def test_clearing_the_faults_lets_a_waiting_phone_connect_at_once(driver):
    """The backend unreachable for the phone, which waits out a back-off of seconds before its
    next try: Clear all in the stage's Faults menu, and the login arrives at once."""
    with login_while_unreachable(driver, "Cleo Cleared") as phone_id:

        def long_wait(d):
            said = re.search(r"trying again in (\d+) s", find(d, "#session-retry").text)
            return said and int(said.group(1)) >= 4
        # the back-off grows with full jitter: a wait of 4 s or more comes within a few tries
        wait_for(driver, long_wait, "the phone never waited 4 s or more", timeout=90)
        driver.switch_to.default_content()
        click(driver, "#stage-faults summary")
        click(driver, "#faults-clear")
        on_phone(driver, phone_id)
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM", timeout=2.5)


def test_the_faults_menu_opens_on_screen_on_a_narrow_phone(driver):
    """At 390 px the stage's Faults menu drops down within the screen, and Add fault is reached."""
    size = driver.get_window_size()
    driver.set_window_size(390, 844)
    try:
        open_stage(driver)
        click(driver, "#stage-faults summary")
        width = driver.execute_script("return document.documentElement.clientWidth")
        for css in ("#stage-faults .stage-menu-panel", "#fault-add"):
            box = rect(driver, css)
            assert box["left"] >= 0 and box["right"] <= width, f"{css} is off screen at 390 px: {box}, width {width}"
        Select(find(driver, "#fault-target")).select_by_value("sms")
        Select(find(driver, "#fault-kind")).select_by_value("dropText")
        click(driver, "#fault-add")
        wait_visible(driver, '#faults .fault-row[data-kind="dropText"]', "Add fault was not reached")
    finally:
        call(driver, "DELETE", "/api/faults")
        driver.set_window_size(size["width"], size["height"])
