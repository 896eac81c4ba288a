// The phone's privacyIDEA smartphone containers on the home screen (docs/privacyidea.md#containers):
// each a group of the tokens privacyIDEA put in it, with "Sync now", which asks privacyIDEA for
// the container's tokens as privacyIDEA's app does; the app syncs by itself when the page comes
// back into view. The list is read on connect; the server announces its changes (`containers`).
import { getJSON, postJSON, el, formatTime } from "../api.js";
import { withControl } from "./controls.js";

/** What a sync did, in words. */
function outcomeWords(outcome, at) {
  const parts = [];
  if (outcome.added.length) parts.push(`added ${outcome.added.join(", ")}`);
  if (outcome.removed.length) parts.push(`removed ${outcome.removed.join(", ")}`);
  if (outcome.failed.length) parts.push(`could not add ${outcome.failed.map((f) => f.serial || "a token").join(", ")}`);
  return `${parts.length ? "Synced: " + parts.join("; ") : "Up to date"} at ${formatTime(at)}`;
}

const TOKEN_TYPES = { push: "Push", hotp: "HOTP", totp: "TOTP" };

/** `context`: phonePath(suffix), toast. Built once, so that a sync's note outlives the home screen's redraws. Returns {sync, show, section}. */
export function createPrivacyIDEAContainers({ phonePath, toast }) {
  let containers = [];
  const notes = new Map(); // serial -> the last sync's words
  const view = { toast };
  const list = el("ul", { id: "privacyidea-containers", className: "account-list" });
  const errorBox = el("div", { id: "privacyidea-containers-error", className: "error", role: "alert", hidden: true });
  const node = el("section", { id: "privacyidea-containers-section", className: "home-section", hidden: true }, el("h2", { className: "section-title", text: "privacyIDEA containers" }), list, errorBox);
  const containerPath = (serial, suffix) => phonePath("/privacyidea/containers/" + encodeURIComponent(serial) + suffix);

  async function synchronize(serial) {
    const outcome = await postJSON(containerPath(serial, "/sync"), {});
    notes.set(serial, outcomeWords(outcome, new Date()));
    render();
  }

  function row(container) {
    const button = el("button", { id: "privacyidea-sync-" + container.serial, type: "button", className: "btn btn-small privacyidea-sync", text: "Sync now" });
    button.addEventListener("click", () => withControl(view, button, errorBox, () => synchronize(container.serial)));
    const tokens = container.tokens.length
      ? el("ul", { className: "container-tokens" }, ...container.tokens.map((t) => el("li", { className: "container-token", dataset: { serial: t.serial, type: t.type }, text: `${TOKEN_TYPES[t.type] ?? t.type} ${t.serial}` })))
      : el("span", { className: "hint", text: "No tokens yet" });
    const synced = notes.get(container.serial) ?? (container.syncedAt ? `Synced at ${formatTime(new Date(container.syncedAt))}` : "Not synced yet");
    return el(
      "li",
      { className: "account privacyidea-container", dataset: { serial: container.serial } },
      el("span", { className: "avatar", "aria-hidden": "true", text: "▣" }),
      el(
        "span",
        { className: "account-main" },
        el("span", { className: "account-name", text: `${container.issuer || "privacyIDEA"} container` }),
        el("span", { className: "account-user", text: container.serial }),
        el("span", { className: "account-server", text: container.origin || "" }),
        tokens,
        el("span", { className: "hint privacyidea-sync-note", "aria-live": "polite", text: synced }),
      ),
      el("span", { className: "row-actions" }, button),
    );
  }

  function render() {
    list.replaceChildren(...containers.map(row));
    node.hidden = containers.length === 0;
  }

  /** The list as the server holds it. */
  function show(next) {
    containers = next.filter((c) => c && typeof c.serial === "string" && Array.isArray(c.tokens));
    render();
  }

  /** Reads the list again (after a connect). */
  async function sync() {
    try {
      const answer = await getJSON(phonePath("/privacyidea/containers"));
      show(Array.isArray(answer && answer.containers) ? answer.containers : []);
    } catch {
      // the next connect reads the list again
    }
  }

  // privacyIDEA's app syncs its containers when it comes back to the screen
  document.addEventListener("visibilitychange", async () => {
    if (document.hidden) return;
    for (const container of containers) {
      try {
        await synchronize(container.serial);
      } catch {
        // privacyIDEA unreachable: "Sync now" says why
      }
    }
  });

  render();
  return { sync, show, section: () => node };
}
