// Times on the phone: the status bar's clock, and "now" / "5m ago" labels kept current.
import { el, formatTime, toDate } from "../api.js";

/** "now", "5m ago", or the time of day for older messages. */
export function relativeTime(value) {
  const d = toDate(value);
  if (!d) return "";
  const seconds = (Date.now() - d.getTime()) / 1000;
  if (seconds < 60) return "now";
  if (seconds < 3600) return Math.floor(seconds / 60) + "m ago";
  return String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0");
}

/** A <time> that the clock keeps current (it carries data-received-at). */
export function timeNode(className, value, id) {
  const d = toDate(value);
  return el("time", { id, className, datetime: d ? d.toISOString() : null, title: d ? formatTime(d) : null, dataset: { receivedAt: String(value ?? "") }, text: relativeTime(value) });
}

function refreshTimes() {
  for (const node of document.querySelectorAll("[data-received-at]")) {
    const text = relativeTime(node.dataset.receivedAt);
    if (node.textContent !== text) node.textContent = text;
  }
}

/** Shows the time of day in `clock` and refreshes every relative time on the page, each second. */
export function startClock(clock) {
  const tick = () => {
    const now = new Date();
    const text = String(now.getHours()).padStart(2, "0") + ":" + String(now.getMinutes()).padStart(2, "0");
    if (clock.textContent !== text) clock.textContent = text;
    refreshTimes();
  };
  tick();
  setInterval(tick, 1000);
}
