// How the home screen's buttons run their requests: disabled meanwhile, a failure shown in the
// section's error box (or as a toast once the box is gone).
import { el, showError } from "../api.js";

/** Runs `work` with `control` disabled. */
export async function withControl(view, control, errorBox, work) {
  control.disabled = true;
  showError(errorBox, null);
  try {
    await work();
  } catch (err) {
    if (errorBox.isConnected) showError(errorBox, err);
    else view.toast.show(err.code, err.message);
  } finally {
    control.disabled = false;
  }
}

/** Runs a request that starts a flow, and shows the flow it answers with. */
export function startFrom(view, control, errorBox, source, request) {
  return withControl(view, control, errorBox, async () => view.showStartedFlow(source, await request()));
}

/** A button that asks for a second tap before it acts (removals cannot be undone). */
export function confirmButton(view, id, label, confirmLabel, errorBox, action) {
  const b = el("button", { id, type: "button", className: "btn btn-small btn-danger", text: label });
  b.addEventListener("click", () => {
    if (b.dataset.armed !== "true") {
      b.dataset.armed = "true";
      b.textContent = confirmLabel;
      return;
    }
    withControl(view, b, errorBox, action);
  });
  return b;
}
