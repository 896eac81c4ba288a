// Faults set on purpose (from the console) show as a strip at the top of the phone's screen
// while they are in force.
import { el, clear, formatTime } from "../api.js";

export function showFaults(strip, faults) {
  clear(strip);
  strip.hidden = faults.length === 0;
  strip.dataset.count = String(faults.length);
  for (const f of faults) {
    strip.append(el("span", { className: "fault-item", dataset: { kind: String(f.kind || "") }, text: `⚠ ${f.description} · until ${formatTime(f.expiresAt)}` }));
  }
}
