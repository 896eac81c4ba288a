// The screens that take a PIN: choose one (SET_SECOND_FACTOR, entered twice; an enrolment may
// set biometrics with it) and enter it (VERIFY_SECOND_FACTOR, where biometrics may be offered
// first and a blocked PIN is told).
import { el } from "../api.js";
import { biometricPrompt } from "./biometric.js";
import { attemptsNote, checkFirstEntry, countDownPenalty, createPinPad, penaltyNote, pinLength, pinMessageBox } from "./pin-pad.js";
import { actions, button, serverName } from "./screen-parts.js";

/** Whether the interaction offers this second factor. */
export function offers(ci, factor) {
  const info = ci && ci.secondFactorInfo;
  return Boolean(info && Array.isArray(info.allowedSecondFactorTypes) && info.allowedSecondFactorTypes.includes(factor));
}

export function renderSetPin(flow, view) {
  const length = pinLength(view.state.phone);
  const chooseText = flow.type === "CHANGE_PIN" ? "Choose a new PIN" : "Choose a PIN";
  const title = el("h1", { id: "pin-title", className: "screen-title", text: chooseText });
  const subtitle = el("p", { className: "screen-subtitle", text: `${length} digits. You'll need it to use your account on ${serverName(flow, view.state.phone)}.` });
  const [messageBox, setMessage] = pinMessageBox();
  const prev = flow.previousInteractionResult;
  if (prev && prev.type && prev.type !== "SUCCESS") setMessage(`The PIN was not accepted (${prev.type}). Choose another.`, "error");

  // Seeds 000 and 002: an enrolment may set the biometric with the PIN, in the same input; the
  // sensor always matches when a factor is set, so there is no prompt to fail.
  const withBiometrics = offers(flow.currentInteraction, "BIOMETRICS")
    ? el("input", { id: "set-with-biometrics", type: "checkbox" })
    : null;
  const biometricsChoice = withBiometrics
    ? el("label", { className: "setting", id: "set-with-biometrics-row" }, withBiometrics, el("span", { text: " Also use biometrics (fingerprint or face)" }))
    : null;

  const first = [];
  let phase = "choose";
  let shown = true; // until the screen changes
  const startOver = () => {
    first.fill(0);
    first.length = 0;
    phase = "choose";
    pad.setPhase(phase);
    title.textContent = chooseText;
  };
  /** The first entry, checked against the server's policy before it is asked again. */
  async function choose(digits) {
    for (const d of digits) first.push(d);
    pad.wipe();
    if (await checkFirstEntry(view, pad, setMessage, first, () => shown)) {
      phase = "repeat";
      pad.setPhase(phase);
      title.textContent = "Repeat your PIN";
    } else if (shown) startOver();
  }
  const pad = createPinPad(
    {
      length,
      message: setMessage,
      onSubmit(digits) {
        if (phase === "choose") {
          choose(digits);
          return;
        }
        const same = first.length === digits.length && first.every((d, i) => d === digits[i]);
        if (!same) {
          pad.wipe();
          startOver();
          setMessage("The PINs don't match. Start over.", "error");
          return;
        }
        const pin = digits.join("");
        first.fill(0);
        first.length = 0;
        pad.wipe();
        pad.lock();
        const input = withBiometrics && withBiometrics.checked ? { action: "inputSecondFactor", pin, biometrics: "match" } : { action: "inputSecondFactor", pin };
        if (view.send(input)) {
          setMessage("Saving…", "hint");
          view.setBusy(true);
        } else {
          pad.unlock();
          startOver();
        }
      },
    },
    view.onTeardown,
  );
  pad.setPhase(phase);
  view.onTeardown(() => {
    shown = false;
    first.fill(0);
    first.length = 0;
  });

  view.screen.append(
    el("div", { className: "pin-screen" }, el("header", { className: "screen-header" }, title, subtitle), messageBox, pad.root, biometricsChoice),
    actions(button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow(pad))),
  );
}

export function renderVerifyPin(flow, ci, view) {
  const length = pinLength(view.state.phone);
  const sfa = flow.secondFactorAccount || null;
  const prev = flow.previousInteractionResult;
  const pinOffered = offers(ci, "PIN");
  const bioOffered = offers(ci, "BIOMETRICS");
  const title = el("h1", { id: "pin-title", className: "screen-title", text: pinOffered ? "Enter your PIN" : "Use your biometric" });
  const purpose =
    {
      LOGIN: "to log in to",
      SIGN_TRANSACTION: "to sign the transaction for",
      CHANGE_PIN: "to change your PIN at",
      ADD_BIOMETRICS: "to add biometrics at",
      REMOVE_BIOMETRICS: "to remove biometrics at",
    }[flow.type] || "for";
  const subtitle = el("p", { className: "screen-subtitle", text: `${purpose} ${serverName(flow, view.state.phone)}` });
  const [messageBox, setMessage] = pinMessageBox();
  if (prev && prev.type === "PIN_FAIL") setMessage("Wrong PIN", "error");
  else if (prev && prev.type === "BIOMETRICS_REMOVED") setMessage("Your enrolled fingerprints changed, so biometrics were turned off. Enter your PIN.", "error");
  else if (prev && prev.type && prev.type !== "SUCCESS") setMessage(prev.type, "error");

  const penalty = penaltyNote(sfa);
  const extra = [attemptsNote(sfa), penalty].filter(Boolean);
  const blocked = !!(sfa && sfa.isBlocked);
  if (blocked) {
    const text = bioOffered ? "Your PIN is blocked. A biometric verification unblocks it." : "Your PIN is blocked. This account can no longer be used with a PIN.";
    extra.push(el("p", { id: "pin-blocked", className: "notice notice-error", text }));
  }

  const pad = createPinPad(
    {
      length,
      message: setMessage,
      onSubmit(digits) {
        const pin = digits.join("");
        pad.wipe();
        pad.lock();
        if (view.send({ action: "inputSecondFactor", pin })) {
          setMessage("Checking…", "hint");
          view.setBusy(true);
        } else {
          pad.unlock();
        }
      },
    },
    view.onTeardown,
  );
  pad.setPhase("verify");
  if (!pinOffered) {
    pad.lock();
    pad.root.hidden = true;
  } else if (penalty) {
    countDownPenalty(penalty, Number(sfa.penalisedFor), pad, view.onTeardown);
  }

  const buttons = [button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow(pad))];
  if (bioOffered) buttons.push(button("use-biometrics", "Use biometrics", "btn-primary", () => biometricPrompt("Verify it's you", view)));
  view.screen.append(el("div", { className: "pin-screen" }, el("header", { className: "screen-header" }, title, subtitle), messageBox, ...extra, pad.root), actions(...buttons));
  // docs/behaviour.md#biometrics: when biometrics are offered the prompt comes first; the PIN stays a way out.
  if (bioOffered && !(prev && prev.type === "BIOMETRICS_REMOVED")) biometricPrompt("Verify it's you", view);
}
