"""The flow diagram (Public/js/flow-diagram.js) on its own, without an AuthPhone server: what the
browser tests of it share.

Public/ and the harness page (flow_diagram_harness.html) are served by Python's http.server on a
free port (module scripts need http, not file://); a test feeds the diagram the FlowUpdates a flow
type goes through, each with its plan as the server sends it (`Flow`), and checks its nodes, their
statuses and which one is aria-current. The fixtures `site` and `page` are imported by the test
files that use them.
"""

import copy
import functools
import http.server
import pathlib
import threading
import uuid

import pytest
from selenium.webdriver.support.ui import WebDriverWait

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
