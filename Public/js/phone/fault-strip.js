// Faults set on purpose (from the console) show in the device controls while they are in force.
import { el, clear, formatTime } from "../api.js";

/** `strip`: the list of faults; `none`: what says there are none. */
export function showFaults({ strip, none }, faults) {
  clear(strip);
  strip.hidden = faults.length === 0;
  none.hidden = faults.length > 0;
  strip.dataset.count = String(faults.length);
  for (const f of faults) {
    strip.append(el("span", { className: "fault-item", dataset: { kind: String(f.kind || "") }, text: `⚠ ${f.description} · until ${formatTime(f.expiresAt)}` }));
  }
}
