"""Browser test of the flow diagram (Public/js/flow-diagram.js) on its own: no AuthPhone server.

Public/ and the harness page (flow_diagram_harness.html) are served by Python's http.server on a
free port (module scripts need http, not file://); each test feeds the diagram the FlowUpdates a
flow type goes through, each with its plan as the server sends it, and checks its nodes, their
statuses and which one is aria-current.

Environment:
"""

import copy
import functools
import http.server
import pathlib
import threading
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from pages import screenshot

HERE = pathlib.Path(__file__).resolve().parent
PUBLIC = HERE.parents[1] / "Public"
HARNESS = HERE / "flow_diagram_harness.html"
HARNESS_PATH = "/flow_diagram_harness.html"

PIN_ONLY = {"allowedSecondFactorTypes": ["PIN"], "requiredSecondFactorTypes": ["PIN"], "showBiometrics": False}
PIN_OR_BIOMETRICS = {"allowedSecondFactorTypes": ["PIN", "BIOMETRICS"], "requiredSecondFactorTypes": [], "showBiometrics": True}
BIOMETRICS_ONLY = {"allowedSecondFactorTypes": ["BIOMETRICS"], "requiredSecondFactorTypes": ["BIOMETRICS"], "showBiometrics": True}

# statuses that make a node the highlighted one
CURRENT = {"waiting", "processing", "done", "error"}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves Public/ as the site root, as AuthPhone does, plus the harness page."""

    def translate_path(self, path):
        if path.split("?", 1)[0] == HARNESS_PATH:
            return str(HARNESS)
        return super().translate_path(path)

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(PUBLIC)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def page(driver, site):
    """The harness, loaded, with its diagram ready; fails on any uncaught script error."""
    driver.get(site + HARNESS_PATH)
    WebDriverWait(driver, 10, poll_frequency=0.05).until(
        lambda d: d.execute_script("return window.diagram !== undefined || window.harnessErrors.length > 0"),
        "the harness did not create window.diagram",
    )
    yield driver
    assert driver.execute_script("return window.harnessErrors") == []


# ----------------------------------------------------------------------------------------------
# helpers


# The plans the server's flow machine sends with every FlowUpdate (FlowMachine.plan), by type and
# variant: (interaction, second factors known in advance).
PLANS = {
    ("ENROL", None): [("CONFIRM", []), ("SET_SECOND_FACTOR", ["PIN"])],
    ("ENROL", "phone has a PIN"): [("CONFIRM", []), ("VERIFY_SECOND_FACTOR", ["PIN"])],
    ("LOGIN", None): [("CONFIRM", []), ("VERIFY_SECOND_FACTOR", [])],
    ("SIGN_TRANSACTION", None): [("CONFIRM", []), ("CONFIRM_TRANSACTION", []), ("VERIFY_SECOND_FACTOR", [])],
    ("CHANGE_PIN", None): [("VERIFY_SECOND_FACTOR", []), ("SET_SECOND_FACTOR", ["PIN"])],
    ("CHANGE_PIN", "Nevis style"): [("SET_SECOND_FACTOR", ["PIN"])],
    ("ADD_BIOMETRICS", None): [("VERIFY_SECOND_FACTOR", ["PIN"]), ("SET_SECOND_FACTOR", ["BIOMETRICS"])],
    ("ADD_BIOMETRICS", "legacyBioAddFlow"): [("SET_SECOND_FACTOR", ["BIOMETRICS"]), ("VERIFY_SECOND_FACTOR", ["PIN"])],
    ("REMOVE_BIOMETRICS", None): [("VERIFY_SECOND_FACTOR", [])],
    ("HEADLESS_UPGRADE", None): [("PROCESSING", [])],
}


class Flow:
    """A flow as the server changes it; each step returns the FlowUpdate sent (a copy). The plan
    comes with every update, as the server sends it; `plan=False` leaves it out."""

    def __init__(self, type_, variant=None, flow_id=None, plan=True):
        self.flow = {"id": flow_id or str(uuid.uuid4()), "type": type_, "state": "PROCESSING"}
        if plan:
            self.flow["plan"] = [{"interaction": i, "factors": f} for i, f in PLANS[(type_, variant)]]
        if variant:
            self.flow["planVariant"] = variant

    def _update(self):
        return copy.deepcopy(self.flow)

    def ask(self, interaction, info=None):
        self.flow["state"] = "WAIT_FOR_INPUT"
        self.flow["currentInteraction"] = {"type": interaction, "inputTypes": []}
        if info is not None:
            self.flow["currentInteraction"]["secondFactorInfo"] = info
        return self._update()

    def give(self, *inputs):
        self.flow["state"] = "PROCESSING"
        self.flow["currentInteraction"]["inputTypes"] = list(inputs)
        return self._update()

    def result(self, result_type):
        interaction = self.flow["currentInteraction"]
        self.flow["previousInteractionResult"] = {
            "type": result_type,
            "interactionType": interaction["type"],
            "inputTypes": interaction["inputTypes"],
        }

    def succeed_then_ask(self, interaction, info=None):
        self.result("SUCCESS")
        return self.ask(interaction, info)

    def fail(self, result_type="PIN_FAIL", info=None):
        """The attempt failed: the same interaction is asked again."""
        self.result(result_type)
        return self.ask(self.flow["currentInteraction"]["type"], info or self.flow["currentInteraction"].get("secondFactorInfo"))

    def done(self):
        if "currentInteraction" in self.flow:
            self.result("SUCCESS")
            del self.flow["currentInteraction"]
        self.flow["state"] = "DONE"
        return self._update()

    def error(self, code, message):
        self.flow.pop("currentInteraction", None)
        self.flow["state"] = "ERROR"
        self.flow["error"] = {"code": code, "message": message}
        return self._update()


VIEW_JS = """
const flow = arguments[0];
if (flow !== undefined) window.diagram.update(flow);
const box = document.getElementById("flow-diagram");
const title = box.querySelector(".fd-title");
return {
  type: box.dataset.flowType ?? null,
  state: box.dataset.flowState ?? null,
  title: title ? title.textContent : null,
  nodes: [...box.querySelectorAll(".fd-node")].map((n) => [n.dataset.node, n.dataset.status]),
  current: [...box.querySelectorAll('[aria-current="step"]')].map((n) => n.dataset.node),
  stopped: [...box.querySelectorAll(".fd-stopped")].map((n) => n.dataset.node),
  retries: [...box.querySelectorAll(".fd-retry")].map((b) => [b.closest(".fd-node").dataset.node, b.textContent]),
  details: Object.fromEntries([...box.querySelectorAll(".fd-node")].map((n) => [n.dataset.node, n.textContent])),
  variant: (box.querySelector(".fd-variant") || {}).textContent ?? null,
  empty: (box.querySelector(".fd-empty") || {}).textContent ?? null,
  overflows: box.scrollWidth > box.clientWidth,
};
"""


def show(driver, flow):
    """Feeds one FlowUpdate (None: no flow) and returns what the diagram shows."""
    return driver.execute_script(VIEW_JS, flow)


def read(driver):
    """What the diagram shows, without an update."""
    return driver.execute_script(VIEW_JS)


def check(view, **expected):
    """Asserts the nodes in order with their statuses (keyword order), and the one highlighted."""
    assert [tuple(n) for n in view["nodes"]] == list(expected.items())
    assert view["current"] == [name for name, status in expected.items() if status in CURRENT]
    assert not view["overflows"], "the diagram is wider than its card"


def pending_ends(**steps):
    return dict(steps, DONE="pending", ERROR="pending")


# ----------------------------------------------------------------------------------------------
# tests


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


def test_change_pin(page):
    f = Flow("CHANGE_PIN")
    view = show(page, f.ask("VERIFY_SECOND_FACTOR", PIN_OR_BIOMETRICS))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting", SET_SECOND_FACTOR="pending"))
    assert view["variant"] is None
    show(page, f.give("BIOMETRICS"))
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="waiting"))
    show(page, f.give("PIN"))
    check(show(page, f.done()), VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_change_pin_nevis_style(page):
    f = Flow("CHANGE_PIN", "Nevis style")
    view = show(page, f.ask("SET_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(SET_SECOND_FACTOR="waiting"))
    assert view["variant"] == "Nevis style"
    show(page, f.give("PIN"))
    # a wrong old PIN asks for both again: the loop is on the SET node
    view = show(page, f.fail("PIN_FAIL"))
    check(view, **pending_ends(SET_SECOND_FACTOR="waiting"))
    assert view["retries"] == [["SET_SECOND_FACTOR", "↻ PIN_FAIL ×1"]]
    show(page, f.give("PIN"))
    check(show(page, f.done()), SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_add_biometrics(page):
    f = Flow("ADD_BIOMETRICS")
    view = show(page, f.ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting", SET_SECOND_FACTOR="pending"))
    assert "BIOMETRICS" in view["details"]["SET_SECOND_FACTOR"]
    show(page, f.give("PIN"))
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", BIOMETRICS_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="waiting"))
    show(page, f.give("BIOMETRICS"))
    check(show(page, f.done()), VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_add_biometrics_legacy_order(page):
    f = Flow("ADD_BIOMETRICS", "legacyBioAddFlow")
    view = show(page, f.ask("SET_SECOND_FACTOR", BIOMETRICS_ONLY))
    check(view, **pending_ends(SET_SECOND_FACTOR="waiting", VERIFY_SECOND_FACTOR="pending"))
    assert view["variant"] == "legacyBioAddFlow"
    show(page, f.give("BIOMETRICS"))
    view = show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(SET_SECOND_FACTOR="completed", VERIFY_SECOND_FACTOR="waiting"))
    show(page, f.give("PIN"))
    check(show(page, f.done()), SET_SECOND_FACTOR="completed", VERIFY_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_a_flow_without_a_plan_shows_what_it_has_shown(page):
    """The diagram knows no plans of its own: without one it draws the interactions seen."""
    f = Flow("LOGIN", plan=False)
    check(show(page, f.ask("CONFIRM")), **pending_ends(CONFIRM="waiting"))
    show(page, f.give("CONFIRM"))
    view = show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(CONFIRM="completed", VERIFY_SECOND_FACTOR="waiting"))


def test_add_biometrics_seen_from_the_middle_keeps_the_usual_order(page):
    """A page opened at SET_SECOND_FACTOR draws the plan it is sent, VERIFY first."""
    f = Flow("ADD_BIOMETRICS")
    f.ask("VERIFY_SECOND_FACTOR", PIN_ONLY)
    f.give("PIN")
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", BIOMETRICS_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="waiting"))
    assert view["variant"] is None


def test_remove_biometrics_after_biometrics_removed(page):
    f = Flow("REMOVE_BIOMETRICS")
    view = show(page, f.ask("VERIFY_SECOND_FACTOR", PIN_OR_BIOMETRICS))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting"))
    check(show(page, f.give("BIOMETRICS")), **pending_ends(VERIFY_SECOND_FACTOR="processing"))
    # the key is gone: asked again, now with the PIN only
    view = show(page, f.fail("BIOMETRICS_REMOVED", PIN_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting"))
    assert view["retries"] == [["VERIFY_SECOND_FACTOR", "↻ BIOMETRICS_REMOVED ×1"]]
    assert "VERIFY_SECOND_FACTOR · PIN" in view["details"]["VERIFY_SECOND_FACTOR"]
    assert "BIOMETRICS waiting" not in view["details"]["VERIFY_SECOND_FACTOR"]
    show(page, f.give("PIN"))
    check(show(page, f.done()), VERIFY_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_headless_upgrade(page):
    f = Flow("HEADLESS_UPGRADE")
    view = show(page, f._update())
    check(view, **pending_ends(PROCESSING="processing"))
    assert view["state"] == "PROCESSING"
    check(show(page, f.done()), PROCESSING="completed", DONE="done", ERROR="pending")


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
