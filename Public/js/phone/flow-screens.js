// The screen for the current flow: which one its state and interaction call for.
import { el } from "../api.js";
import { renderSetBiometrics } from "./biometric.js";
import { renderConfirmEnrol, renderConfirmLogin } from "./confirm.js";
import { isNevisPinChange, renderNevisPinChange } from "./nevis-pin-change.js";
import { offers, renderSetPin, renderVerifyPin } from "./pin-screens.js";
import { renderDone, renderError, renderUnknown } from "./result.js";
import { processingScreen } from "./screen-parts.js";
import { renderConfirmTransaction } from "./transaction.js";

export function renderFlow(flow, view) {
  switch (flow.state) {
    case "PROCESSING":
      renderProcessing(flow, view);
      break;
    case "WAIT_FOR_INPUT":
      renderWaitForInput(flow, flow.currentInteraction || null, view);
      break;
    case "DONE":
      renderDone(flow, view);
      break;
    case "ERROR":
      renderError(flow, view);
      break;
    default:
      renderUnknown(flow, `Unknown state ${flow.state}`, view);
  }
}

function renderProcessing(flow, view) {
  const text = flow.type === "HEADLESS_UPGRADE" ? "The server is upgrading your account key…" : "Processing…";
  view.screen.append(processingScreen("flow-processing", text, el("span", { className: "pill", text: flow.type || "" })));
}

function renderWaitForInput(flow, ci, view) {
  const type = ci && ci.type;
  if (type === "CONFIRM") {
    if (flow.type === "ENROL") renderConfirmEnrol(flow, ci, view);
    else renderConfirmLogin(flow, ci, view);
  } else if (type === "CONFIRM_TRANSACTION") {
    renderConfirmTransaction(flow, view);
  } else if (type === "SET_SECOND_FACTOR") {
    if (offers(ci, "BIOMETRICS") && !offers(ci, "PIN")) renderSetBiometrics(flow, view);
    else if (isNevisPinChange(flow)) renderNevisPinChange(flow, view);
    else renderSetPin(flow, view);
  } else if (type === "VERIFY_SECOND_FACTOR") {
    renderVerifyPin(flow, ci, view);
  } else {
    renderUnknown(flow, `This screen cannot show the interaction ${type || "(none)"} yet.`, view);
  }
}
