// The phone's privacyIDEA push tokens on the home screen (docs/privacyidea.md), beside its other
// accounts: issuer, label and serial; "Check now", which asks the token's privacyIDEA for a
// waiting challenge as its app's poll does; and removal. The server does not announce the list's
// changes: it is read on connect and after an enrolment, and a removal here drops its row.
import { api, getJSON, postJSON, el, formatTime } from "../api.js";
import { confirmButton, withControl } from "./controls.js";
import { tokenName } from "./privacyidea-screens.js";

/**
 * `context`: phonePath(suffix), toast, showStartedFlow(source, answer). Built once, so that a
 * poll's note outlives the home screen's redraws. Returns {sync, section}.
 */
export function createPrivacyIDEATokens({ phonePath, toast, showStartedFlow }) {
  let rows = new Map(); // serial -> row
  const view = { toast };
  const list = el("ul", { id: "privacyidea-tokens", className: "account-list" });
  const empty = el("p", { id: "no-privacyidea-tokens", className: "empty", text: "No privacyIDEA tokens. Scan privacyIDEA's enrolment QR code to add one." });
  const errorBox = el("div", { id: "privacyidea-error", className: "error", role: "alert", hidden: true });
  const node = el("section", { id: "privacyidea-section", className: "home-section" }, el("h2", { className: "section-title", text: "privacyIDEA tokens" }), list, empty, errorBox);
  const tokenPath = (serial, suffix = "") => phonePath("/privacyidea/tokens/" + encodeURIComponent(serial) + suffix);

  function row(token) {
    const note = el("span", { className: "hint privacyidea-poll-note", "aria-live": "polite" });
    const check = el("button", { id: "privacyidea-poll-" + token.serial, type: "button", className: "btn btn-small privacyidea-poll", text: "Check now" });
    check.addEventListener("click", () =>
      withControl(view, check, errorBox, async () => {
        note.textContent = "";
        const answer = await postJSON(tokenPath(token.serial, "/poll"), {});
        if (answer && answer.privacyIDEA) showStartedFlow("poll", answer);
        else note.textContent = "Nothing waiting at " + formatTime(new Date());
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
        el("span", { className: "account-user", text: tokenName(token) }),
        el("span", { className: "account-server", text: token.origin || "" }),
        note,
      ),
      el("span", { className: "row-actions" }, check, remove),
    );
  }

  function render() {
    list.replaceChildren(...rows.values());
    list.hidden = rows.size === 0;
    empty.hidden = rows.size > 0;
  }

  function drop(serial) {
    rows.delete(serial);
    render();
  }

  /** Reads the list again: rows already shown stay (with their notes), in the server's order. */
  async function sync() {
    try {
      const answer = await getJSON(phonePath("/privacyidea/tokens"));
      const tokens = Array.isArray(answer && answer.tokens) ? answer.tokens.filter((t) => t && typeof t.serial === "string") : [];
      rows = new Map(tokens.map((token) => [token.serial, rows.get(token.serial) || row(token)]));
      render();
    } catch {
      // the next connect reads the list again
    }
  }

  render();
  return { sync, section: () => node };
}
