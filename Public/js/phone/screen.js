// The phone's screen: shows the home screen, a scanned session (docs/behaviour.md#offline-otp),
// the current flow or the privacyIDEA request (docs/privacyidea.md), whichever the state calls
// for, and redraws only when that changes. Each drawing may leave tear-down hooks (wipe PIN
// digits, stop timers, remove key listeners), run before the next.
import { el, clear } from "../api.js";
import { renderFlow } from "./flow-screens.js";
import { renderHome } from "./home.js";
import { renderPrivacyIDEA } from "./privacyidea-screens.js";
import { focusFirstAction } from "./screen-focus.js";
import { renderSessionStart, showsSession } from "./session-start.js";
import { writeDismissedFlow } from "./storage.js";

const FINAL_STATES = new Set(["DONE", "ERROR"]);

/**
 * `app`: state, phoneId, phoneName, phonePath(suffix), send(action), toast,
 * showStartedFlow(source, answer), inboxSection(), otpSection(), privacyIDEASection(), containersSection(), messagesSection(),
 * privacyIDEA ({isShown, dismiss}). Returns {render, dismissResults, isBusy, showNotFound, tearDown}.
 */
export function createScreen(node, app) {
  const { state } = app;
  let teardowns = [];

  /** What the screens receive: the app's context, the screen element and its lifetime. */
  const view = {
    ...app,
    screen: node,
    render,
    onTeardown: (fn) => teardowns.push(fn),
    setBusy,
    cancelFlow,
    goHome,
  };

  function currentView() {
    if (showsSession(state.session, state.dismissedSessionId)) return "SESSION";
    const flow = state.flow;
    const flowShown = Boolean(flow) && !(FINAL_STATES.has(flow.state) && flow.id === state.dismissedFlowId);
    const requestShown = app.privacyIDEA.isShown();
    if (flowShown && requestShown) return foremost(flow, state.privacyIDEA);
    return flowShown ? "FLOW" : requestShown ? "PRIVACYIDEA" : "HOME";
  }

  /** A flow and a privacyIDEA request both to show: the one still under way, else the one that changed last. */
  function foremost(flow, request) {
    const flowLive = !FINAL_STATES.has(flow.state);
    const requestLive = !FINAL_STATES.has(request.state);
    if (flowLive !== requestLive) return requestLive ? "PRIVACYIDEA" : "FLOW";
    return state.lastOnScreen === "privacyIDEA" ? "PRIVACYIDEA" : "FLOW";
  }

  function tearDown() {
    const fns = teardowns;
    teardowns = [];
    for (const fn of fns) {
      try {
        fn();
      } catch {
        // ignore
      }
    }
  }

  function setAttrs(attrs) {
    for (const name of ["state", "interaction", "flowType", "flowId", "prevResult", "busy", "connectionError"]) delete node.dataset[name];
    for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== "") node.dataset[k] = String(v);
  }

  /** Disables the screen's action buttons while an input is on its way to the server. */
  function setBusy(busy) {
    node.dataset.busy = busy ? "true" : "false";
    for (const b of node.querySelectorAll("button.btn")) b.disabled = busy;
  }

  /** Cancels the flow; `pad`, the PIN pad on the screen, is wiped first. */
  function cancelFlow(pad) {
    if (pad) pad.wipe();
    if (app.send({ action: "cancel" })) setBusy(true);
  }

  /** "Home" hides only the final flow or privacyIDEA request it was pressed on (a flow's dismissal is kept by its id). */
  function goHome() {
    if (currentView() === "PRIVACYIDEA") app.privacyIDEA.dismiss();
    else if (state.flow) dismissFlow(state.flow);
    app.toast.hide();
    render(true);
  }

  function dismissFlow(flow) {
    state.dismissedFlowId = flow.id;
    writeDismissedFlow(app.phoneId, flow.id);
  }

  /**
   * Goes Home from the flow and the privacyIDEA request if they are finished, as "Home" on their
   * results would (one under way stays); the caller draws the screen. A new push slides over the
   * home screen, and a reload does not bring an old result back.
   */
  function dismissResults(flow, request) {
    if (flow && FINAL_STATES.has(flow.state)) dismissFlow(flow);
    if (request && FINAL_STATES.has(request.state)) app.privacyIDEA.dismiss(request);
  }

  function render(force = false) {
    if (state.notFound) return;
    const shown = currentView();
    let key;
    if (shown === "HOME") {
      const p = state.phone || {};
      key = "HOME:" + JSON.stringify([p.name, p.accounts, p.pinLength, p.hasPin, p.biometrics]);
    } else if (shown === "SESSION") {
      key = "SESSION:" + JSON.stringify(state.session);
    } else if (shown === "PRIVACYIDEA") {
      key = "PRIVACYIDEA:" + JSON.stringify(state.privacyIDEA);
    } else {
      key = "FLOW:" + JSON.stringify(state.flow);
    }
    if (!force && key === state.renderedKey) return;
    // another screen (not the same one redrawn): a toast about the last one has had its say
    const flow = state.flow || {};
    const request = state.privacyIDEA || {};
    const identity =
      shown === "FLOW"
        ? ["FLOW", flow.id, flow.state, flow.currentInteraction && flow.currentInteraction.type].join(":")
        : shown === "SESSION"
          ? ["SESSION", state.session && state.session.id, state.session && state.session.state].join(":")
          : shown === "PRIVACYIDEA"
            ? ["PRIVACYIDEA", request.kind, request.serial, request.nonce, request.state].join(":")
            : shown;
    const newScreen = state.renderedIdentity !== undefined && identity !== state.renderedIdentity;
    if (newScreen) app.toast.hide();
    state.renderedIdentity = identity;
    // the home screen redrawn (a setting changed) keeps its scroll position
    const scrolled = node.firstElementChild;
    const scrollTop = shown === "HOME" && String(state.renderedKey).startsWith("HOME:") && scrolled ? scrolled.scrollTop : 0;
    state.renderedKey = key;
    // the same screen redrawn keeps the focus it had (on its first action: the focused element goes)
    const hadFocus = node.contains(document.activeElement);

    tearDown();
    clear(node);
    node.scrollTop = 0;
    draw(shown, scrollTop);
    // the page's first screen leaves the focus where a page load puts it
    if (newScreen || hadFocus) focusFirstAction(node);
  }

  /** Draws the screen `shown` (currentView) calls for. */
  function draw(shown, scrollTop) {
    if (shown === "HOME") {
      setAttrs({ state: "HOME" });
      renderHome(view);
      if (node.firstElementChild) node.firstElementChild.scrollTop = scrollTop;
      return;
    }
    if (shown === "SESSION") {
      setAttrs({});
      renderSessionStart(node, state.session, {
        phoneId: app.phoneId,
        countdown: state.phone && state.phone.settings ? state.phone.settings.otpCountdown : 0,
        cancel: () => app.send({ action: "cancel" }),
        done: () => {
          state.dismissedSessionId = state.session && state.session.id;
          render(true);
        },
        onTeardown: view.onTeardown,
      });
      return;
    }
    if (shown === "PRIVACYIDEA") {
      const request = state.privacyIDEA;
      setAttrs({ state: request.state, flowType: "PRIVACYIDEA_" + request.kind });
      renderPrivacyIDEA(request, view);
      return;
    }
    const flow = state.flow;
    const ci = flow.currentInteraction || null;
    setAttrs({
      state: flow.state,
      interaction: flow.state === "WAIT_FOR_INPUT" && ci ? ci.type : "",
      flowType: flow.type,
      flowId: flow.id,
      prevResult: flow.previousInteractionResult && flow.previousInteractionResult.type,
    });
    renderFlow(flow, view);
  }

  function showNotFound(err) {
    tearDown();
    clear(node);
    setAttrs({ state: "NOT_FOUND" });
    node.append(
      el(
        "div",
        { className: "screen-center result result-error" },
        el("div", { className: "result-icon", "aria-hidden": "true", text: "?" }),
        el("h1", { className: "screen-title", text: "No such phone" }),
        el("p", { className: "error-line" }, el("code", { className: "error-code", text: err.code || "PHONE_NOT_FOUND" })),
        el("p", { className: "screen-subtitle", text: err.message || "" }),
        el("a", { className: "btn btn-primary", href: "/", text: "All phones" }),
      ),
    );
  }

  return { render, dismissResults, isBusy: () => node.dataset.busy === "true", showNotFound, tearDown };
}
