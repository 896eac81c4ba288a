"""Browser test of the phone's screens as an audience and a keyboard user follow them: a PIN pad
key takes each press (a click, a typed digit, the key activated from the keyboard) without a sign
of which key on the phone's own page, and the focused key shows its ring; the focus moves to the first action of each new screen (the enrolment's confirm
screen, the PIN pad, the result) but not out of a field being typed in beside the phone; a push
arriving over a finished flow's result slides over the home screen; and a reload brings back a
flow in progress but not a finished one's result.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pages import (
    PIN, call, click, confirm_with_pin, create_phone, find, open_console, open_payload, start_session, wait_for, wait_screen,
    wait_visible,
)

# Each key that takes the pressed state, as it is added: the key and its background then.
WATCH_PRESSES = """
window.presses = [];
new MutationObserver((records) => {
  for (const r of records)
    if (r.target.classList.contains("pin-key") && r.target.classList.contains("pressed"))
      window.presses.push({key: r.target.dataset.digit || r.target.id, background: getComputedStyle(r.target).backgroundColor});
}).observe(document.getElementById("screen"), {subtree: true, attributes: true, attributeFilter: ["class"]});
"""


def focused(driver):
    """The focused element: its id, else its digit (a PIN pad key), else its tag."""
    return driver.execute_script(
        "const e = document.activeElement; return e ? e.id || e.dataset.digit || e.tagName.toLowerCase() : null;")


def wait_focused(driver, expected, where):
    wait_for(driver, lambda d: focused(d) == expected, f"{where}: the focus is on {focused(driver)}, not {expected}")


def typed(driver, keys):
    """Keys typed as a keyboard types them: to the focused element."""
    ActionChains(driver).send_keys(keys).perform()


def start_enrolment(driver, windows, name):
    """Console: an enrol session; a new phone opens its QR text from its out-of-band box and shows
    the confirm screen. Returns the user id."""
    user_id = f"{name.lower()}-{uuid.uuid4().hex[:8]}"
    open_console(driver, windows)
    _, qr = start_session(driver, "enrol", user_id, f"{name} Example")
    create_phone(driver, windows, f"{name} phone {user_id[-8:]}")
    open_payload(driver, qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    return user_id


def enrol_to_result(driver, windows, name):
    """An enrolment from the console to the phone's result screen, driven by pointer clicks."""
    start_enrolment(driver, windows, name)
    confirm_with_pin(driver, new_pin=True)


def test_a_pin_key_takes_each_press_without_a_sign_and_shows_its_focus(driver, windows):
    start_enrolment(driver, windows, "Pia")
    click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    driver.execute_script(WATCH_PRESSES)
    resting = driver.execute_script("return getComputedStyle(document.querySelector('.pin-key[data-digit=\"9\"]')).backgroundColor")

    click(driver, '.pin-key[data-digit="2"]')  # a pointer's click
    typed(driver, "6")  # a digit typed on the keyboard
    wait_for(driver, lambda d: find(d, "#pin-dots").get_attribute("data-count") == "2", "the pad took neither press")
    # a key reached by Tab and activated by the keyboard, its focus ring shown
    driver.execute_script("document.querySelector('.pin-key[data-digit=\"3\"]').focus()")
    typed(driver, Keys.TAB)
    wait_focused(driver, "4", "Tab from key 3")
    ring = driver.execute_script("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth];")
    assert ring[0] != "none" and ring[1] != "0px", f"the focused key shows no ring: {ring}"
    typed(driver, Keys.SPACE)
    wait_for(driver, lambda d: find(d, "#pin-dots").get_attribute("data-count") == "3", "the focused key did not press")

    presses = driver.execute_script("return window.presses")
    assert [p["key"] for p in presses] == ["2", "6", "4"], presses
    # on its own page a press gives no sign of the key (nextAuth's advice); the stage shows it
    # (test_stage_projector.py)
    assert all(p["background"] == resting for p in presses), f"a pressed key shows on the phone's own page: {presses}"
    # the pressed state lasts a moment only
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, ".pin-key.pressed"), "a key stays pressed")


def test_the_focus_moves_to_each_new_screens_first_action(driver, windows):
    start_enrolment(driver, windows, "Finn")
    # from the out-of-band box's Open to the confirm screen's first button
    wait_focused(driver, "cancel", "the confirm screen")
    typed(driver, Keys.TAB)
    wait_focused(driver, "confirm", "Tab from Cancel")
    # the page scrolled away from the phone stays where it is when the focus moves
    driver.execute_script("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    scrolled = driver.execute_script("return window.scrollY")
    typed(driver, Keys.ENTER)

    # the PIN pad's first key; the PIN typed and sent by Enter, from the keyboard alone
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    wait_focused(driver, "1", "the PIN pad")
    assert driver.execute_script("return window.scrollY") == scrolled, "focusing the new screen scrolled the page"
    typed(driver, PIN + Keys.ENTER)
    wait_visible(driver, '#pin-pad[data-phase="repeat"]', "Enter did not send the first entry")
    typed(driver, PIN + Keys.ENTER)

    wait_screen(driver, "DONE")
    wait_focused(driver, "home", "the result screen")


def test_a_push_over_a_result_slides_over_the_home_screen(driver, windows):
    enrol_to_result(driver, windows, "Paul")
    phone_id = find(driver, "body").get_attribute("data-phone-id")
    token = call(driver, "GET", f"/api/phones/{phone_id}")["fcmToken"]
    # typing beside the phone: the new screen under the banner leaves the focus there
    box = find(driver, "#oob-text")
    box.send_keys("half typed")

    sent = call(driver, "POST", "/v1/projects/authphone/messages:send",
                {"message": {"token": token, "notification": {"title": "Over the result"}}})
    assert "name" in sent, sent
    wait_visible(driver, "#push-banner", "the push shows no banner")
    wait_screen(driver, "HOME")
    assert focused(driver) == "oob-text", f"the new screen took the focus from the box typed in: {focused(driver)}"
    box.send_keys(" on")
    assert box.get_property("value") == "half typed on"
    # the result stays gone when the banner goes
    click(driver, "#push-banner-dismiss")
    wait_for(driver, lambda d: not find(d, "#push-banner").is_displayed(), "the banner did not go")
    wait_screen(driver, "HOME")


def test_a_reload_brings_back_a_flow_in_progress_but_not_a_result(driver, windows):
    start_enrolment(driver, windows, "Rita")
    driver.refresh()
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")  # in progress: as it was
    confirm_with_pin(driver, new_pin=True)

    driver.refresh()
    wait_screen(driver, "HOME")
    assert not driver.find_elements(By.CSS_SELECTOR, "#flow-done"), "the result came back after the reload"
