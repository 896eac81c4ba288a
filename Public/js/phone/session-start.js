// The offline OTP (docs/behaviour.md#offline-otp) on the phone's screen: a scanned session while it is STARTING (the OTP on offer, the
// connection error with the phone's retries and the countdown before the OTP is offered by
// itself, "Get OTP now"), and the OTP once generated, shown as XXXXXX XXXXXX.
import { codeDetails, el, postJSON, showError } from "../api.js";

/** Whether the screen shows the session rather than a flow or the home screen. */
export function showsSession(session, dismissedId) {
  if (!session || typeof session !== "object") return false;
  if (session.state === "STARTING") return true;
  return session.state === "STOPPED" && Boolean(session.otp) && session.id !== dismissedId;
}

/** The session whose "Get OTP now" was pressed: a retry's update redraws the screen, and the
 *  account choice must stay open through it rather than fold back under the user's finger. */
let offeredSessionId = null;

/**
 * Renders the session into `screen`. `hooks`: phoneId, countdown (the phone's otpCountdown, s),
 * cancel() (the socket's cancel), done() (dismiss the OTP), onTeardown(fn) (clear timers when the
 * screen changes).
 */
export function renderSessionStart(screen, session, hooks) {
  if (session.state === "STOPPED") {
    renderOTP(screen, session, hooks);
    return;
  }
  const accounts = Array.isArray(session.accounts) ? session.accounts : [];
  const errorBox = el("div", { id: "session-error", className: "error", role: "alert", hidden: true });
  const status = el("p", { id: "session-status", className: "screen-subtitle" });
  const retry = el("p", { id: "session-retry", className: "hint small" });
  const countdown = el("p", { id: "otp-countdown", className: "hint" });
  const bar = el("span", { className: "operation-bar" }, el("span", { className: "operation-bar-fill" }));
  const choice = el("div", { id: "otp-accounts", className: "otp-accounts", hidden: true });
  const getNow = el("button", { id: "otp-now", type: "button", className: "btn btn-block", text: "Get OTP now" });
  getNow.hidden = !session.otpAvailable;
  getNow.addEventListener("click", () => offer());

  function offer() {
    offeredSessionId = session.id;
    getNow.hidden = true;
    countdown.hidden = true;
    bar.hidden = true;
    choice.hidden = false;
  }

  for (const account of accounts) {
    const pick = el("button", {
      type: "button",
      className: "btn btn-primary btn-block otp-account",
      dataset: { accountId: String(account.id) },
      text: accounts.length === 1 ? `Show the code for ${account.displayName || account.userId}` : `${account.displayName || account.userId} (${account.userId})`,
    });
    pick.addEventListener("click", async () => {
      pick.disabled = true;
      showError(errorBox, null);
      try {
        await postJSON(`/api/phones/${encodeURIComponent(hooks.phoneId)}/otp`, { account: account.id });
      } catch (err) {
        showError(errorBox, err);
        pick.disabled = false;
      }
    });
    choice.append(pick);
  }
  if (accounts.length > 1) choice.prepend(el("p", { className: "hint", text: "Which account do you log in with?" }));
  if (session.otpAvailable && offeredSessionId === session.id) offer();

  const title = session.connectionError ? "The server cannot be reached" : "Connecting…";
  status.textContent = session.connectionError ? `${session.server} does not answer.` : `Fetching the request from ${session.server}.`;
  // the SDK's error, for QA: one click away
  const details = session.connectionError && session.error ? codeDetails(session.error.code, session.error.sdkCode != null ? `SDK ${session.error.sdkCode}` : null) : null;
  const offerAt = session.otpOfferAt ? Date.parse(session.otpOfferAt) : NaN;
  const nextAt = session.nextAttemptAt ? Date.parse(session.nextAttemptAt) : NaN;

  const tick = () => {
    const now = Date.now();
    if (!Number.isNaN(nextAt)) {
      const left = Math.max(0, (nextAt - now) / 1000);
      // one line that updates through the series: the attempt, then the countdown to the next
      retry.textContent = `Can't reach the server (attempt ${session.attempts}); trying again in ${Math.ceil(left)} s`;
    } else if (session.connectionError) {
      retry.textContent = `No more attempts after ${session.attempts}.`;
    }
    if (!session.otpAvailable || Number.isNaN(offerAt) || !choice.hidden) return;
    const left = Math.max(0, (offerAt - now) / 1000);
    const total = Math.max(1, Number(hooks.countdown) || 1);
    countdown.textContent = left > 0 ? `An offline code is offered in ${Math.ceil(left)} s` : "";
    bar.firstChild.style.width = `${Math.min(100, (100 * left) / total)}%`;
    if (left <= 0) offer();
  };
  tick();
  const timer = setInterval(tick, 100);
  hooks.onTeardown(() => clearInterval(timer));

  const cancel = el("button", { id: "cancel", type: "button", className: "btn btn-secondary", text: "Cancel" });
  cancel.addEventListener("click", () => hooks.cancel());
  screen.dataset.state = "STARTING";
  screen.dataset.connectionError = String(Boolean(session.connectionError));
  screen.append(
    el(
      "div",
      { className: "screen-body", id: "session-start" },
      el("header", { className: "screen-header" }, el("h1", { className: "screen-title", text: title }), status, details),
      session.connectionError ? null : el("div", { className: "spinner", "aria-hidden": "true" }),
      retry,
      session.otpAvailable
        ? el("p", { className: "hint small", text: "You can log in with a one-time code instead: type it where you are logging in. It proves you hold this phone, without your PIN." })
        : null,
      countdown,
      Number.isNaN(offerAt) || !session.otpAvailable ? null : bar,
      getNow,
      choice,
      errorBox,
    ),
    el("div", { className: "screen-actions" }, cancel),
  );
}

function renderOTP(screen, session, hooks) {
  const otp = String(session.otp);
  const account = (session.accounts || []).find((a) => a.id === session.otpAccountId) || {};
  const done = el("button", { id: "otp-done", type: "button", className: "btn btn-primary", text: "Done" });
  done.addEventListener("click", () => hooks.done());
  screen.dataset.state = "OTP";
  screen.append(
    el(
      "div",
      { className: "screen-center", id: "otp-result" },
      el("h1", { className: "screen-title", text: "Your one-time code" }),
      el("p", { id: "otp-code", className: "otp-code", text: otp }),
      el("p", { className: "screen-subtitle", text: `For ${account.displayName || account.userId || "your account"} at ${session.server}` }),
      el("p", { className: "hint small", text: "Type it where you are logging in within 2 minutes. This request has ended on the phone." }),
    ),
    el("div", { className: "screen-actions" }, done),
  );
}
