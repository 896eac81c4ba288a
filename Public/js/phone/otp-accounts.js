// The phone's OTP accounts (otpauth:// key URIs, docs/otp.md#otpauth-accounts) on the home screen:
// each with its code, for TOTP a countdown bar that asks for the next code when the period ends
// (not sooner), for HOTP a "Next" button, and removal. The key never reaches the page: the
// server makes each code when asked. The list follows the screen's otpAccount messages.
import { api, getJSON, postJSON, el, showError } from "../api.js";
import { confirmButton, withControl } from "./controls.js";

/** "123 456", "1234 5678": the code in two halves, as authenticator apps show it. */
function grouped(code) {
  const text = String(code || "");
  const half = Math.ceil(text.length / 2);
  return text.slice(0, half) + " " + text.slice(half);
}

/**
 * `context`: phonePath(suffix), toast. Built once, so that the codes and their timers outlive the
 * home screen's redraws. Returns {sync, receive, section}: sync() reads the list again (after a
 * connect), receive(change) applies an otpAccount message, section() is the home screen's part.
 */
export function createOTPAccounts({ phonePath, toast }) {
  // account id -> {account, row, codeNode, bar, shownCounter, timer, stale, period, endsAt (ms)}
  const entries = new Map();
  const view = { toast };
  const list = el("ul", { id: "otp-accounts", className: "account-list otp-list" });
  const errorBox = el("div", { id: "otp-error", className: "error", role: "alert", hidden: true });
  // shown once it holds an account
  const node = el("section", { id: "otp-section", className: "home-section", hidden: true }, el("h2", { className: "section-title", text: "One-time codes" }), list, errorBox);
  const accountPath = (id, suffix = "") => phonePath("/otp-accounts/" + encodeURIComponent(id) + suffix);

  /** Rows in the accounts' order; a row already in place stays put (a moved one loses its bar's run). */
  function render() {
    const rows = [...entries.values()].map((entry) => entry.row);
    for (const child of [...list.children]) if (!rows.includes(child)) child.remove();
    rows.forEach((row, index) => {
      if (list.children[index] !== row) list.insertBefore(row, list.children[index] || null);
    });
    node.hidden = entries.size === 0;
  }

  /** Shows a code; a TOTP's bar runs down to the period's end, when the next code is asked for. */
  function show(entry, answer) {
    clearTimeout(entry.timer);
    entry.codeNode.textContent = grouped(answer.code);
    entry.codeNode.dataset.code = String(answer.code);
    if (answer.counter !== undefined) {
      entry.shownCounter = answer.counter;
      entry.row.dataset.counter = String(answer.counter);
    }
    if (!entry.bar || !(answer.validFor > 0)) return;
    entry.period = answer.period || answer.validFor;
    entry.endsAt = Date.now() + answer.validFor * 1000;
    runBar(entry);
    entry.timer = setTimeout(() => {
      // off the screen (a flow shows): asked for when the home screen shows again
      if (node.isConnected) refresh(entry);
      else entry.stale = true;
    }, answer.validFor * 1000);
  }

  /** The bar from the time left down to empty at the period's end. */
  function runBar(entry) {
    const left = Math.max(0, entry.endsAt - Date.now()) / 1000;
    entry.bar.style.transition = "none";
    entry.bar.style.transform = `scaleX(${Math.min(1, left / entry.period)})`;
    entry.bar.getBoundingClientRect(); // the transition starts from there
    entry.bar.style.transition = `transform ${left}s linear`;
    entry.bar.style.transform = "scaleX(0)";
  }

  async function refresh(entry) {
    entry.stale = false;
    try {
      show(entry, await getJSON(accountPath(entry.account.id, "/code")));
    } catch (err) {
      if (entries.get(entry.account.id) !== entry) return; // deleted meanwhile
      if (node.isConnected) showError(errorBox, err);
      else toast.show(err.code, err.message);
    }
  }

  function add(account) {
    const name = account.issuer || account.label || "?";
    const codeNode = el("span", { className: "otp-code", "aria-live": "polite", text: "··· ···" });
    const bar = account.kind === "totp" ? el("span", { className: "otp-countdown-bar" }) : null;
    const entry = { account, codeNode, bar, timer: null, stale: false, shownCounter: null, period: 0, endsAt: 0 };
    let action = null;
    if (account.kind === "hotp") {
      action = el("button", { id: "otp-next-" + account.id, type: "button", className: "btn btn-small otp-next", text: "Next" });
      action.addEventListener("click", () =>
        withControl(view, action, errorBox, async () => show(entry, await postJSON(accountPath(account.id, "/next"), {}))),
      );
    }
    const remove = confirmButton(view, "otp-delete-" + account.id, "Delete", "Tap again: delete", errorBox, () =>
      api(accountPath(account.id), { method: "DELETE" }).then(() => forget(account.id)),
    );
    entry.row = el(
      "li",
      { className: "account otp-account", dataset: { accountId: String(account.id), kind: String(account.kind) } },
      el(
        "span",
        { className: "account-main" },
        el("span", { className: "account-name", text: name }),
        account.issuer ? el("span", { className: "account-user", text: account.label || "" }) : null,
        codeNode,
        bar ? el("span", { className: "otp-countdown", "aria-hidden": "true" }, bar) : null,
      ),
      el("span", { className: "row-actions" }, action, remove),
    );
    entries.set(account.id, entry);
    refresh(entry);
  }

  function forget(id) {
    const entry = entries.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    entries.delete(id);
    render();
  }

  async function sync() {
    try {
      const answer = await getJSON(phonePath("/otp-accounts"));
      const accounts = Array.isArray(answer && answer.accounts) ? answer.accounts : [];
      const held = new Set(accounts.map((a) => a.id));
      for (const id of [...entries.keys()]) if (!held.has(id)) forget(id);
      for (const account of accounts) if (!entries.has(account.id)) add(account);
      render();
    } catch {
      // the next connect reads the list again
    }
  }

  /** An otpAccount message: imported, advanced (HOTP, maybe from elsewhere) or deleted. */
  function receive(change) {
    const account = change && change.account;
    if (!account || typeof account.id !== "string") return;
    if (change.change === "deleted") forget(account.id);
    else if (!entries.has(account.id)) add(account);
    else if (change.change === "advanced" && entries.get(account.id).shownCounter !== account.counter) refresh(entries.get(account.id));
    render();
  }

  /**
   * The home screen's part: the same node each time, its late codes asked for again, and once it
   * is in place (the screen appends it), the bars run on: a redrawn screen moved them.
   */
  function section() {
    for (const entry of entries.values()) if (entry.stale) refresh(entry);
    queueMicrotask(() => {
      for (const entry of entries.values()) if (entry.bar && entry.endsAt && !entry.stale) runBar(entry);
    });
    return node;
  }

  render();
  return { sync, receive, section };
}
