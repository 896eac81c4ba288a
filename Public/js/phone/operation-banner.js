// The retried operation (docs/behaviour.md#device-information-and-fcm-token-changes) (a DeviceInformationChange), over the phone's screen: "attempt 2
// of 4, next in 3.2 s", a bar running down to it, Cancel; then how it ended.
import { api, el, clear } from "../api.js";

/** `context`: phonePath(suffix), toast. Returns show(progress). */
export function createOperationBanner(banner, { phonePath, toast }) {
  let timer = null;

  return function show(progress) {
    clearInterval(timer);
    clear(banner);
    const attempts = Array.isArray(progress.attempts) ? progress.attempts : [];
    const done = attempts.length;
    const max = Number(progress.maxAttempts) || done || 1;
    banner.dataset.state = String(progress.state || "");
    banner.dataset.attempts = String(done);
    const title = el("strong", { text: "Updating device information" });
    const line = el("span", { id: "operation-line", className: "operation-line" });
    const bar = el("span", { className: "operation-bar" }, el("span", { className: "operation-bar-fill" }));
    const last = attempts.length ? attempts[attempts.length - 1].outcome : "";
    const cancel = el("button", { id: "operation-cancel", type: "button", className: "btn btn-small", text: "Cancel" });
    cancel.addEventListener("click", () => api(phonePath("/operation"), { method: "DELETE" }).catch((err) => toast.show(err.code, err.message)));
    if (progress.state === "waiting") {
      const total = Number(progress.nextAttemptIn) || 0;
      const deadline = Date.now() + total * 1000;
      const tick = () => {
        const left = Math.max(0, (deadline - Date.now()) / 1000);
        line.textContent = `Attempt ${done} of ${max} failed (${last}). Attempt ${done + 1} of ${max} in ${left.toFixed(1)} s`;
        bar.firstChild.style.width = total > 0 ? `${(100 * left) / total}%` : "0%";
        if (left <= 0) clearInterval(timer);
      };
      tick();
      timer = setInterval(tick, 100);
      banner.append(title, line, bar, cancel);
    } else if (progress.state === "running") {
      line.textContent = done ? `Attempt ${done + 1} of ${max}…` : `Attempt 1 of ${max}…`;
      banner.append(title, line, cancel);
    } else {
      const outcome = { succeeded: "Done", failed: "Failed", cancelled: "Cancelled" }[progress.state] || progress.state;
      line.textContent = `${outcome} after ${done} attempt${done === 1 ? "" : "s"}` + (progress.error ? `: ${progress.error.code}` : ".");
      banner.append(title, line, el("ol", { className: "operation-attempts" }, attempts.map((a) => el("li", { text: `${a.outcome} (waited ${a.waitedBefore} s)` }))));
      timer = setTimeout(() => (banner.hidden = true), progress.state === "succeeded" ? 3000 : 10000);
    }
    banner.hidden = false;
  };
}
