// How a flow ended (DONE, ERROR), and the screen for a state or interaction this page does not know.
import { codeDetails, el } from "../api.js";
import { plainWords } from "../plain-words.js";
import { actions, button, loginAccountLabel, serverName } from "./screen-parts.js";

const DONE_TITLES = {
  CHANGE_PIN: "PIN changed",
  ADD_BIOMETRICS: "Biometrics added",
  REMOVE_BIOMETRICS: "Biometrics removed",
  HEADLESS_UPGRADE: "Account key upgraded",
};

export function renderDone(flow, view) {
  let title;
  if (flow.type === "ENROL") {
    const name = (flow.session && flow.session.enrolInfo && flow.session.enrolInfo.displayName) || "";
    title = name ? `Account created for ${name}` : "Account created";
  } else if (flow.type === "LOGIN") {
    const who = loginAccountLabel(flow, view.state);
    title = who ? `Logged in as ${who}` : `Logged in to ${serverName(flow, view.state.phone)}`;
  } else if (flow.type === "SIGN_TRANSACTION") {
    title = "Transaction signed";
  } else if (DONE_TITLES[flow.type]) {
    title = DONE_TITLES[flow.type];
  } else {
    title = "Done";
  }
  view.screen.append(
    el(
      "div",
      { id: "flow-done", className: "screen-center result result-ok" },
      el("div", { className: "result-icon", "aria-hidden": "true", text: "✓" }),
      el("h1", { className: "screen-title", id: "done-title", text: title }),
      el("p", { className: "screen-subtitle", text: serverName(flow, view.state.phone) }),
    ),
    actions(button("home", "Home", "btn-primary", () => view.goHome())),
  );
}

export function renderError(flow, view) {
  const e = flow.error || {};
  const code = String(e.code || "ERROR");
  const box = el(
    "div",
    { id: "flow-error", className: "screen-center result result-error", dataset: { code } },
    el("div", { className: "result-icon", "aria-hidden": "true", text: code === "USER_CANCELED" ? "×" : "!" }),
    el("h1", { className: "screen-title", text: plainWords(code, "Something went wrong") }),
    el("p", { id: "flow-error-message", className: "screen-subtitle", text: e.message || "" }),
    // the codes, for QA: one click away
    codeDetails(el("code", { id: "flow-error-code", className: "error-code", text: code }), e.sdkCode != null ? el("span", { id: "flow-error-sdk", className: "pill", text: `SDK ${e.sdkCode}` }) : null),
  );
  view.screen.append(box, actions(button("home", "Home", "btn-primary", () => view.goHome())));
}

export function renderUnknown(flow, text, view) {
  view.screen.append(
    el("div", { className: "screen-center" }, el("h1", { className: "screen-title", text: flow.type || "Flow" }), el("p", { className: "screen-subtitle", text })),
    flow.state === "WAIT_FOR_INPUT"
      ? actions(button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow()))
      : actions(button("home", "Home", "btn-primary", () => view.goHome())),
  );
}
