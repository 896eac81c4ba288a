// The phone's privacyIDEA push tokens on the home screen (docs/privacyidea.md), beside its other
// accounts: issuer, label and serial; "Check now", which asks the token's privacyIDEA for a
// waiting challenge as its app's poll does, and the same by itself every 10 s for poll-only tokens
// while the page is visible (the phone's `pollPushTokens` setting); and removal. The list is read
// on connect; the server announces its changes (`pushTokens`).
import { api, getJSON, postJSON, el, formatTime } from "../api.js";
import { confirmButton, withControl } from "./controls.js";
import { tokenName } from "./privacyidea-screens.js";

/**
 * `context`: state (its phone's settings), phonePath(suffix), toast, showStartedFlow(source, answer).
 * Built once, so that a poll's note outlives the home screen's redraws. Returns {sync, show, section}.
 */
export function createPrivacyIDEATokens({ state, phonePath, toast, showStartedFlow }) {
  let rows = new Map(); // serial -> row
  let pollOnly = []; // the serials polled by themselves
  const view = { toast };
  const list = el("ul", { id: "privacyidea-tokens", className: "account-list" });
  const errorBox = el("div", { id: "privacyidea-error", className: "error", role: "alert", hidden: true });
  // privacyIDEA's app on the home screen, shown once it holds a token
  const node = el("section", { id: "privacyidea-section", className: "home-section", hidden: true }, el("h2", { className: "section-title", text: "privacyIDEA" }), list, errorBox);
  const tokenPath = (serial, suffix = "") => phonePath("/privacyidea/tokens/" + encodeURIComponent(serial) + suffix);

  /** One poll: a challenge goes on screen, otherwise the row notes when it looked. */
  async function poll(serial, note, source) {
    const answer = await postJSON(tokenPath(serial, "/poll"), {});
    if (answer && answer.privacyIDEA) showStartedFlow(source, answer);
    else note.textContent = "Nothing waiting at " + formatTime(new Date());
  }

  function row(token) {
    const note = el("span", { className: "hint privacyidea-poll-note", "aria-live": "polite" });
    // a tiqr identity is not polled: its logins come as codes to scan
    const check =
      token.tokenType === "tiqr"
        ? null
        : el("button", { id: "privacyidea-poll-" + token.serial, type: "button", className: "btn btn-small privacyidea-poll", text: "Check now" });
    check?.addEventListener("click", () =>
      withControl(view, check, errorBox, async () => {
        note.textContent = "";
        await poll(token.serial, note, "poll");
      }),
    );
    const remove = confirmButton(view, "privacyidea-delete-" + token.serial, "Delete", "Tap again: delete", errorBox, () =>
      api(tokenPath(token.serial), { method: "DELETE" }).then(() => drop(token.serial)),
    );
    const name = token.issuer || token.origin || "privacyIDEA";
    return el(
      "li",
      { className: "account privacyidea-token", dataset: { serial: String(token.serial) } },
      el("span", { className: "avatar", "aria-hidden": "true", text: name.charAt(0).toUpperCase() }),
      el(
        "span",
        { className: "account-main" },
        el("span", { className: "account-name", text: name }),
        el("span", { className: "account-user", text: (token.tokenType === "tiqr" ? "tiqr: " : "") + tokenName(token) }),
        el("span", { className: "account-server", text: token.origin || "" }),
        note,
      ),
      el("span", { className: "row-actions" }, check, remove),
    );
  }

  function render() {
    list.replaceChildren(...rows.values());
    node.hidden = rows.size === 0;
  }

  function drop(serial) {
    rows.delete(serial);
    pollOnly = pollOnly.filter((s) => s !== serial);
    render();
  }

  /** The list as the server holds it: rows already shown stay (with their notes), in its order. */
  function show(list) {
    const tokens = list.filter((t) => t && typeof t.serial === "string");
    rows = new Map(tokens.map((token) => [token.serial, rows.get(token.serial) || row(token)]));
    pollOnly = tokens.filter((t) => t.pollOnly).map((t) => t.serial);
    render();
  }

  /** Reads the list again (after a connect). */
  async function sync() {
    try {
      const answer = await getJSON(phonePath("/privacyidea/tokens"));
      show(Array.isArray(answer && answer.tokens) ? answer.tokens : []);
    } catch {
      // the next connect reads the list again
    }
  }

  /** The app's polling: poll-only tokens, while the page is seen and the setting is on; a failed poll waits for the next. */
  const polling = () => state.phone && state.phone.settings && state.phone.settings.pollPushTokens;
  setInterval(async () => {
    if (document.hidden || !polling()) return;
    for (const serial of pollOnly) {
      const shown = rows.get(serial);
      if (!shown) continue;
      try {
        await poll(serial, shown.querySelector(".privacyidea-poll-note"), "automatic poll");
      } catch {
        // privacyIDEA unreachable or the token gone: "Check now" says why
      }
    }
  }, POLL_INTERVAL_MS);

  render();
  return { sync, show, section: () => node };
}

/** How often poll-only tokens are checked by themselves (docs/privacyidea.md). */
const POLL_INTERVAL_MS = 10_000;
