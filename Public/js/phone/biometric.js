// Biometrics: the OS's prompt, simulated (the tester decides whether the sensor recognises the
// user), and ADD_BIOMETRICS' screen that asks for it.
import { el } from "../api.js";
import { actions, button, serverName } from "./screen-parts.js";

/** The flow's answer to the prompt: its second factor, over the socket. */
const inputSecondFactor = (view) => (result) => {
  if (view.send({ action: "inputSecondFactor", biometrics: result })) view.setBusy(true);
};

/**
 * The prompt over the screen; `onResult("match" | "noMatch")` takes what the sensor read (the
 * flow's second factor unless told otherwise). Cancel closes it (the PIN is still there where offered).
 */
export function biometricPrompt(reason, view, onResult = inputSecondFactor(view)) {
  const existing = document.getElementById("bio-prompt");
  if (existing) existing.remove();
  const close = () => prompt.remove();
  const answer = (result) => {
    close();
    onResult(result);
  };
  const prompt = el(
    "div",
    { id: "bio-prompt", className: "bio-prompt", role: "dialog", "aria-modal": "true", "aria-labelledby": "bio-prompt-title" },
    el(
      "div",
      { className: "bio-sheet" },
      el("div", { className: "bio-icon", "aria-hidden": "true", text: "◉" }),
      el("h2", { id: "bio-prompt-title", className: "bio-title", text: reason }),
      el("p", { className: "hint small", text: "Simulated sensor: choose what it reads." }),
      el(
        "div",
        { className: "bio-actions" },
        button("bio-match", "Match", "btn-primary", () => answer("match")),
        button("bio-no-match", "No match", "btn-secondary", () => answer("noMatch")),
        button("bio-cancel", "Cancel", "btn-ghost", close),
      ),
    ),
  );
  view.screen.append(prompt);
  view.onTeardown(close);
}

/** ADD_BIOMETRICS: the user presents their biometric so that the phone can make its key. */
export function renderSetBiometrics(flow, view) {
  view.screen.append(
    el(
      "div",
      { className: "screen-center", id: "set-biometrics" },
      el("div", { className: "bio-icon bio-icon-large", "aria-hidden": "true", text: "◉" }),
      el("h1", { className: "screen-title", text: "Add your fingerprint" }),
      el("p", { className: "screen-subtitle", text: `Biometrics will verify you at ${serverName(flow, view.state.phone)} instead of the PIN.` }),
    ),
    actions(
      button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow()),
      button("use-biometrics", "Touch the sensor", "btn-primary", () => biometricPrompt("Add your fingerprint", view)),
    ),
  );
}
