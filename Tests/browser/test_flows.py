"""Browser test of AuthPhone's pages: enrol a user on a new phone, then log in with it, by QR
text and by push.

The server is started by the caller. Environment:
  AUTHPHONE_URL          base URL of the running server (default http://127.0.0.1:8080)
  AUTHPHONE_TIMEOUT      seconds to wait for each step (default 20)
"""

import base64
import os
import uuid

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import SCREENSHOTS

BASE_URL = os.environ.get("AUTHPHONE_URL", "http://127.0.0.1:8080").rstrip("/")
TIMEOUT = float(os.environ.get("AUTHPHONE_TIMEOUT", "20"))

PIN = "260418"
WRONG_PIN = "999888"


# ----------------------------------------------------------------------------------------------
# helpers


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    driver.save_screenshot(str(path))
    return path


def wait_for(driver, condition, message, timeout=TIMEOUT):
    """Waits until condition(driver) is truthy (stale elements count as 'not yet')."""

    def check(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False

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


def screen_selector(state, interaction=None, extra=""):
    css = f'#screen[data-state="{state}"]'
    if interaction:
        css += f'[data-interaction="{interaction}"]'
    return css + extra


def wait_screen(driver, state, interaction=None, extra=""):
    css = screen_selector(state, interaction, extra)

    def shown(d):
        if d.find_elements(By.CSS_SELECTOR, css):
            return True
        # fail fast with the server's own words when the flow ends in an error instead
        if state != "ERROR" and d.find_elements(By.CSS_SELECTOR, '#screen[data-state="ERROR"]'):
            raise AssertionError("flow ended in ERROR: " + find(d, "#flow-error").text.replace("\n", " "))
        return False

    return wait_for(driver, shown, f"phone screen never showed {css}")


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


def enter_pin(driver, pin):
    """Types a PIN on the phone's own pad and presses OK."""
    for digit in pin:
        click(driver, f'.pin-key[data-digit="{digit}"]')
    wait_for(driver, lambda d: find(d, "#pin-dots").get_attribute("data-count") == str(len(pin)), "PIN dots did not fill")
    filled = driver.find_elements(By.CSS_SELECTOR, ".pin-dot.filled")
    assert len(filled) == len(pin)
    click(driver, "#pin-ok")


def session_status(driver):
    return find(driver, "#session-status").text.strip()


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
    wait_for(driver, lambda d: find(d, row_badge).text.strip() == status, f"table row status never became {status}")


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


def open_console(driver, windows):
    driver.get(BASE_URL + "/console")
    windows["console"] = driver.current_window_handle
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-connection") == "open", "console stream not connected")


def create_phone(driver, windows, name):
    """Creates a phone on the index page, in a new tab; returns its id."""
    driver.switch_to.new_window("tab")
    windows["phone"] = driver.current_window_handle
    driver.get(BASE_URL + "/")
    wait_visible(driver, "#new-phone-name").send_keys(name)
    click(driver, "#create-phone")
    wait_for(driver, lambda d: "/phones/" in d.current_url, "did not land on the phone page")
    phone_id = find(driver, "body").get_attribute("data-phone-id")
    assert phone_id and _path_ends_with(driver.current_url, phone_id)
    wait_for(driver, lambda d: find(d, "body").get_attribute("data-connection") == "open", "phone stream not connected")
    wait_screen(driver, "HOME")
    assert name in find(driver, "#screen").text
    return phone_id


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
    enter_pin(driver, PIN)
    wait_visible(driver, '#pin-pad[data-phase="repeat"]', "PIN pad did not ask to repeat the PIN")
    assert "Repeat your PIN" in find(driver, "#pin-title").text
    enter_pin(driver, PIN)

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
    click(driver, "#home")
    wait_screen(driver, "HOME")
    wait_for(driver, lambda d: user_id in find(d, "#accounts").text, "new account not listed on the phone")
    return enrol_sid, phone_id


def backend_session(driver, sid):
    """The session as the backend's REST API gives it."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/backend/sessions/' + encodeURIComponent(arguments[0])).then(r => r.json()).then(done, e => done({error: String(e)}));",
        sid,
    )


def animations_done(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "return !!e && e.getAnimations({subtree: true}).every(a => a.playState === 'finished');",
        css,
    )


def screenshot_on_failure(driver, windows):
    for name, handle in windows.items():
        try:
            driver.switch_to.window(handle)
            screenshot(driver, f"failure-{name}.png")
        except WebDriverException:
            pass


# ----------------------------------------------------------------------------------------------
# the tests


def test_an_unknown_phone_link_says_so(driver):
    """A stale or made-up phone link shows the page's own "No such phone" screen and a way back."""
    driver.get(f"{BASE_URL}/phones/no-such-phone")
    title = WebDriverWait(driver, TIMEOUT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, '#screen[data-state="NOT_FOUND"] .screen-title'))
    assert title.text == "No such phone"
    assert driver.find_element(By.CSS_SELECTOR, "#screen .error-code").text == "PHONE_NOT_FOUND"
    driver.find_element(By.LINK_TEXT, "All phones").click()
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.current_url.rstrip("/") == BASE_URL)


def test_delete_a_phone_from_the_list(driver):
    """A phone on the list goes after a second tap on its Delete (the first only asks)."""
    name = f"Doomed {uuid.uuid4().hex[:8]}"
    driver.get(BASE_URL)
    find(driver, "#new-phone-name").send_keys(name)
    find(driver, "#create-phone").click()
    wait_for(driver, lambda d: "/phones/" in d.current_url, "the new phone's page")
    phone_id = driver.current_url.rstrip("/").rsplit("/", 1)[-1]
    driver.get(BASE_URL)
    button = wait_visible(driver, f"#delete-phone-{phone_id}")
    button.click()
    assert button.text == "Tap again: delete this phone"
    assert driver.find_elements(By.CSS_SELECTOR, f'li[data-phone-id="{phone_id}"]')
    button.click()
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f'li[data-phone-id="{phone_id}"]'),
             "the deleted phone leaving the list")
    driver.get(f"{BASE_URL}/phones/{phone_id}")
    wait_visible(driver, '#screen[data-state="NOT_FOUND"]', "the deleted phone's page saying it is gone")


def test_enrol_then_login(driver):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"alice-{suffix}"
    display_name = "Alice Example"
    windows = {}

    try:
        # 1. Console: start an enrol session. 2. A new phone, in a second tab, enrols with its QR text.
        open_console(driver, windows)
        enrol_sid, _ = enrol_by_qr(driver, windows, user_id, display_name, f"Browser test {suffix}")

        # 3. Console: start a login session for the same user.
        driver.switch_to.window(windows["console"])
        login_sid, login_qr = start_session(driver, "login", user_id)
        assert login_sid != enrol_sid

        driver.switch_to.window(windows["phone"])
        open_payload(driver, login_qr)
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
        choices = driver.find_elements(By.CSS_SELECTOR, "input.account-choice[name='account']")
        assert choices, "no account to choose from"
        assert user_id in find(driver, "#account-choices").text
        assert any(c.is_selected() for c in choices), "no account pre-selected"
        click(driver, "#confirm")

        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
        assert "Enter your PIN" in find(driver, "#pin-title").text
        enter_pin(driver, WRONG_PIN)
        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-prev-result="PIN_FAIL"]')
        wait_for(driver, lambda d: "Wrong PIN" in find(d, "#pin-message").text, "wrong PIN not reported")
        assert "PIN_FAIL" in flow_log_text(driver)
        assert WRONG_PIN not in flow_log_text(driver)
        screenshot(driver, "login-wrong-pin.png")

        enter_pin(driver, PIN)
        wait_screen(driver, "DONE")
        assert "Logged in as" in find(driver, "#flow-done").text
        screenshot(driver, "login-done.png")

        driver.switch_to.window(windows["console"])
        wait_console_status(driver, login_sid, "loggedin")
        screenshot(driver, "console.png")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_login_by_push(driver):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"bob-{suffix}"
    display_name = "Bob Example"
    windows = {}

    try:
        open_console(driver, windows)
        enrol_by_qr(driver, windows, user_id, display_name, f"Push test {suffix}")
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#inbox .inbox-item"), "inbox not empty before the push")
        assert not visible(driver, "#push-banner"), "banner shown before any push"

        # Console: a login by push to all phones of the user.
        driver.switch_to.window(windows["console"])
        login_sid, _ = start_session(driver, "login", user_id, delivery="push", push_token="")
        dispatch = wait_visible(driver, "#session-dispatch", "push dispatch result not shown")
        assert dispatch.get_attribute("data-dispatch") == "dispatched", dispatch.text
        assert "dispatched" in dispatch.text
        delivery_cell = f'#sessions tr[data-session-id="{login_sid}"] .delivery-cell'
        wait_for(driver, lambda d: "push" in find(d, delivery_cell).text and "dispatched" in find(d, delivery_cell).text, "delivery column wrong")

        # Phone: the notification slides in at the top; it is also in the home screen's inbox.
        driver.switch_to.window(windows["phone"])
        banner = wait_visible(driver, "#push-banner", "notification banner not shown")
        message_id = banner.get_attribute("data-message-id")
        assert message_id
        assert "AuthPhone" in banner.text
        assert user_id in banner.text, banner.text
        assert not visible(driver, "#push-count"), "count shown for a single notification"
        wait_visible(driver, f'#inbox .inbox-item[data-message-id="{message_id}"]', "notification missing from the inbox")
        wait_for(driver, lambda d: animations_done(d, "#push-banner"), "banner still sliding in")
        screenshot(driver, "push-banner.png")

        click(driver, "#push-banner")
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
        wait_for(driver, lambda d: not visible(d, "#push-banner"), "banner still shown after opening it")
        assert user_id in find(driver, "#account-choices").text
        click(driver, "#confirm")

        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
        enter_pin(driver, PIN)
        wait_screen(driver, "DONE")
        assert "Logged in as" in find(driver, "#flow-done").text
        assert PIN not in flow_log_text(driver)

        # the opened message has left the inbox
        click(driver, "#home")
        wait_screen(driver, "HOME")
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#inbox .inbox-item"), "opened notification still in the inbox")

        driver.switch_to.window(windows["console"])
        wait_console_status(driver, login_sid, "loggedin")
        screenshot(driver, "console-push.png")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_picture_pull_and_open_at_once(driver):
    """The other ways in: a screenshot of the console's QR code uploaded as the camera's picture,
    the pull fallback's "Check for requests", and a phone set to open pushes at once."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"carol-{suffix}"
    windows = {}

    try:
        open_console(driver, windows)
        enrol_by_qr(driver, windows, user_id, "Carol Example", f"Ways in {suffix}")

        # A picture of the QR code, taken off the console, scanned by the phone.
        driver.switch_to.window(windows["console"])
        picture_sid, _ = start_session(driver, "login", user_id)
        picture = SCREENSHOTS / f"qr-{suffix}.png"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        find(driver, "#session-qr").screenshot(str(picture))
        driver.switch_to.window(windows["phone"])
        wait_screen(driver, "HOME")
        find(driver, "#oob-image").send_keys(str(picture.resolve()))
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        assert find(driver, "#screen").get_attribute("data-flow-type") == "LOGIN"
        picture.unlink()
        click(driver, "#cancel")
        wait_screen(driver, "ERROR")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, picture_sid, "canceled")

        # Pull: a login the phone was never told about, found by asking.
        pulled_sid, _ = start_session(driver, "login", user_id)
        driver.switch_to.window(windows["phone"])
        click(driver, "#home")
        wait_screen(driver, "HOME")
        click(driver, "#pending-check")
        wait_visible(driver, f'#pending .pending-item[data-session-id="{pulled_sid}"]', "the waiting login was not found")
        screenshot(driver, "pending.png")
        click(driver, f'#pending .pending-item[data-session-id="{pulled_sid}"] .pending-open')
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        click(driver, "#confirm")
        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
        enter_pin(driver, PIN)
        wait_screen(driver, "DONE")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, pulled_sid, "loggedin")

        # Open pushes at once: the login appears without a notification to tap.
        driver.switch_to.window(windows["phone"])
        click(driver, "#home")
        wait_screen(driver, "HOME")
        click(driver, "#setting-open-pushes")
        wait_for(driver, lambda d: find(d, "#setting-open-pushes").is_selected() and find(d, "#setting-open-pushes").is_enabled(),
                 "setting not saved")
        driver.switch_to.window(windows["console"])
        pushed_sid, _ = start_session(driver, "login", user_id, delivery="push", push_token="")
        driver.switch_to.window(windows["phone"])
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        assert not visible(driver, "#push-banner"), "a notification was shown though the phone opens pushes at once"
        click(driver, "#cancel")
        wait_screen(driver, "ERROR")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, pushed_sid, "canceled")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_sign_transaction(driver):
    """A transaction for a pre-selected account: the phone shows its exact text, the user signs it
    and gives the PIN; the console shows it signed, with the message the user typed."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"dave-{suffix}"
    transaction = "Pay 120.00 EUR to ACME Ltd\nIBAN CH93 0076 2011 6238 5295 7\n  reference: order 42"
    windows = {}
    driver.set_script_timeout(TIMEOUT)

    try:
        open_console(driver, windows)
        enrol_sid, _ = enrol_by_qr(driver, windows, user_id, "Dave Example", f"Transaction test {suffix}")
        account_id = backend_session(driver, enrol_sid).get("accountId")
        assert account_id, "the enrolment gave no account id"

        driver.switch_to.window(windows["console"])
        sid, qr = start_session(driver, "transaction", user_id, transaction=transaction, account_id=account_id)
        assert find(driver, "#session-transaction-text").get_property("textContent") == transaction

        driver.switch_to.window(windows["phone"])
        open_payload(driver, qr)
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        assert find(driver, "#screen").get_attribute("data-flow-type") == "SIGN_TRANSACTION"
        choices = driver.find_elements(By.CSS_SELECTOR, "input.account-choice")
        assert len(choices) == 1 and choices[0].get_attribute("value") == account_id, "the pre-selected account is not the only choice"
        wait_visible(driver, "#account-preselected", "the pre-selection is not shown")
        find(driver, "#user-input").send_keys("invoice 2026-114")
        click(driver, "#confirm")

        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM_TRANSACTION")
        # beside the screen, the diagram highlights the same step, the ones before it done
        wait_visible(driver, '#flow-diagram .fd-node[data-node="CONFIRM_TRANSACTION"][aria-current="step"][data-status="waiting"]',
                     "the flow diagram does not highlight CONFIRM_TRANSACTION")
        assert find(driver, '#flow-diagram .fd-node[data-node="CONFIRM"]').get_attribute("data-status") == "completed"
        shown = find(driver, "#transaction-text")
        assert shown.get_property("textContent") == transaction, "the phone does not show the exact text"
        screenshot(driver, "transaction-confirm.png")
        click(driver, "#confirm")

        # the second factor cannot be skipped
        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
        assert "sign the transaction" in find(driver, "#screen").text
        enter_pin(driver, PIN)
        wait_screen(driver, "DONE")
        assert "Transaction signed" in find(driver, "#flow-done").text
        assert PIN not in flow_log_text(driver)

        driver.switch_to.window(windows["console"])
        wait_console_status(driver, sid, "signed")
        assert find(driver, "#session-user-input").text == "invoice 2026-114"
        assert "yes" in find(driver, "#session-meta").text
        session = backend_session(driver, sid)
        assert session["transactionSigned"] is True and session["transaction"] == transaction and session["accountId"] == account_id
        screenshot(driver, "console-transaction.png")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


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


def test_change_pin_and_biometrics(driver):
    """The phone's own flows from its home screen: CHANGE_PIN (nextAuth's way, then Nevis's),
    ADD_BIOMETRICS with the simulated sensor, a login by biometric, and a new fingerprint that
    turns biometrics off at their next use (BIOMETRICS_REMOVED, then the PIN)."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"erin-{suffix}"
    new_pin, nevis_pin = "739105", "582047"
    windows = {}

    try:
        open_console(driver, windows)
        enrol_by_qr(driver, windows, user_id, "Erin Example", f"Second factors {suffix}")

        # CHANGE_PIN: the old PIN, then the new one twice
        click(driver, "#start-change-pin")
        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-flow-type="CHANGE_PIN"]')
        assert not visible(driver, "#use-biometrics"), "biometrics offered before they were added"
        enter_pin(driver, PIN)
        wait_screen(driver, "WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
        assert "Choose a new PIN" in find(driver, "#pin-title").text
        enter_pin(driver, new_pin)
        wait_visible(driver, '#pin-pad[data-phase="repeat"]')
        enter_pin(driver, new_pin)
        wait_screen(driver, "DONE")
        assert "PIN changed" in find(driver, "#flow-done").text

        # ADD_BIOMETRICS: the PIN, then the sensor (no match first)
        click(driver, "#home")
        wait_screen(driver, "HOME")
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
        click(driver, "#home")
        wait_for(driver, lambda d: find(d, "#has-enabled-biometrics").text == "yes", "biometrics not shown as enabled")
        wait_visible(driver, "#start-remove-biometrics")

        # a login by biometric: the prompt comes first
        login_sid = login_from_console(driver, windows, user_id)
        wait_visible(driver, "#bio-prompt", "the biometric prompt did not open")
        click(driver, "#bio-match")
        wait_screen(driver, "DONE")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, login_sid, "loggedin")

        # another fingerprint: BIOMETRICS_REMOVED at the next use, then the PIN
        driver.switch_to.window(windows["phone"])
        click(driver, "#home")
        click(driver, "#sensor-enrol")
        wait_for(driver, lambda d: find(d, "#sensor-state").get_attribute("data-features") == "2", "fingerprint not enrolled")
        login_sid = login_from_console(driver, windows, user_id)
        click(driver, "#bio-match")
        wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR", '[data-prev-result="BIOMETRICS_REMOVED"]')
        assert "fingerprints changed" in find(driver, "#pin-message").text
        assert not visible(driver, "#use-biometrics")
        screenshot(driver, "biometrics-removed.png")
        enter_pin(driver, new_pin)
        wait_screen(driver, "DONE")
        click(driver, "#home")
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
        for pin in (PIN, new_pin, nevis_pin):
            assert pin not in flow_log_text(driver)
        screenshot(driver, "pin-changed.png")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_enrol_sets_pin_and_biometrics_together(driver):
    """Seeds 000 and 002: on a phone whose sensor has a feature enrolled, the enrolment's
    SET_SECOND_FACTOR offers biometrics beside the new PIN, and both are set in one input; the
    next login then opens with the biometric prompt."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"gina-{suffix}"
    windows = {}

    try:
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
        enter_pin(driver, PIN)
        wait_visible(driver, '#pin-pad[data-phase="repeat"]')
        enter_pin(driver, PIN)
        wait_screen(driver, "DONE")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, enrol_sid, "enrolled")

        driver.switch_to.window(windows["phone"])
        click(driver, "#home")
        wait_for(driver, lambda d: find(d, "#has-enabled-biometrics").text == "yes", "biometrics not set with the PIN")
        login_sid = login_from_console(driver, windows, user_id)
        wait_visible(driver, "#bio-prompt", "the biometric prompt did not open")
        click(driver, "#bio-match")
        wait_screen(driver, "DONE")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, login_sid, "loggedin")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


# A red 1×1 PNG.
LOGO_PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")


def test_the_console_sets_what_the_phone_announces(driver, tmp_path):
    """Seed 001's announceInfo, set per session on the console: the phone's confirmation shows
    the session's own strings and logo instead of the server's defaults."""
    suffix = uuid.uuid4().hex[:10]
    logo = tmp_path / "logo.png"
    logo.write_bytes(LOGO_PNG)
    windows = {}

    try:
        open_console(driver, windows)
        _, enrol_qr = start_session(driver, "enrol", f"hana-{suffix}", "Hana Example",
                                    announce="Shop: ACME Ltd\nOrder: 42", logo_path=logo)
        create_phone(driver, windows, f"Announced {suffix}")
        open_payload(driver, enrol_qr)
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        info = wait_visible(driver, "#announce-info")
        assert "ACME Ltd" in info.text and "42" in info.text
        assert "Service" not in info.text, "the server's default was shown instead"
        wait_for(driver, lambda d: d.execute_script(
            "const i = document.getElementById('announce-logo'); return !!i && i.complete && i.naturalWidth === 1;"),
            "the logo was not shown")
        screenshot(driver, "announce-info.png")
        click(driver, "#cancel")
        wait_screen(driver, "ERROR")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_the_console_skips_steps_per_session(driver):
    """Seed 001's configuration, set per session on the console: a login that skips the
    confirmation and the second factor ends on the phone by itself; one that skips only the
    second factor asks for the confirmation alone."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"ivan-{suffix}"
    windows = {}

    try:
        open_console(driver, windows)
        enrol_by_qr(driver, windows, user_id, "Ivan Example", f"Skipping {suffix}")
        driver.switch_to.window(windows["console"])
        # an enrolment cannot skip its steps: the choices show for a login only
        assert find(driver, "#session-type").get_property("value") == "enrol"
        assert not visible(driver, "#session-skip-confirmation") and not visible(driver, "#session-skip-second-factor")
        sid, qr = start_session(driver, "login", user_id, skip_confirmation="true", skip_second_factor="true")
        driver.switch_to.window(windows["phone"])
        open_payload(driver, qr)
        wait_screen(driver, "DONE")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, sid, "loggedin")

        sid, qr = start_session(driver, "login", user_id, skip_confirmation="false", skip_second_factor="true")
        driver.switch_to.window(windows["phone"])
        click(driver, "#home")
        open_payload(driver, qr)
        wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
        click(driver, "#confirm")
        wait_screen(driver, "DONE")
        driver.switch_to.window(windows["console"])
        wait_console_status(driver, sid, "loggedin")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_retry_in_progress_with_a_fault(driver):
    """Console: the backend answers 503 (Retry-After 2 s) to one phone, twice. The phone renames
    itself: the screen shows the fault, each attempt and the countdown to the next, then success."""
    suffix = uuid.uuid4().hex[:10]
    windows = {}
    try:
        open_console(driver, windows)
        _, phone_id = enrol_by_qr(driver, windows, f"frank-{suffix}", "Frank Example", f"Retry test {suffix}")

        driver.switch_to.window(windows["console"])
        Select(find(driver, "#fault-target")).select_by_value("phone")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#fault-phone option[value="{phone_id}"]'), "phone missing from the fault form")
        Select(find(driver, "#fault-phone")).select_by_value(phone_id)
        Select(find(driver, "#fault-kind")).select_by_value("status")
        for css, value in (("#fault-status", "503"), ("#fault-retry-after", "2"), ("#fault-count", "2")):
            field = find(driver, css)
            field.clear()
            field.send_keys(value)
        click(driver, "#fault-add")
        wait_visible(driver, '#faults .fault-row[data-kind="status"]', "the fault is not listed")
        assert "answers 503" in find(driver, "#faults").text

        driver.switch_to.window(windows["phone"])
        wait_visible(driver, "#fault-strip", "the phone does not show the fault")
        Select(find(driver, "#device-retry-policy")).select_by_value("constant")
        name = find(driver, "#device-name")
        name.clear()
        name.send_keys(f"Frank's phone {suffix}")
        click(driver, "#device-rename")
        wait_visible(driver, '#operation-banner[data-state="waiting"]', "no retry shown in progress")
        wait_for(driver, lambda d: "of 4 in" in find(d, "#operation-line").text, "no countdown to the next attempt")
        screenshot(driver, "retry-in-progress.png")
        wait_for(driver, lambda d: find(d, "#operation-banner").get_attribute("data-state") == "succeeded", "the change never succeeded", timeout=30)
        assert find(driver, "#operation-banner").get_attribute("data-attempts") == "3"
        assert len(driver.find_elements(By.CSS_SELECTOR, "#flow-log .operation-row")) >= 4
        wait_for(driver, lambda d: not visible(d, "#fault-strip"), "the used-up fault is still shown")
        wait_for(driver, lambda d: find(d, "#home-phone-name").text == f"Frank's phone {suffix}", "the new name is not shown")

        # local data: removing the account asks for a second tap, then it is gone on both sides
        account_id = find(driver, "#local-accounts .local-account").get_attribute("data-account-id")
        click(driver, f"#remove-account-{account_id}")
        assert "Tap again" in find(driver, f"#remove-account-{account_id}").text
        assert find(driver, "#local-accounts .local-account"), "removed on the first tap"
        click(driver, f"#remove-account-{account_id}")
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#accounts .account"), "the account is still listed")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise


def test_wrong_pin_policy_from_the_console(driver):
    """The console switches the Second Factor Server to the Nevis table and to a custom one, and
    refuses waits that are not whole seconds. Ends on the default."""
    windows = {}
    try:
        open_console(driver, windows)
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
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise
    finally:
        Select(find(driver, "#policy-preset")).select_by_value("nextAuth")
        click(driver, "#policy-save")
        wait_for(driver, lambda d: find(d, "#policy-form").get_attribute("data-preset") == "nextAuth", "default not restored")


def _path_ends_with(url, phone_id):
    path = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    return path.endswith("/phones/" + phone_id)


def test_offline_otp_when_the_backend_is_unreachable(driver):
    """The offline OTP (docs/behaviour.md#offline-otp): the backend made unreachable for one phone; a login QR scanned on it shows the
    connection error with the countdown; "Get OTP now" shows the code, which the console types in
    for the pending login once ENABLE_OTP is set: the session is logged in, marked otplogin."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"olga-{suffix}"
    windows = {}
    try:
        open_console(driver, windows)
        _, phone_id = enrol_by_qr(driver, windows, user_id, "Olga Example", f"OTP test {suffix}")

        driver.switch_to.window(windows["console"])
        Select(find(driver, "#fault-target")).select_by_value("phone")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#fault-phone option[value="{phone_id}"]'), "phone missing from the fault form")
        Select(find(driver, "#fault-phone")).select_by_value(phone_id)
        Select(find(driver, "#fault-kind")).select_by_value("unreachable")
        click(driver, "#fault-add")
        wait_visible(driver, '#faults .fault-row[data-kind="unreachable"]', "the fault is not listed")
        sid, login_qr = start_session(driver, "login", user_id)

        driver.switch_to.window(windows["phone"])
        open_payload(driver, login_qr)
        wait_screen(driver, "STARTING", extra='[data-connection-error="true"]')
        wait_for(driver, lambda d: "offered in" in find(d, "#otp-countdown").text, "no countdown to the OTP offer")
        wait_for(driver, lambda d: "attempt" in find(d, "#session-retry").text.lower(), "the phone's retries are not shown")
        assert "cannot be reached" in find(driver, "#screen").text
        # the flow diagram shows the scanned session's start, not the enrolment that ended before it
        wait_visible(driver, '#flow-diagram[data-flow-type="SESSION"] .fd-node[data-node="STARTING"][data-status="processing"]',
                     "the diagram does not show the session's start")
        assert not driver.find_elements(By.CSS_SELECTOR, '#flow-diagram .fd-node[data-status="done"]'), "the enrolment's end is still drawn"
        wait_for(driver, lambda d: "OTP offered" in find(d, '#flow-diagram .fd-node[data-node="STARTING"]').text, "the diagram does not say the OTP is offered")
        wait_visible(driver, '#flow-diagram .fd-node[data-node="STARTING"] .fd-retry', "the diagram does not count the phone's retries")
        screenshot(driver, "otp-countdown.png")
        click(driver, "#otp-now")
        # the phone's next retry redraws the screen: the account choice stays open through it
        tried = wait_for(driver, lambda d: find(d, "#session-retry").text, "no retry shown")  # a retry may redraw it meanwhile
        wait_for(driver, lambda d: find(d, "#session-retry").text.split(";")[0] != tried.split(";")[0], "no further retry")
        assert find(driver, "#otp-accounts .otp-account").is_displayed(), "the OTP account choice folded at a retry"
        click(driver, "#otp-accounts .otp-account")
        wait_screen(driver, "OTP")
        otp = find(driver, "#otp-code").text.strip()
        assert len(otp) == 13 and otp[6] == " ", otp
        screenshot(driver, "otp-shown.png")
        assert "SESSION" in flow_log_text(driver)

        driver.switch_to.window(windows["console"])
        # the OTP form is offered only while ENABLE_OTP is on
        box = find(driver, "#flag-enable-otp")
        if box.is_selected():
            click(driver, "#flag-enable-otp")
        wait_for(driver, lambda d: not find(d, "#flag-enable-otp").is_selected(), "ENABLE_OTP not cleared")
        wait_for(driver, lambda d: not visible(d, "#otp-form"), "the OTP form is offered while ENABLE_OTP is off")
        click(driver, "#flag-enable-otp")
        wait_for(driver, lambda d: find(d, "#flag-enable-otp").is_selected(), "ENABLE_OTP not set")
        wait_visible(driver, "#otp-form", "the console offers no OTP form for the pending login")
        field = find(driver, "#otp-input")
        field.clear()
        field.send_keys(otp.lower().replace(" ", "-"))
        click(driver, "#otp-login")
        wait_console_status(driver, sid, "loggedin")
        assert "OTP login" in find(driver, "#session-meta").text
        assert backend_session(driver, sid)["otplogin"] is True
        screenshot(driver, "otp-console.png")

        driver.switch_to.window(windows["phone"])
        click(driver, "#otp-done")
        wait_screen(driver, "HOME")
    except BaseException:
        screenshot_on_failure(driver, windows)
        raise
