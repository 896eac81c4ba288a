"""Every screen at a laptop's 1366×900 and a phone's 390×844: the pages, a phone through an
enrolment, a login and a transaction, and the page of a phone that does not exist. None may
scroll sideways, and the layouts found broken before are checked where they broke (the flow
log's last column at 1366 px; the wrong-PIN policy form and the sessions' status at 390 px).
A full-page screenshot of each goes to artifacts/screens/ (AUTHPHONE_SCREENS), not committed.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import os
import pathlib
import uuid

import pytest
from selenium.webdriver.common.by import By

from pages import BASE_URL, PIN, call, choose_pin, click, find, go_home, new_phone, rect, wait_for, wait_screen, wait_visible

SCREENS = pathlib.Path(os.environ.get("AUTHPHONE_SCREENS", "artifacts/screens"))


def shoot(driver, name, width, height):
    """Asserts the page needs no sideways scrolling and keeps a full-page screenshot of it."""
    overflow = driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"{name} at {width} px scrolls sideways by {overflow} px"
    SCREENS.mkdir(parents=True, exist_ok=True)
    full = driver.execute_script("return document.scrollingElement.scrollHeight")
    driver.set_window_size(width, min(max(full, height), 6000))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(SCREENS / f"{name}-{width}.png"))
    driver.set_window_size(width, height)


def open_and_confirm(driver, phone, session, then, names, width, height):
    """The phone opens the session's QR text and confirms it; both screens shot."""
    call(driver, "POST", f"/api/phones/{phone['id']}/oob", {"qr": session["qrText"]})
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    shoot(driver, names[0], width, height)
    click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", then)
    shoot(driver, names[1], width, height)


def loaded(driver, path):
    driver.get(BASE_URL + path)
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete", f"{path} did not load")


@pytest.mark.parametrize("width,height", [(1366, 900), (390, 844)])
def test_every_screen_fits(driver, width, height):
    driver.set_window_size(width, height)
    loaded(driver, "/")
    user = "sam-" + uuid.uuid4().hex[:8]
    phone = new_phone(driver, f"Screens {width}")
    enrol = call(driver, "POST", "/api/backend/sessions", {"type": "enrol", "userId": user, "displayName": "Sam Example"})
    shoot(driver, "index", width, height)

    loaded(driver, "/console")
    wait_visible(driver, f'#sessions tr[data-session-id="{enrol["id"]}"]', "the session is not listed")
    if width < 500:
        # the policy form in one column, without a gap above its button
        gap = rect(driver, "#policy-save")["top"] - rect(driver, "#policy-penalties")["bottom"]
        assert gap < 40, f"a {gap} px gap above Apply in the wrong-PIN policy form"
        # the status in view without scrolling the table sideways
        status = rect(driver, f'#sessions tr[data-session-id="{enrol["id"]}"] .session-status-cell .badge')
        shown = driver.execute_script("return document.querySelector('#sessions').parentElement.getBoundingClientRect().right")
        assert status["right"] <= shown, "the sessions' status is scrolled out of view"
    shoot(driver, "console", width, height)
    loaded(driver, f"/console/sessions/{enrol['id']}")
    wait_visible(driver, "#session-qr", "the session's card is not shown")
    shoot(driver, "console-session", width, height)
    loaded(driver, f"/stage?phones={phone['id']}")
    driver.switch_to.frame(wait_visible(driver, ".stage-phone iframe"))
    wait_screen(driver, "HOME")
    # the framed phone page fits its frame too, the whole phone in view
    overflow = driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the stage's phone frame scrolls sideways by {overflow} px at {width} px"
    assert rect(driver, ".phone")["left"] >= 0, "the phone is cut off in its frame"
    driver.switch_to.default_content()
    shoot(driver, "stage", width, height)
    loaded(driver, "/phones/no-such-phone")
    wait_screen(driver, "NOT_FOUND")
    shoot(driver, "phone-not-found", width, height)

    # the phone, through an enrolment, a login and a transaction
    loaded(driver, f"/phones/{phone['id']}")
    wait_screen(driver, "HOME")
    shoot(driver, "phone-home-new", width, height)
    open_and_confirm(driver, phone, enrol, "SET_SECOND_FACTOR", ("phone-enrol-confirm", "phone-set-pin"), width, height)
    choose_pin(driver, PIN)
    wait_screen(driver, "DONE")
    shoot(driver, "phone-enrol-done", width, height)
    go_home(driver)
    shoot(driver, "phone-home-account", width, height)

    login = call(driver, "POST", "/api/backend/sessions", {"type": "login", "userId": user})
    open_and_confirm(driver, phone, login, "VERIFY_SECOND_FACTOR", ("phone-login-confirm", "phone-verify-pin"), width, height)
    click(driver, "#cancel")
    wait_screen(driver, "ERROR")
    shoot(driver, "phone-login-canceled", width, height)
    if width > 1000:
        # every column of the flow log in its card, the ERROR one too
        wrap = find(driver, ".flow-log .table-wrap")
        assert driver.execute_script("return arguments[0].scrollWidth - arguments[0].clientWidth", wrap) <= 0, "the flow log is cut off"
        assert rect(driver, "#flow-log th:last-child")["right"] <= rect(driver, ".flow-log")["right"]

    transaction = call(driver, "POST", "/api/backend/sessions", {"type": "transaction", "userId": user, "transaction": "Pay 42.00 EUR to ACME Ltd"})
    go_home(driver)
    open_and_confirm(driver, phone, transaction, "CONFIRM_TRANSACTION", ("phone-transaction-confirm", "phone-transaction"), width, height)
    assert not driver.find_elements(By.CSS_SELECTOR, "#toast:not([hidden])")
