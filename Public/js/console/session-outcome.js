// The session card's headline: the outcome, biggest of all, once the session has ended; while
// it waits, a live countdown to its expiry.
import { toDate } from "../api.js";
import { plainWords } from "../plain-words.js";
import { STATUS_RANK } from "./session-labels.js";

const OUTCOMES = {
  enrolled: { kind: "ok", text: "Enrolled" },
  loggedin: { kind: "ok", text: "Logged in" },
  signed: { kind: "ok", text: "Signed" },
  completed: { kind: "ok", text: "Completed" },
  failed: { kind: "error", text: "Failed" },
  canceled: { kind: "warn", text: "Cancelled" },
  expired: { kind: "warn", text: "Expired" },
};

/** "4:07" for 247 seconds. */
export function countdownText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Returns {show(session), refused(text)}: `refused` is a start the backend turned down. */
export function createSessionOutcome() {
  const outcome = document.getElementById("session-outcome");
  const countdown = document.getElementById("session-countdown");
  const value = document.getElementById("session-countdown-value");
  let timer = null;
  let expiresAt = null;

  function tick() {
    const left = expiresAt ? (expiresAt.getTime() - Date.now()) / 1000 : 0;
    value.textContent = countdownText(left);
    countdown.dataset.seconds = String(Math.max(0, Math.ceil(left)));
    if (left <= 0) stop();
  }

  function stop() {
    clearInterval(timer);
    timer = null;
  }

  return {
    refused(text) {
      stop();
      countdown.hidden = true;
      outcome.hidden = false;
      outcome.dataset.kind = "error";
      outcome.dataset.status = "refused";
      outcome.textContent = text;
    },
    show(s) {
      const ended = (STATUS_RANK[s.status] ?? 0) >= 3;
      const known = OUTCOMES[s.status];
      outcome.hidden = !(ended && known);
      if (ended && known) {
        const how = s.status === "loggedin" && s.otplogin ? " with an offline OTP" : "";
        outcome.dataset.kind = known.kind;
        outcome.dataset.status = s.status;
        // a failure in words, unless they only say the outcome again ("Cancelled: Cancelled"); one
        // without words is named on the card's Failure line, behind Details
        const why = s.failure ? plainWords(String(s.failure), null) : null;
        const adds = why && why.toLowerCase() !== known.text.toLowerCase();
        outcome.textContent = known.text + how + (adds ? `: ${why}` : "");
      }
      countdown.hidden = ended;
      expiresAt = ended ? null : toDate(s.expiresAt);
      if (ended) stop();
      else {
        tick();
        timer ??= setInterval(tick, 1000);
      }
    },
  };
}
