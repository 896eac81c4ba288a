// How a backend session's fields read on the console: its status, whether it logged in, and
// what came of sending its push.
import { el } from "../api.js";
import { STATUS_WORDS } from "../plain-words.js";

/** How far a status has come: a list snapshot never steps a session back. */
export const STATUS_RANK = { pending: 0, redeemed: 1, confirmed: 2, verified: 2, enrolled: 3, loggedin: 3, signed: 3, completed: 3, failed: 3, canceled: 3, expired: 3 };

export const DELIVERY_LABELS = { qr: "QR code / link", push: "Push", external: "Push from the composer or a script", phone: "Started on the phone" };

/** A list row's badge: the status in words (the status itself in data-status). */
export function statusBadge(status, attrs = {}) {
  const node = el("span", attrs);
  setBadge(node, status || "unknown");
  return node;
}

/** The card's badge: the status in words (the status itself in data-status). */
export function setBadge(node, status) {
  const s = String(status || "");
  node.className = "badge status-" + s.replace(/[^a-z0-9_-]/gi, "");
  node.dataset.status = s;
  node.textContent = STATUS_WORDS[s] ?? s;
}

export function loggedinText(value) {
  if (value === true) return "yes";
  if (value === false || value === null || value === undefined || value === "") return "—";
  return String(value);
}

/** What came of sending the push: {kind: "ok" | "warn" | "error", text}; `retryAt`, when a
 * throttled push goes again; `opened`, once the phone has the session (nothing is left to ask). */
export function dispatchInfo(dispatch, retryAt, opened = false) {
  const d = String(dispatch);
  if (d === "dispatched") return { kind: "ok", text: opened ? "The push was sent." : "The push was sent; open it on the phone." };
  if (d === "dispatchWaiting") {
    const at = retryAt ? new Date(retryAt).toLocaleTimeString() : "later";
    return { kind: "warn", text: `The phone took too many pushes just now: this one goes again at ${at}. The QR code and link work meanwhile.` };
  }
  if (d === "dispatchTargetNotFound") return { kind: "warn", text: "No phone to send it to: the user has no phone enrolled, or no phone was chosen. Use the QR code or link." };
  if (d === "dispatchTargetExpired") return { kind: "warn", text: "The phone's push token is no longer registered. Use the QR code or link." };
  if (d.startsWith("dispatchError")) return { kind: "error", text: "Sending the push failed" + (d.includes(":") ? ": " + d.slice(d.indexOf(":") + 1).trim() : ".") };
  return { kind: "warn", text: "" };
}

/** The dispatch code without its detail ("dispatchError: …" -> "dispatchError"). */
export function dispatchCode(dispatch) {
  const d = String(dispatch);
  return d.includes(":") ? d.slice(0, d.indexOf(":")) : d;
}
