"""Browser test of the stage on a projector's screen: at 1280×720 and 1024×768 the phone's text
is still at least 12 px (its screen gets shorter rather than its text smaller), nothing scrolls
the page, the phone's next button and the card's outcome are in view, and *Use your phone* is a
menu of the bar, not a card below the stage. The pictures go to docs/guide.md.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

import pytest

from pages import PIN, call, choose_pin, click, open_stage, rect, screenshot, visible, wait_for, wait_visible
from test_phone_screens_focus import WATCH_PRESSES
from test_stage import new_phone_on_stage, on_phone
from test_stage_presenter import assert_in_view, assert_no_page_scroll, finished, phone_step, sent, viewport

# The size a reader sees: the font size times the phone's zoom.
SEEN_SIZE = "const text = document.querySelector(arguments[0]); return parseFloat(getComputedStyle(text).fontSize) * text.currentCSSZoom"


@pytest.mark.parametrize("width,height", [(1280, 720), (1024, 768)])
def test_the_stage_is_readable_on_a_projector(driver, width, height):
    viewport(driver, width, height)
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    call(driver, "PUT", "/api/backend/server-flags", {"flags": {"ENABLE_OTP": False}})
    step = f"{width}×{height}"

    sent(driver, "enrol", f"projector-{uuid.uuid4().hex[:10]}", "#open-on-phone", display_name="Paula Projector")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "CONFIRM", "#confirm", f"{step}: create account")
    for css in ("#enrol-display-name", "#screen p"):
        seen = driver.execute_script(SEEN_SIZE, css)
        assert seen >= 12, f"{step}: the phone's {css} is {seen:.1f} px"
    driver.switch_to.default_content()
    screenshot(driver, f"stage-{width}x{height}.png")
    # the card takes what its content needs; the phone its full width
    card = rect(driver, "#session-card")
    assert card["right"] - card["left"] <= 640, card
    on_phone(driver, phone_id)
    click(driver, "#confirm")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR", "#pin-ok", f"{step}: choose a PIN")
    # on the stage each key shows its press, for the audience
    driver.execute_script(WATCH_PRESSES)
    resting = driver.execute_script("return getComputedStyle(document.querySelector('.pin-key[data-digit=\"9\"]')).backgroundColor")
    click(driver, '.pin-key[data-digit="2"]')
    wait_for(driver, lambda d: d.execute_script("return window.presses.length"), "the key took no press")
    pressed = driver.execute_script("return window.presses")[0]
    assert pressed["key"] == "2" and pressed["background"] != resting, f"the press does not show: {pressed}, at rest {resting}"
    click(driver, "#pin-delete")
    choose_pin(driver, PIN)
    finished(driver, phone_id, "Enrolled", f"{step}: done")

    # your own phone: a menu of the bar, opened over the stage, on screen
    assert not visible(driver, "#own-phone-choice"), "your own phone's section is open before it is asked for"
    click(driver, "#stage-own-phone summary")
    choice = wait_visible(driver, "#own-phone-choice", "the menu does not open your own phone's section")
    assert choice.find_elements("css selector", "option"), "the menu lists no phone"
    box = rect(driver, "#stage-own-phone .stage-menu-panel")
    assert box["left"] >= 0 and box["right"] <= width, f"{step}: the menu is off screen: {box}"
    assert rect(driver, "#stage-own-phone summary")["bottom"] <= rect(driver, ".stage-grid")["top"], "the menu's button is not in the bar"
    click(driver, "#stage-own-phone summary")
    assert_no_page_scroll(driver, f"{step}: the menu closed")
    assert_in_view(driver, "#session-outcome", f"{step}: the outcome")
