"""AuthPhone's pages as a person drives them, shared by the browser tests: waiting for what a page
shows, the phone's screen and PIN pad, the console's session form, the stage's session starter,
and the server's API called from inside a page.

The server is started by the caller (scripts/browser-test.sh). Environment:
  AUTHPHONE_URL          base URL of the running server (default http://127.0.0.1:8080)
  AUTHPHONE_TIMEOUT      seconds to wait for each step (default 20)
  AUTHPHONE_SCREENSHOTS  folder for screenshots (default artifacts/screenshots)
  AUTHPHONE_DOWNLOADS    folder the browser downloads into (default artifacts/downloads)
"""

import os
import pathlib

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE_URL = os.environ.get("AUTHPHONE_URL", "http://127.0.0.1:8080").rstrip("/")
TIMEOUT = float(os.environ.get("AUTHPHONE_TIMEOUT", "20"))
SCREENSHOTS = pathlib.Path(os.environ.get("AUTHPHONE_SCREENSHOTS", "artifacts/screenshots"))
DOWNLOADS = pathlib.Path(os.environ.get("AUTHPHONE_DOWNLOADS", "artifacts/downloads")).resolve()

PIN = "260418"


# ----------------------------------------------------------------------------------------------
# finding and waiting


def wait_for(driver, condition, message, timeout=TIMEOUT):
    """Waits until condition(driver) is truthy (stale elements count as 'not yet')."""

    def check(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False
        except WebDriverException as error:
            # ChromeDriver reads an attribute through a script, and an element redrawn meanwhile
            # fails there with this, not as stale
            if "does not belong to the document" in (error.msg or ""):
                return False
            raise

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(check, message)


def find(driver, css):
    return driver.find_element(By.CSS_SELECTOR, css)


def visible(driver, css):
    """The first displayed element matching css, or False."""
    for e in driver.find_elements(By.CSS_SELECTOR, css):
        if e.is_displayed():
            return e
    return False


def wait_visible(driver, css, message=None):
    return wait_for(driver, lambda d: visible(d, css), message or f"{css} not shown")


def wait_connected(driver, page):
    """Waits until the page's live stream (the phone's, the console's, the stage's) is open."""
    wait_for(driver, lambda d: find(d, "body").get_attribute("data-connection") == "open", f"{page} stream not connected")


def click(driver, css):
    """Clicks the element matching css, finding it afresh if the screen was re-rendered."""

    def attempt(d):
        try:
            el = find(d, css)
            if not el.is_displayed() or not el.is_enabled():
                return False
            # the phone's screen scrolls: bring the element into view as a thumb would
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
            el.click()
            return True
        except StaleElementReferenceException:
            return False

    wait_for(driver, attempt, f"could not click {css}")


def animations_done(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "return !!e && e.getAnimations({subtree: true}).every(a => a.playState === 'finished');",
        css,
    )


def rect(driver, css):
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};",
        css)


# ----------------------------------------------------------------------------------------------
# screenshots


def screenshot(driver, name, css=None):
    """Saves the window (or only the element matching css) as SCREENSHOTS/name; returns its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    if css:
        find(driver, css).screenshot(str(path))
    else:
        driver.save_screenshot(str(path))
    return path


def phone_screenshot(driver, name):
    """The phone's frame alone at its full size (a short window zooms it out), as the docs show it."""
    size = driver.get_window_size()
    driver.set_window_size(size["width"], 1100)  # a viewport of 957 px: no zoom below 880
    driver.execute_script("window.scrollTo(0, 0)")
    try:
        return screenshot(driver, name, css=".phone")
    finally:
        driver.set_window_size(size["width"], size["height"])


def screenshot_windows(driver, windows):
    """A screenshot of each of the test's tabs, named failure-NAME.png (as a failed test leaves them)."""
    for name, handle in windows.items():
        try:
            driver.switch_to.window(handle)
            screenshot(driver, f"failure-{name}.png")
        except WebDriverException:
            pass


# ----------------------------------------------------------------------------------------------
# the phone


def wait_screen(driver, state, interaction=None, extra="", timeout=TIMEOUT):
    css = f'#screen[data-state="{state}"]'
    if interaction:
        css += f'[data-interaction="{interaction}"]'
    css += extra

    def shown(d):
        if d.find_elements(By.CSS_SELECTOR, css):
            return True
        # fail fast with the server's own words when the flow ends in an error instead
        if state != "ERROR" and d.find_elements(By.CSS_SELECTOR, '#screen[data-state="ERROR"]'):
            raise AssertionError("flow ended in ERROR: " + find(d, "#flow-error").text.replace("\n", " "))
        return False

    return wait_for(driver, shown, f"phone screen never showed {css}", timeout=timeout)


def go_home(driver):
    """Back to the phone's home screen from a finished flow."""
    click(driver, "#home")
    wait_screen(driver, "HOME")


def enter_pin(driver, pin):
    """Types a PIN on the phone's own pad and presses OK."""
    for digit in pin:
        click(driver, f'.pin-key[data-digit="{digit}"]')
    wait_for(driver, lambda d: find(d, "#pin-dots").get_attribute("data-count") == str(len(pin)), "PIN dots did not fill")
    filled = driver.find_elements(By.CSS_SELECTOR, ".pin-dot.filled")
    assert len(filled) == len(pin)
    click(driver, "#pin-ok")


def choose_pin(driver, pin):
    """Types a new PIN, then again when the pad asks to repeat it."""
    enter_pin(driver, pin)
    wait_visible(driver, '#pin-pad[data-phase="repeat"]', "PIN pad did not ask to repeat the PIN")
    assert "Repeat your PIN" in find(driver, "#pin-title").text
    enter_pin(driver, pin)


def confirm_with_pin(driver, steps=("CONFIRM",), new_pin=False):
    """On the phone: confirms each step, then gives the PIN (a new one twice); ends on DONE."""
    for step in steps:
        wait_screen(driver, "WAIT_FOR_INPUT", step)
        click(driver, "#confirm")
    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR" if new_pin else "VERIFY_SECOND_FACTOR")
    if new_pin:
        choose_pin(driver, PIN)
    else:
        enter_pin(driver, PIN)
    wait_screen(driver, "DONE")


def open_payload(driver, text):
    """Pastes QR text into the phone's out-of-band box and opens it."""
    wait_screen(driver, "HOME")
    box = find(driver, "#oob-text")
    box.clear()
    box.send_keys(text)
    assert box.get_property("value") == text
    click(driver, "#oob-open")


def flow_log_text(driver):
    return find(driver, "#flow-log").text


def create_phone(driver, windows, name):
    """Creates a phone on the index page, in a new tab (windows["phone"]); returns its id."""
    driver.switch_to.new_window("tab")
    windows["phone"] = driver.current_window_handle
    driver.get(BASE_URL + "/")
    wait_visible(driver, "#new-phone-name").send_keys(name)
    click(driver, "#create-phone")
    wait_for(driver, lambda d: "/phones/" in d.current_url, "did not land on the phone page")
    phone_id = find(driver, "body").get_attribute("data-phone-id")
    path = driver.current_url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    assert phone_id and path.endswith("/phones/" + phone_id)
    wait_connected(driver, "phone")
    wait_screen(driver, "HOME")
    assert name in find(driver, "#screen").text
    return phone_id


# ----------------------------------------------------------------------------------------------
# the console


def open_console(driver, windows):
    driver.get(BASE_URL + "/console")
    windows["console"] = driver.current_window_handle
    wait_connected(driver, "console")


def session_status(driver):
    """The card's status itself (the badge says it in words)."""
    return find(driver, "#session-status").get_attribute("data-status")


def start_session(driver, kind, user_id, display_name=None, delivery="qr", push_token="", transaction=None, account_id=None,
                  announce=None, logo_path=None, skip_confirmation=None, skip_second_factor=None):
    """Starts a backend session on the console page; returns (session id, QR text).

    delivery "push" sends it by push to the phone whose fcmToken is push_token ("": all phones of
    the user). A transaction session signs transaction; account_id pre-selects the account;
    announce ("Key: value" lines) and logo_path set what the phone announces; skip_confirmation and
    skip_second_factor ("true", "false") choose the steps the configuration skips."""
    previous = find(driver, "#session-card").get_attribute("data-session-id")
    Select(find(driver, "#session-type")).select_by_value(kind)
    user = find(driver, "#session-user")
    user.clear()
    user.send_keys(user_id)
    if display_name is not None:
        name = find(driver, "#session-display-name")
        name.clear()
        name.send_keys(display_name)
    if transaction is not None:
        text = wait_visible(driver, "#session-transaction", "transaction text field not shown")
        text.clear()
        text.send_keys(transaction)
        assert text.get_property("value") == transaction
    else:
        assert not visible(driver, "#session-transaction"), f"transaction text field shown for {kind}"
    if kind != "enrol":
        account = wait_visible(driver, "#session-account", "account field not shown")
        account.clear()
        if account_id:
            account.send_keys(account_id)
    for css, value in (("#session-skip-confirmation", skip_confirmation), ("#session-skip-second-factor", skip_second_factor)):
        if value is not None:
            Select(wait_visible(driver, css, f"{css} not shown for {kind}")).select_by_value(value)
    if announce is not None or logo_path is not None:
        click(driver, "#announce-field summary")
        lines = wait_visible(driver, "#session-announce", "announce field not shown")
        lines.clear()
        lines.send_keys(announce or "")
        if logo_path is not None:
            find(driver, "#session-announce-logo").send_keys(str(logo_path))
    Select(find(driver, "#session-delivery")).select_by_value(delivery)
    if delivery == "push":
        wait_visible(driver, "#session-push-phone", "phone picker not shown for push")
        if push_token:
            # the list of phones is read when push is chosen
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#session-push-phone option[value="{push_token}"]'), "phone missing from the picker")
        # the options are drawn again when the list arrives (the choice is kept): choose on the current ones
        wait_for(driver, lambda d: Select(find(d, "#session-push-phone")).select_by_value(push_token) or True, "the phone could not be chosen")
    else:
        assert not visible(driver, "#session-push-phone"), "phone picker shown for QR delivery"
    click(driver, "#start-session")

    def created(d):
        card = find(d, "#session-card")
        sid = card.get_attribute("data-session-id")
        if card.is_displayed() and sid and sid != previous and find(d, "#session-qr-text").get_property("value"):
            return sid
        errors = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#session-error") if e.is_displayed()]
        if errors:
            raise AssertionError("starting the session failed: " + errors[0])
        return False

    sid = wait_for(driver, created, f"{kind} session card not shown")
    assert find(driver, "#session-card").get_attribute("data-type") == kind
    qr_text = find(driver, "#session-qr-text").get_property("value")
    assert find(driver, "#session-deep-link").text.strip(), "deep link missing"
    # A phone that opens pushes at once may already have redeemed a pushed session.
    started = ("pending",) if delivery == "qr" else ("pending", "redeemed")
    assert session_status(driver) in started, session_status(driver)
    wait_for(
        driver,
        lambda d: d.execute_script("const i = document.getElementById('session-qr'); return i.complete && i.naturalWidth > 0;"),
        "QR image did not load",
    )
    # the session is also a row of the table
    wait_visible(driver, f'#sessions tr[data-session-id="{sid}"]', "session row missing")
    return sid, qr_text


def wait_console_status(driver, sid, status):
    def reached(d):
        card = find(d, "#session-card")
        if card.get_attribute("data-session-id") != sid:
            raise AssertionError("the console card shows another session")
        current = session_status(d)
        if current in ("failed", "canceled", "expired") and current != status:
            raise AssertionError(f"session {sid} ended as {current}")
        return current == status

    wait_for(driver, reached, f"console status never became {status}")
    row_badge = f'#sessions tr[data-session-id="{sid}"] .badge'
    wait_for(driver, lambda d: find(d, row_badge).get_attribute("data-status") == status, f"table row status never became {status}")
    # in words, as the card's badge: "logged in", not the raw "loggedin"
    assert find(driver, row_badge).get_property("textContent") == find(driver, "#session-status").get_property("textContent")


def enrol_by_qr(driver, windows, user_id, display_name, phone_name):
    """Console: starts an enrol session; a new phone opens its QR text, confirms and sets the PIN.
    Ends on the phone's home screen listing the account; returns (session id, phone id)."""
    driver.switch_to.window(windows["console"])
    enrol_sid, enrol_qr = start_session(driver, "enrol", user_id, display_name)
    assert enrol_qr

    phone_id = create_phone(driver, windows, phone_name)

    # enrol: open the QR text, confirm, set the PIN
    open_payload(driver, enrol_qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "ENROL"
    assert "Create account?" in find(driver, "#screen").text
    assert find(driver, "#server-name").text.strip(), "server name not shown"
    cells = driver.find_elements(By.CSS_SELECTOR, "#visual-hash .vh-cell")
    assert len(cells) == 16
    assert any(c.get_attribute("data-color") for c in cells), "visual hash has no colours"
    assert find(driver, "#visual-hash-fingerprint").text.strip(), "fingerprint not shown"
    assert find(driver, "#enrol-display-name").text.strip() == display_name
    click(driver, "#confirm")

    wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    wait_visible(driver, '#pin-pad[data-phase="choose"]')
    choose_pin(driver, PIN)

    wait_screen(driver, "DONE")
    assert "Account created for " + display_name in find(driver, "#flow-done").text
    screenshot(driver, "enrol-done.png")
    assert PIN not in driver.current_url
    assert PIN not in flow_log_text(driver)

    # the console follows the session live
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, enrol_sid, "enrolled")

    # the phone's home screen lists the new account
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    wait_for(driver, lambda d: user_id in find(d, "#accounts").text, "new account not listed on the phone")
    return enrol_sid, phone_id


# ----------------------------------------------------------------------------------------------
# the stage


def open_stage(driver):
    driver.get(BASE_URL + "/stage")
    wait_connected(driver, "stage")


def fill_starter(driver, kind, user_id, display_name=None, transaction=None):
    """Fills in the stage's session starter and starts it."""
    Select(find(driver, "#session-type")).select_by_value(kind)
    user = find(driver, "#session-user")
    user.clear()
    user.send_keys(user_id)
    if display_name:
        find(driver, "#session-display-name").send_keys(display_name)
    if transaction:
        text = find(driver, "#session-transaction")
        text.clear()
        text.send_keys(transaction)
    click(driver, "#start-session")


# ----------------------------------------------------------------------------------------------
# the API, called from inside a page (same origin, as the page's own scripts call it)

FETCH = (
    "const [method, path, body] = arguments; const done = arguments[arguments.length - 1];"
    "fetch(path, {method, headers: {'Content-Type': 'application/json'}, body: body && JSON.stringify(body)})"
    ".then(r => r.json()).then(done, e => done({error: String(e)}));"
)


def call(driver, method, path, body=None):
    """The JSON answer to an API request sent by the page open in the driver."""
    return driver.execute_async_script(FETCH, method, path, body)


def new_phone(driver, name):
    """A phone made through the API; the driver must show one of the server's pages."""
    return call(driver, "POST", "/api/phones", {"name": name})


def backend_session(driver, sid):
    """The session as the backend's REST API gives it."""
    return call(driver, "GET", f"/api/backend/sessions/{sid}")
