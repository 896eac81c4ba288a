"""The flow diagram through a session's flows: enrolment, login, transaction, their errors, and what
a scanned session shows before its flow (the harness: flow_diagram.py)."""

from selenium.webdriver.common.by import By

from flow_diagram import PIN_ONLY, PIN_OR_BIOMETRICS, Flow, check, page, pending_ends, read, show, site  # noqa: F401 (fixtures)
from pages import screenshot


def test_empty_state(page):
    view = show(page, None)
    assert view["empty"] == "No flow yet"
    assert view["nodes"] == [] and view["type"] is None and view["state"] is None
    # after a flow, null empties it again
    show(page, Flow("LOGIN").ask("CONFIRM"))
    view = show(page, None)
    assert view["empty"] == "No flow yet" and view["nodes"] == [] and view["type"] is None


def test_enrol_new_phone(page):
    f = Flow("ENROL")
    view = show(page, f.ask("CONFIRM"))
    assert (view["type"], view["state"], view["title"]) == ("ENROL", "WAIT_FOR_INPUT", "ENROL")
    check(view, **pending_ends(CONFIRM="waiting", SET_SECOND_FACTOR="pending"))
    assert "PIN" in view["details"]["SET_SECOND_FACTOR"], "the known factor of the plan is shown before the step"
    check(show(page, f.give("CONFIRM")), **pending_ends(CONFIRM="processing", SET_SECOND_FACTOR="pending"))
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(CONFIRM="completed", SET_SECOND_FACTOR="waiting"))
    assert view["details"]["SET_SECOND_FACTOR"] == "SET_SECOND_FACTOR · PINwaiting for input"
    view = show(page, f.give("PIN"))
    check(view, **pending_ends(CONFIRM="completed", SET_SECOND_FACTOR="processing"))
    assert view["state"] == "PROCESSING"
    assert "processing · PIN" in view["details"]["SET_SECOND_FACTOR"]
    view = show(page, f.done())
    check(view, CONFIRM="completed", SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")
    assert view["state"] == "DONE" and view["retries"] == []


def test_enrol_on_a_phone_with_a_pin_verifies_it(page):
    f = Flow("ENROL", "phone has a PIN")
    show(page, f.ask("CONFIRM"))
    show(page, f.give("CONFIRM"))
    view = show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(CONFIRM="completed", VERIFY_SECOND_FACTOR="waiting"))
    assert view["variant"] == "phone has a PIN"


def test_login_with_pin_fail_retries(page):
    f = Flow("LOGIN")
    check(show(page, f.ask("CONFIRM")), **pending_ends(CONFIRM="waiting", VERIFY_SECOND_FACTOR="pending"))
    show(page, f.give("CONFIRM"))
    view = show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_OR_BIOMETRICS))
    check(view, **pending_ends(CONFIRM="completed", VERIFY_SECOND_FACTOR="waiting"))
    assert "VERIFY_SECOND_FACTOR · PIN or BIOMETRICS" in view["details"]["VERIFY_SECOND_FACTOR"]
    assert view["retries"] == []

    show(page, f.give("PIN"))
    retry = f.fail("PIN_FAIL")
    view = show(page, retry)
    check(view, **pending_ends(CONFIRM="completed", VERIFY_SECOND_FACTOR="waiting"))
    assert view["retries"] == [["VERIFY_SECOND_FACTOR", "↻ PIN_FAIL ×1"]]
    # the same update again (snapshot after a reconnect) is not another retry
    assert show(page, retry)["retries"] == [["VERIFY_SECOND_FACTOR", "↻ PIN_FAIL ×1"]]

    # while processing the next attempt the old PIN_FAIL is still the previous result: no count
    view = show(page, f.give("PIN"))
    check(view, **pending_ends(CONFIRM="completed", VERIFY_SECOND_FACTOR="processing"))
    assert view["retries"] == [["VERIFY_SECOND_FACTOR", "↻ PIN_FAIL ×1"]]
    view = show(page, f.fail("PIN_FAIL"))
    assert view["retries"] == [["VERIFY_SECOND_FACTOR", "↻ PIN_FAIL ×2"]]

    show(page, f.give("PIN"))
    view = show(page, f.done())
    check(view, CONFIRM="completed", VERIFY_SECOND_FACTOR="completed", DONE="done", ERROR="pending")
    assert view["retries"] == [["VERIFY_SECOND_FACTOR", "↻ PIN_FAIL ×2"]], "the loop stays on the diagram of the flow"

    # a new flow id starts afresh
    view = show(page, Flow("LOGIN").ask("CONFIRM"))
    check(view, **pending_ends(CONFIRM="waiting", VERIFY_SECOND_FACTOR="pending"))
    assert view["retries"] == []


def test_sign_transaction_cancelled(page):
    f = Flow("SIGN_TRANSACTION")
    show(page, f.ask("CONFIRM"))
    show(page, f.give("CONFIRM"))
    view = show(page, f.succeed_then_ask("CONFIRM_TRANSACTION"))
    check(view, **pending_ends(CONFIRM="completed", CONFIRM_TRANSACTION="waiting", VERIFY_SECOND_FACTOR="pending"))
    view = show(page, f.error("USER_CANCELED", "the user cancelled the flow"))
    check(view, CONFIRM="completed", CONFIRM_TRANSACTION="pending", VERIFY_SECOND_FACTOR="pending", DONE="pending", ERROR="error")
    assert view["state"] == "ERROR"
    assert view["stopped"] == ["CONFIRM_TRANSACTION"]
    assert "USER_CANCELED" in view["details"]["ERROR"]
    error = page.find_element(By.CSS_SELECTOR, '#flow-diagram .fd-node[data-node="ERROR"]')
    assert error.get_attribute("title") == "the user cancelled the flow"
    assert error.get_attribute("aria-current") == "step"


def test_sign_transaction_mid_flow_screenshot(page):
    f = Flow("SIGN_TRANSACTION")
    show(page, f.ask("CONFIRM"))
    show(page, f.give("CONFIRM"))
    show(page, f.succeed_then_ask("CONFIRM_TRANSACTION"))
    show(page, f.give("CONFIRM"))
    show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_OR_BIOMETRICS))
    show(page, f.give("PIN"))
    view = show(page, f.fail("PIN_FAIL"))
    check(view, **pending_ends(CONFIRM="completed", CONFIRM_TRANSACTION="completed", VERIFY_SECOND_FACTOR="waiting"))
    # in a narrow card the row wraps instead of overflowing
    page.execute_script("document.getElementById('card').style.width = '420px'")
    assert not read(page)["overflows"]
    page.execute_script("document.getElementById('card').style.width = '640px'")
    path = screenshot(page, "flow-diagram.png", "#card")
    assert path.stat().st_size > 0


def test_pin_blocked_error_after_a_failed_attempt(page):
    f = Flow("LOGIN")
    show(page, f.ask("CONFIRM"))
    show(page, f.give("CONFIRM"))
    show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    show(page, f.give("PIN"))
    f.result("PIN_FAIL")
    view = show(page, f.error("PIN_BLOCKED", "the PIN is blocked after too many wrong attempts"))
    check(view, CONFIRM="completed", VERIFY_SECOND_FACTOR="pending", DONE="pending", ERROR="error")
    assert view["stopped"] == ["VERIFY_SECOND_FACTOR"]
    assert view["retries"] == [], "an attempt that ends the flow is no retry"


def test_server_data_is_text(page):
    f = Flow("LOGIN")
    show(page, f.ask("CONFIRM"))
    code = '<img src=x onerror="window.harnessErrors.push(1)">'
    view = show(page, f.error(code, "<b>bold</b>"))
    assert code in view["details"]["ERROR"]
    assert page.find_elements(By.CSS_SELECTOR, "#flow-diagram img, #flow-diagram b") == []


def starting(attempts=0, otp=False, state="STARTING", stop_reason=None):
    """A SessionStart as the phone's stream sends it (docs/protocol.md)."""
    session = {"id": "s-1", "state": state, "server": "http://127.0.0.1:8080", "accounts": [], "otpAvailable": otp,
               "connectionError": attempts > 0, "attempts": attempts}
    if attempts:
        session["error"] = {"code": "SERVER_CONNECTION_ERROR", "message": "unreachable", "sdkCode": 70}
    if stop_reason:
        session["stopReason"] = stop_reason
    return session


def show_session(driver, session):
    driver.execute_script("window.diagram.session(arguments[0])", session)
    return read(driver)


def test_a_scanned_session_shows_its_start_in_place_of_the_last_flow(page):
    """The session's STARTING phase (its retries, the OTP on offer) replaces the flow that ended
    before it; its flow then begins with that start, done."""
    before = Flow("ENROL")
    show(page, before.ask("CONFIRM"))
    check(show(page, before.done()), CONFIRM="completed", SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")

    view = show_session(page, starting())
    assert (view["type"], view["state"], view["title"]) == ("SESSION", "STARTING", "Scanned session")
    check(view, STARTING="processing", FLOW="pending", STOPPED="pending")
    assert view["retries"] == [] and "connecting" in view["details"]["STARTING"]

    view = show_session(page, starting(attempts=2, otp=True))
    check(view, STARTING="processing", FLOW="pending", STOPPED="pending")
    assert view["retries"] == [["STARTING", "↻ SERVER_CONNECTION_ERROR ×2"]]
    assert "OTP offered" in view["details"]["STARTING"] and "retrying" in view["details"]["STARTING"]

    # ready: nothing new is drawn until the flow's first update, which begins with the start
    assert show_session(page, starting(attempts=3, otp=True, state="READY_FOR_USER_INTERACTION"))["state"] == "STARTING"
    login = Flow("LOGIN")
    view = show(page, login.ask("CONFIRM"))
    check(view, **pending_ends(STARTING="completed", CONFIRM="waiting", VERIFY_SECOND_FACTOR="pending"))
    assert view["retries"] == [["STARTING", "↻ SERVER_CONNECTION_ERROR ×3"]]
    # the next flow, not scanned, does not
    check(show(page, Flow("CHANGE_PIN").ask("VERIFY_SECOND_FACTOR", PIN_ONLY)), **pending_ends(VERIFY_SECOND_FACTOR="waiting", SET_SECOND_FACTOR="pending"))


def test_a_session_stopped_before_its_flow_says_why(page):
    show_session(page, starting(attempts=1, otp=True))
    view = show_session(page, starting(attempts=1, otp=True, state="STOPPED", stop_reason="OTP_GENERATED"))
    check(view, STARTING="completed", FLOW="pending", STOPPED="done")
    assert "OTP_GENERATED" in view["details"]["STOPPED"]
    # a stopped session's start is not carried into the next flow
    check(show(page, Flow("LOGIN").ask("CONFIRM")), **pending_ends(CONFIRM="waiting", VERIFY_SECOND_FACTOR="pending"))
