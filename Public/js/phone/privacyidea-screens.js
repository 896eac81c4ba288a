// privacyIDEA's requests on the phone's screen (docs/privacyidea.md): a push token's enrolment
// (accept privacyIDEA's server first, as the seeds' server confirmation does) and a login
// challenge (privacyIDEA's title and question exactly as sent; Accept or Decline, or the presence
// option the login page shows), then how each ended. The answer goes to the server by POST; the
// screen follows the request's updates over the WebSocket.
import { el, postJSON } from "../api.js";
import { plainWords } from "../plain-words.js";
import { biometricPrompt } from "./biometric.js";
import { createPinPad, pinLength, pinMessageBox } from "./pin-pad.js";
import { actions, button, processingScreen, screenHeader, serverCard } from "./screen-parts.js";

/** The accept waiting for the phone's unlock: {nonce, body}; null when none. */
let unlocking = null;
/** The nonce of a listed challenge the user opened from the list; null: the one on screen. */
let opened = null;

const OUTCOMES = {
  ENROLLED: { icon: "✓", ok: true, title: "Token added" },
  ACCEPTED: { icon: "✓", ok: true, title: "Accepted" },
  DECLINED: { icon: "×", ok: false, title: "Declined" },
  CANCELLED: { icon: "×", ok: false, title: "Cancelled" },
};

const CONTAINER_REGISTERED = { icon: "✓", ok: true, title: "Container registered" };

/** A refusal's title where it is not a failure to finish: the request itself was refused. */
const REFUSED = new Set(["PUSH_CHALLENGE_FORGED"]);

/** `view`: the screen's (screen, phonePath, setBusy, render, toast, goHome). */
export function renderPrivacyIDEA(request, view) {
  const listed = (request.waiting ?? []).find((r) => r.nonce === opened);
  if (listed) return renderChallenge(listed, view, request);
  opened = null;
  if (request.state === "WAIT_FOR_INPUT" && request.kind !== "CHALLENGE") renderEnrolment(request, view);
  else if (request.state === "WAIT_FOR_INPUT") renderChallenge(request, view);
  else if (request.state === "PROCESSING") renderProcessing(request, view);
  else if (request.state === "DONE") renderDone(request, view);
  else renderError(request, view);
}

/** Sends the user's answer; the socket brings what became of it. A refusal leaves the screen as it was. */
function answer(view, body) {
  view.setBusy(true);
  postJSON(view.phonePath("/privacyidea/answer"), body).catch((err) => {
    view.toast.show(err.code, err.message);
    view.render(true);
  });
}

/** An accept: at once, or where the challenge asks to unlock the phone, after its PIN or biometric. */
function accept(request, view, body) {
  if (!Array.isArray(request.unlockWith)) return answer(view, body);
  unlocking = { nonce: request.nonce, body };
  view.render(true);
}

function tokenFacts(request) {
  return el(
    "dl",
    { id: "privacyidea-token", className: "kv" },
    el("dt", { text: "Issuer" }),
    el("dd", { id: "privacyidea-issuer", text: request.issuer || "—" }),
    el("dt", { text: "Label" }),
    el("dd", { id: "privacyidea-label", text: request.label || "—" }),
    el("dt", { text: "Serial" }),
    el("dd", { id: "privacyidea-serial", text: request.serial || "—" }),
  );
}

/** A token (or a request for one) by its label and serial: privacyIDEA labels a token by its serial unless told otherwise. */
export const tokenName = (token) => (token.label && token.label !== token.serial ? `${token.label} (${token.serial})` : String(token.serial || ""));

const server = (request) => serverCard({ name: request.issuer || "privacyIDEA", url: request.origin });

/** A push token's enrolment or a container's registration: the server to accept, and the passphrase a container asks for. */
function renderEnrolment(request, view) {
  const container = request.kind === "CONTAINER";
  const asked = container && request.passphrasePrompt != null;
  const passphrase = asked ? el("input", { id: "privacyidea-passphrase", type: "password", autocomplete: "off" }) : null;
  view.screen.append(
    el(
      "div",
      { className: "screen-body" },
      screenHeader(
        container
          ? `Register this phone as a privacyIDEA container from ${request.origin}?`
          : request.kind === "TIQR_ENROLMENT"
            ? `Add a tiqr identity from ${request.origin}?`
            : `Add ${request.server === "eduMFA" ? "an eduMFA" : "a privacyIDEA"} token from ${request.origin}?`,
        null,
      ),
      server(request),
      tokenFacts(request),
      asked ? el("label", { className: "field" }, el("span", { className: "field-label", text: request.passphrasePrompt }), passphrase) : null,
      el("p", { className: "hint small", text: "The phone talks only to privacyIDEA servers you accept. Accept only if you asked this one for a token." }),
    ),
    actions(
      button("cancel", "Cancel", "btn-secondary", () => answer(view, { accept: false })),
      button("accept", "Accept", "btn-primary", () => answer(view, asked ? { accept: true, passphrase: passphrase.value } : { accept: true })),
    ),
  );
}

/** privacyIDEA's question, exactly as sent (line breaks and spaces kept). */
const question = (request) => el("p", { id: "privacyidea-question", className: "transaction-text", text: request.question ?? "" });

/**
 * The phone's other open challenges, newest first (a user who logged in again left the older
 * open): each opens on the screen, to be answered on its own. `shown` is the request on screen.
 */
function waitingList(shown, view) {
  const others = (shown.waiting ?? []).filter((r) => r.nonce !== opened);
  if (!others.length) return null;
  const open = (nonce) => () => {
    opened = nonce;
    view.render(true);
  };
  return el(
    "section",
    { id: "privacyidea-waiting", className: "waiting-list" },
    el("h2", { className: "hint", text: others.length === 1 ? "1 more open request" : `${others.length} more open requests` }),
    ...others.map((r) => button(`waiting-${r.nonce}`, `${r.title ?? "privacyIDEA"}: ${tokenName(r)}`, "btn-secondary waiting-request", open(r.nonce))),
  );
}

/** `shown`: the request on screen, when `request` is one listed with it that the user opened. */
function renderChallenge(request, view, shown = request) {
  if (unlocking && unlocking.nonce === request.nonce) return renderUnlock(request, view, unlocking.body);
  unlocking = null;
  const back = shown === request ? [] : [button("waiting-back", "Back", "btn-secondary", () => {
    opened = null;
    view.render(true);
  })];
  const options = Array.isArray(request.presenceOptions) ? request.presenceOptions : [];
  const body = el(
    "div",
    { className: "screen-body" },
    el("header", { className: "screen-header" }, el("h1", { id: "privacyidea-title", className: "screen-title pre-text", text: request.title ?? "" })),
    server(request),
    question(request),
    el("p", { className: "hint small", text: "Token " + tokenName(request) }),
    waitingList(shown, view),
  );
  const nonce = request.nonce;
  const decline = declineButtons(request, view);
  if (!options.length) {
    view.screen.append(body, actions(...back, ...decline, button("accept", "Accept", "btn-primary", () => accept(request, view, { accept: true, nonce }))));
    return;
  }
  const choices = options.map((option, i) => {
    const b = button(`presence-${i}`, option, "btn-primary presence-option", () => accept(request, view, { accept: true, nonce, presence: option }));
    b.dataset.option = option;
    return b;
  });
  body.append(el("p", { className: "hint", text: "To accept, press the option your login page shows." }), el("div", { id: "presence-options", className: "presence-options" }, choices));
  view.screen.append(body, actions(...back, ...decline));
}

/**
 * The phone's own lock before an accept (privacyIDEA's `push_force_app_pin`, or the phone's
 * setting), as privacyIDEA's app asks it: the biometric prompt first where the phone has one, the
 * PIN pad where it has a PIN. Back returns to the question.
 */
function renderUnlock(request, view, body) {
  const offered = request.unlockWith;
  const unlocked = (factor) => answer(view, { ...body, ...factor });
  const [messageBox, setMessage] = pinMessageBox();
  const parts = [screenHeader("Unlock to accept", `${request.issuer || "privacyIDEA"}: ${tokenName(request)}`), messageBox];
  if (!offered.length) setMessage("This phone has neither a PIN nor a biometric: it cannot unlock to accept. Decline, or set one up first.", "error");
  if (offered.includes("PIN")) {
    const pad = createPinPad(
      {
        length: pinLength(view.state.phone),
        message: setMessage,
        onSubmit(digits) {
          const pin = digits.join("");
          pad.wipe();
          unlocked({ pin });
        },
      },
      view.onTeardown,
    );
    parts.push(pad.root);
  }
  const buttons = [button("unlock-back", "Back", "btn-secondary", () => {
    unlocking = null;
    view.render(true);
  })];
  const prompt = () => biometricPrompt("Unlock to accept", view, (result) => unlocked({ biometrics: result }));
  if (offered.includes("BIOMETRIC")) buttons.push(button("use-biometrics", "Use biometrics", "btn-primary", prompt));
  view.screen.append(el("div", { id: "privacyidea-unlock", className: "pin-screen" }, ...parts), actions(...buttons));
  if (offered.includes("BIOMETRIC")) prompt();
}

/** What a decline may say, where privacyIDEA takes a reason (its log tells them apart). */
const DECLINE_REASONS = {
  unknown_trigger: { id: "decline-not-me", text: "Not me", said: "You told privacyIDEA you did not start this login." },
  cancelled: { id: "decline-cancel", text: "Cancel login", said: "You cancelled your own login." },
};

/** Decline, or with reasons one button for each. */
function declineButtons(request, view) {
  const reasons = (Array.isArray(request.declineReasons) ? request.declineReasons : []).filter((r) => DECLINE_REASONS[r]);
  const nonce = request.nonce;
  if (!reasons.length) return [button("decline", "Decline", "btn-secondary", () => answer(view, { accept: false, nonce }))];
  return reasons.map((reason) => button(DECLINE_REASONS[reason].id, DECLINE_REASONS[reason].text, "btn-secondary", () => answer(view, { accept: false, nonce, declineReason: reason })));
}

function renderProcessing(request, view) {
  const text = request.kind === "CHALLENGE" ? "Sending your answer to privacyIDEA…" : "Registering with privacyIDEA…";
  view.screen.append(processingScreen("privacyidea-processing", text, attemptsLine(request, view)));
}

/** A registration privacyIDEA did not take yet: which attempt failed and why, and the countdown to the next. */
function attemptsLine(request, view) {
  if (!request.attempt || request.nextAttemptIn == null) return null;
  const line = el("p", { id: "privacyidea-attempts", className: "hint small", role: "status", dataset: { attempt: String(request.attempt) } });
  const nextAt = Date.now() + 1000 * Number(request.nextAttemptIn);
  const failed = `Attempt ${request.attempt} of ${request.maxAttempts} failed${request.attemptFailure ? ": " + request.attemptFailure : ""}.`;
  const tick = () => {
    const left = Math.ceil(Math.max(0, nextAt - Date.now()) / 1000);
    line.textContent = `${failed} ${left > 0 ? `Trying again in ${left} s.` : "Trying again…"}`;
  };
  tick();
  const timer = setInterval(tick, 250);
  view.onTeardown(() => clearInterval(timer));
  return line;
}

/** A result screen: its icon and title, the lines under them, and Home. */
function result(view, attrs, ok, icon, title, ...lines) {
  view.screen.append(
    el(
      "div",
      { ...attrs, className: "screen-center result " + (ok ? "result-ok" : "result-error") },
      el("div", { className: "result-icon", "aria-hidden": "true", text: icon }),
      el("h1", { className: "screen-title", text: title }),
      ...lines,
    ),
    actions(button("home", "Home", "btn-primary", () => view.goHome())),
  );
}

const tokenLine = (request) => el("p", { className: "screen-subtitle", text: (request.issuer ? request.issuer + ": " : "") + tokenName(request) });

function renderDone(request, view) {
  const outcome = (request.kind === "CONTAINER" && request.outcome === "ENROLLED" ? CONTAINER_REGISTERED : OUTCOMES[request.outcome]) || { icon: "✓", ok: true, title: "Done" };
  const reason = DECLINE_REASONS[request.declineReason];
  const said = reason ? el("p", { id: "privacyidea-decline-reason", className: "screen-subtitle", text: reason.said }) : null;
  // privacyIDEA's push_code_to_phone: the code the user types into the login page
  result(
    view,
    { id: "privacyidea-done", dataset: { outcome: String(request.outcome || "") } },
    outcome.ok,
    outcome.icon,
    outcome.title,
    said,
    displayCode(request),
    tokenLine(request),
    waitingList(request, view),
  );
}

/** privacyIDEA's push_code_to_phone, or a tiqr response its server could not be sent: the code the user types into the login page. */
function displayCode(request) {
  if (!request.displayCode) return null;
  return el(
    "div",
    { id: "privacyidea-display-code", className: "display-code" },
    el("p", { className: "hint", text: request.displayMessage || "Enter the code to log in" }),
    el("p", { className: "otp-code", text: request.displayCode }),
  );
}

/** The error in words; its code (and the server's words, where others are shown) behind Details. */
function renderError(request, view) {
  const e = request.error || {};
  const code = String(e.code || "ERROR");
  const plain = plainWords(code, null);
  const title = REFUSED.has(code)
    ? "Refused"
    : ({ ENROLMENT: "Token not added", CONTAINER: "Container not registered", TIQR_ENROLMENT: "Identity not added" }[request.kind] ?? "Not confirmed");
  result(
    view,
    // the flow's error box id: the tests' screen waits read it alike
    { id: "flow-error", dataset: { code } },
    false,
    "!",
    title,
    el("p", { id: "privacyidea-error-words", className: "screen-subtitle", text: plain ?? (e.message || "") }),
    displayCode(request),
    request.question != null ? el("div", { className: "refused-request" }, el("p", { className: "hint", text: "The request said:" }), question(request)) : null,
    tokenLine(request),
    waitingList(request, view),
    el(
      "details",
      { className: "error-details" },
      el("summary", { text: "Details" }),
      el("code", { id: "privacyidea-error-code", className: "error-code", text: code }),
      plain && e.message ? el("p", { className: "hint", text: e.message }) : null,
    ),
  );
}
