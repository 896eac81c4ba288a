"""Browser tests of refusals said at once, where they were said late: a login or transaction
for a user with no account (the session card's outcome, not an expiry minutes later), and a new
PIN that breaks the policy (the PIN screen's own message line, at its first entry), and an announced line the console's form
cannot read (named as it was typed).

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

import pytest

from pages import (
    BASE_URL, PIN, call, click, enter_pin, fill_starter, find, go_home, new_phone, open_console, open_stage,
    screenshot, start_session, visible, wait_for, wait_screen, wait_visible,
)


def test_a_login_or_transaction_for_a_user_with_no_account_says_so_at_once(driver):
    open_stage(driver)
    nobody = "nobody-" + uuid.uuid4().hex[:8]
    for kind, text in (("login", None), ("transaction", "Pay 10 EUR to ACME")):
        fill_starter(driver, kind, nobody, transaction=text)
        # at once: well within a second or two, not at the session's expiry
        wait_for(driver, lambda d: find(d, "#session-card").get_attribute("data-refused") == "true", f"the {kind} was not refused on the card", timeout=5)
        outcome = wait_visible(driver, "#session-outcome", "the refusal is not the card's outcome")
        assert outcome.get_attribute("data-status") == "refused"
        assert outcome.text.startswith("No account:") and nobody in outcome.text and kind in outcome.text, outcome.text
        assert find(driver, "#session-status").get_attribute("data-status") == "refused"
        assert "No account for this user" in find(driver, "#session-meta").text
        assert find(driver, "#session-meta details code").get_attribute("textContent") == "USER_NOT_ENROLLED"
        for css in ("#session-countdown", "#session-send", "#session-qr", "#session-deep-link", "#session-timeline"):
            assert not visible(driver, css), f"{css} is shown for a session that was never started"
        assert not visible(driver, "#session-error"), "the refusal went to the form, not the card"
        screenshot(driver, f"refused-{kind}.png")

    # a session that starts puts the card back as it was
    fill_starter(driver, "enrol", nobody)
    wait_for(driver, lambda d: find(d, "#session-card").get_attribute("data-session-id"), "the enrolment is not on the card")
    assert find(driver, "#session-card").get_attribute("data-refused") is None
    assert find(driver, "#session-status").get_attribute("data-status") == "pending"
    wait_visible(driver, "#session-qr", "the QR code is not back")
    assert not visible(driver, "#session-outcome")


def test_a_new_pin_that_breaks_the_policy_is_refused_at_its_first_entry(driver):
    driver.get(BASE_URL + "/")
    phone = new_phone(driver, "Policy " + uuid.uuid4().hex[:6])
    enrol = call(driver, "POST", "/api/backend/sessions", {"type": "enrol", "userId": "pia-" + uuid.uuid4().hex[:8]})
    driver.get(f"{BASE_URL}/phones/{phone['id']}")
    wait_screen(driver, "HOME")
    call(driver, "POST", f"/api/phones/{phone['id']}/oob", {"qr": enrol["qrText"]})
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")

    for common in ("123456", "112233"):
        enter_pin(driver, common)
        message = wait_for(driver, lambda d: find(d, '#pin-message[data-kind="error"]'), "no refusal in the PIN screen's message line", timeout=5)
        assert "too easy to guess" in message.text, message.text
        assert common not in message.text
        # asked to choose again, not to repeat it; no toast over the title
        assert find(driver, "#pin-pad").get_attribute("data-phase") == "choose"
        assert find(driver, "#pin-title").text == "Choose a PIN"
        assert not visible(driver, "#toast"), "the refusal came as a toast"
    screenshot(driver, "pin-policy-refused.png")

    # a good PIN is checked too, then asked again and set
    enter_pin(driver, PIN)
    wait_visible(driver, '#pin-pad[data-phase="repeat"]', "a good PIN was not asked again")
    assert find(driver, "#pin-message").text == ""
    enter_pin(driver, PIN)
    wait_screen(driver, "DONE")

    # the Nevis PIN change (old and new on one screen): the new PIN is checked at its first entry too
    go_home(driver)
    call(driver, "PUT", f"/api/phones/{phone['id']}/settings", {"pinChangeStyle": "nevis"})
    call(driver, "POST", f"/api/phones/{phone['id']}/flows", {"type": "CHANGE_PIN"})
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    enter_pin(driver, PIN)
    wait_visible(driver, '#pin-pad[data-phase="new"]', "the new PIN was not asked for")
    enter_pin(driver, "111111")
    message = wait_for(driver, lambda d: find(d, '#pin-message[data-kind="error"]'), "no refusal of the new PIN", timeout=5)
    assert "too easy to guess" in message.text, message.text
    assert find(driver, "#pin-pad").get_attribute("data-phase") == "new"
    enter_pin(driver, "739184")
    wait_visible(driver, '#pin-pad[data-phase="repeat"]', "a good new PIN was not asked again")
    enter_pin(driver, "739184")
    wait_screen(driver, "DONE")


@pytest.mark.parametrize("line", ["Shop:", "Shop", ": ACME"])
def test_an_announced_line_without_key_or_value_is_named_as_typed(driver, line):
    open_console(driver, {})
    with pytest.raises(AssertionError) as refusal:
        start_session(driver, "login", "pia-" + uuid.uuid4().hex[:8], announce="Amount: 10 EUR\n" + line)
    assert f'Write each announced line as "Key: value" (not "{line.strip()}").' in str(refusal.value), str(refusal.value)
