"""Browser test of the stage as a presenter uses it: at a laptop's 1366×900 the whole demo fits
the window (no page scroll), the phone's next button and the session card's outcome in view
together at each step; at a phone's 390×844 the card sits above the phone, its text readable.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import re
import uuid

from selenium.webdriver.common.by import By

from pages import BASE_URL, PIN, animations_done, call, choose_pin, click, enter_pin, find, open_stage, screenshot, visible, wait_for, wait_screen, wait_visible
from test_stage import new_phone_on_stage, on_phone, outcome, start


def viewport(driver, width, height, mobile=False):
    """The page's viewport exactly width × height CSS pixels, as a laptop's or a phone's window
    (mobile: a phone's, whose scroll bars take no room)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


# The element's box in the top page's viewport, from inside a frame as well as outside it.
IN_VIEW = """
const box = document.querySelector(arguments[0]).getBoundingClientRect();
let left = box.left, top = box.top;
for (let w = window; w.frameElement; w = w.parent) {
  const frame = w.frameElement.getBoundingClientRect();
  left += frame.left; top += frame.top;
}
return {left, top, right: left + box.width, bottom: top + box.height, width: window.top.innerWidth, height: window.top.innerHeight};
"""


# A code of the SDK or the backend as the audience would see it: PIN_BLOCKED, hasEnabledBiometrics,
# a raw status. Addresses and long tokens (a deep link) are left out first; a product's name
# spelt like code (privacyIDEA) is a name.
SDK_CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z]*\b|\bloggedin\b")
PRODUCT_NAMES = {"privacyIDEA"}
CODE_FREE_TEXT = """
return document.body.innerText.split(/\\s+/).filter((word) => !word.includes("://") && word.length < 40).join(" ");
"""


# The cells of a table (arguments[0]) whose text overflows them, or has a word split across lines.
BROKEN_CELLS = """
const broken = [];
for (const cell of document.querySelectorAll(arguments[0] + ' td, ' + arguments[0] + ' th')) {
  if (cell.scrollWidth > cell.clientWidth + 1) broken.push('overflows: ' + cell.textContent);
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.textContent.matchAll(/[A-Za-z]+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      if (range.getClientRects().length > 1) broken.push('split: ' + word[0]);
    }
  }
}
return broken;
"""


def assert_plain_words(driver, step):
    """The visible text of the page (a closed Details toggle hides its codes) has no SDK code."""
    found = [code for code in SDK_CODE.findall(driver.execute_script(CODE_FREE_TEXT)) if code not in PRODUCT_NAMES]
    assert not found, f"{step}: codes in what the audience sees: {found}"


def assert_audience_sees_words(driver, phone_id, step):
    """The stage and the phone on it, in plain words."""
    driver.switch_to.default_content()
    assert_plain_words(driver, f"{step} (the stage)")
    on_phone(driver, phone_id)
    assert_plain_words(driver, f"{step} (the phone)")
    driver.switch_to.default_content()


def assert_in_view(driver, css, step):
    box = driver.execute_script(IN_VIEW, css)
    inside = box["left"] >= 0 and box["top"] >= 0 and box["right"] <= box["width"] and box["bottom"] <= box["height"]
    assert inside, f"{step}: {css} is outside the {box['width']}×{box['height']} window: {box}"


def assert_no_page_scroll(driver, step):
    driver.switch_to.default_content()
    extra = driver.execute_script("return document.scrollingElement.scrollHeight - innerHeight")
    assert extra <= 0, f"{step}: the stage scrolls by {extra} px"


def phone_step(driver, phone_id, state, interaction, button, step):
    """On the phone: waits for the screen, then asserts its button and the card are both in view.
    Ends inside the phone's frame."""
    driver.switch_to.default_content()
    on_phone(driver, phone_id)
    wait_screen(driver, state, interaction)
    assert_in_view(driver, button, step)
    driver.switch_to.default_content()
    assert_no_page_scroll(driver, step)
    assert_in_view(driver, "#session-status", step)
    on_phone(driver, phone_id)


def sent(driver, kind, user_id, button, **fields):
    """Starts a session and sends it to the phone with the card's button, all in view."""
    start(driver, kind, user_id, **fields)
    assert_no_page_scroll(driver, f"{kind} waiting")
    for css in ("#session-countdown", "#open-on-phone", "#push-to-phone"):
        assert_in_view(driver, css, f"{kind} waiting")
    click(driver, button)


def finished(driver, phone_id, text, step):
    driver.switch_to.default_content()
    on_phone(driver, phone_id)
    wait_screen(driver, "DONE")
    assert_in_view(driver, "#home", step)
    driver.switch_to.default_content()
    outcome(driver, text)
    assert_no_page_scroll(driver, step)
    assert_in_view(driver, "#session-outcome", step)
    assert_audience_sees_words(driver, phone_id, step)
    on_phone(driver, phone_id)
    click(driver, "#home")
    wait_screen(driver, "HOME")
    driver.switch_to.default_content()


def visual_hash(driver, grid):
    """The colours of a visual hash's 16 cells and its fingerprint, once drawn."""
    wait_for(driver, lambda d: find(d, f"{grid}-fingerprint").text.strip(), f"{grid} has no fingerprint")
    cells = driver.find_elements(By.CSS_SELECTOR, f"{grid} .vh-cell")
    return [c.get_attribute("data-color") for c in cells], find(driver, f"{grid}-fingerprint").text


def test_the_stage_fits_a_laptop_at_every_step(driver):
    viewport(driver, 1366, 900)
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    user_id = f"presenter-{uuid.uuid4().hex[:10]}"
    call(driver, "PUT", "/api/backend/server-flags", {"flags": {"ENABLE_OTP": False}})

    sent(driver, "enrol", user_id, "#open-on-phone", display_name="Petra Presenter")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "CONFIRM", "#confirm", "enrol: create account")
    on_phone_hash = visual_hash(driver, "#visual-hash")
    driver.switch_to.default_content()
    assert visual_hash(driver, "#session-visual-hash-grid") == on_phone_hash, "the card's visual hash is not the phone's"
    assert_in_view(driver, "#session-visual-hash-grid", "enrol: the visual hash")
    on_phone(driver, phone_id)
    click(driver, "#confirm")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR", "#pin-ok", "enrol: choose a PIN")
    choose_pin(driver, PIN)
    finished(driver, phone_id, "Enrolled", "enrol: done")

    sent(driver, "login", user_id, "#push-to-phone")
    on_phone(driver, phone_id)
    banner = wait_visible(driver, "#push-banner", "the pushed login's banner is not shown")
    assert_in_view(driver, "#push-banner", "login: the banner")
    wait_for(driver, lambda d: animations_done(d, "#push-banner"), "banner still sliding in")
    banner.click()
    driver.switch_to.default_content()
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "CONFIRM", "#confirm", "login: log in")
    click(driver, "#confirm")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "#pin-ok", "login: the PIN")
    enter_pin(driver, PIN)
    finished(driver, phone_id, "Logged in", "login: done")

    sent(driver, "transaction", user_id, "#open-on-phone", transaction="Pay 12.00 EUR to the presenter")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "CONFIRM", "#confirm", "transaction: open")
    click(driver, "#confirm")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "CONFIRM_TRANSACTION", "#confirm", "transaction: sign")
    assert "Pay 12.00 EUR to the presenter" in find(driver, "#screen").text
    click(driver, "#confirm")
    phone_step(driver, phone_id, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", "#pin-ok", "transaction: the PIN")
    enter_pin(driver, PIN)
    finished(driver, phone_id, "Signed", "transaction: done")
    screenshot(driver, "stage-1366x900.png")

    # the phone's own page at the same size: its timeline's labels whole, not cut to "…/redeem 200 · 7.3…"
    driver.get(f"{BASE_URL}/phones/{phone_id}")
    wait_for(driver, lambda d: int(find(d, "#phone-timeline").get_attribute("data-count") or 0) >= 9, "the phone's timeline is not shown")
    cut = driver.execute_script("return [...document.querySelectorAll('#phone-timeline .tl-label')].filter((l) => l.scrollWidth > l.clientWidth).map((l) => l.textContent)")
    assert not cut, f"timeline labels cut off: {cut}"
    # and its flow log's cells whole: no word broken across lines, no header over the next one
    broken = driver.execute_script(BROKEN_CELLS, "#flow-log")
    assert not broken, f"flow log cells broken or overflowing: {broken}"


def test_the_stage_on_a_phone_puts_the_card_above_a_readable_phone(driver):
    viewport(driver, 390, 844, mobile=True)
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    start(driver, "enrol", f"small-{uuid.uuid4().hex[:10]}", display_name="Sam Small")
    card = driver.execute_script(IN_VIEW, "#session-card")
    frame = driver.execute_script(IN_VIEW, ".stage-phone iframe")
    assert card["bottom"] <= frame["top"], f"the card is not above the phone: {card}, {frame}"
    overflow = driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the stage scrolls sideways by {overflow} px"
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    # the size a reader sees: the font size times the phone's zoom
    seen = driver.execute_script("const text = document.querySelector('#enrol-display-name'); return parseFloat(getComputedStyle(text).fontSize) * text.currentCSSZoom")
    assert seen >= 12, f"the phone's text is {seen:.1f} px at 390 px"
    box = driver.execute_script(IN_VIEW, ".phone")
    assert box["left"] >= 0 and box["right"] <= box["width"], f"the phone is cut off: {box}"
    driver.switch_to.default_content()
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", find(driver, "#session-card"))
    screenshot(driver, "stage-390x844.png")
    assert visible(driver, "#session-card")


def test_the_cards_phone_choice_keeps_its_width_beside_a_notice(driver):
    """The card's Phone select keeps its phone's name readable when a notice comes beside it."""
    viewport(driver, 1366, 900)
    open_stage(driver)
    new_phone_on_stage(driver)
    start(driver, "enrol", f"notice-{uuid.uuid4().hex[:10]}", display_name="Nora Notice")
    wait_for(driver, lambda d: find(d, "#session-phone").get_attribute("value"), "no phone chosen on the card")
    width = "return document.querySelector('#session-phone').getBoundingClientRect().width"
    before = driver.execute_script(width)
    click(driver, "#push-to-phone")
    wait_for(driver, lambda d: find(d, "#session-send-note").text.startswith("Pushed to"), "no notice after the push")
    after = driver.execute_script(width)
    assert after >= before, f"the Phone select shrank from {before} to {after} px beside the notice"
