// The home screen: the phone's accounts, its inbox, the out-of-band input that stands in for the
// camera, links and pushes, the waiting requests, and the device's own panels.
import { postJSON, postFile, el, showError } from "../api.js";
import { startFrom, withControl } from "./controls.js";
import { deviceSection, sensorSection, settingsSection } from "./device-panel.js";
import { localDataSection } from "./local-data.js";
import { pendingSection } from "./pending.js";
import { securitySection } from "./security.js";

/** Renders the home screen; `oobText` is what the user had typed in the out-of-band box. */
export function renderHome(view, oobText) {
  const phone = view.state.phone || {};
  const accounts = Array.isArray(phone.accounts) ? phone.accounts : [];

  const accountList = el("ul", { id: "accounts", className: "account-list" });
  for (const a of accounts) {
    const initial = (a.displayName || a.userId || "?").trim().charAt(0).toUpperCase() || "?";
    accountList.appendChild(
      el(
        "li",
        { className: "account", dataset: { accountId: String(a.id ?? "") } },
        el("span", { className: "avatar", "aria-hidden": "true", text: initial }),
        el(
          "span",
          { className: "account-main" },
          el("span", { className: "account-name", text: a.displayName || a.userId || "" }),
          el("span", { className: "account-user", text: a.userId || "" }),
          el("span", { className: "account-server", text: (a.server && a.server.name) || "" }),
        ),
      ),
    );
  }

  const textarea = el("textarea", {
    id: "oob-text",
    rows: "4",
    spellcheck: "false",
    autocomplete: "off",
    placeholder: "Paste QR text, a link (authphone://…, https://…/open?…) or FCM message JSON",
    "aria-label": "Out-of-band input",
  });
  if (oobText) textarea.value = oobText;
  const errorBox = el("div", { id: "oob-error", className: "error", role: "alert", hidden: true });
  const openButton = el("button", { id: "oob-open", type: "button", className: "btn btn-primary btn-block", text: "Open" });

  openButton.addEventListener("click", async () => {
    const text = textarea.value.trim();
    if (!text) {
      showError(errorBox, { code: "EMPTY_INPUT", message: "Paste QR text, a link or FCM message JSON first." });
      return;
    }
    const push = fcmMessage(text);
    if (push) {
      // as a real push: into the inbox, announced by the banner (or opened at once)
      await withControl(view, openButton, errorBox, async () => {
        const message = await postJSON(view.phonePath("/inbox"), { push });
        if (textarea.isConnected) textarea.value = "";
        await view.receivePush(message, view.state.openPastedPushAtOnce && !serverOpensPushes);
      });
      return;
    }
    const body = /^(authphone:\/\/|https?:\/\/)/i.test(text) ? { link: text } : { qr: text };
    await startFrom(view, openButton, errorBox, "oob", async () => {
      const answer = await postJSON(view.phonePath("/oob"), body);
      if (textarea.isConnected) textarea.value = "";
      return answer;
    });
  });
  // With the setting openPushesAtOnce the server opens every push itself, a pasted one too.
  const serverOpensPushes = Boolean(phone.settings && phone.settings.openPushesAtOnce);
  const atOnce = el("input", { id: "oob-open-at-once", type: "checkbox" });
  atOnce.checked = serverOpensPushes || view.state.openPastedPushAtOnce;
  atOnce.disabled = serverOpensPushes;
  atOnce.addEventListener("change", () => (view.state.openPastedPushAtOnce = atOnce.checked));
  const atOnceLabel = el(
    "label",
    { className: "setting", title: serverOpensPushes ? "The setting 'Open pushes at once' opens every push." : null },
    atOnce,
    el("span", { text: "Open a pasted push at once (else it waits in the inbox, as a notification)" }),
  );

  view.screen.append(
    el(
      "div",
      { className: "home" },
      el("header", { className: "home-header" }, el("p", { className: "home-kicker", text: "AuthPhone" }), el("h1", { className: "home-title", id: "home-phone-name", text: phone.name || view.phoneName })),
      el(
        "section",
        { className: "home-section" },
        el("h2", { className: "section-title", text: "Accounts" }),
        accounts.length ? accountList : el("p", { className: "empty", id: "no-accounts", text: "No accounts yet. Scan a QR code or open a link to enrol." }),
      ),
      view.inboxSection(),
      el(
        "section",
        { className: "home-section oob-box" },
        el("h2", { className: "section-title", text: "Out-of-band input" }),
        el("p", { className: "hint", text: "Stands in for the camera, links opened on the phone and pushes: paste QR text, a deep link or FCM message JSON." }),
        textarea,
        atOnceLabel,
        openButton,
        ...imageScanner(view, errorBox),
        errorBox,
      ),
      pendingSection(view),
      accounts.length ? securitySection(phone, view) : null,
      accounts.length ? localDataSection(phone, view) : null,
      sensorSection(phone, view),
      deviceSection(phone, view),
      settingsSection(phone, view),
    ),
  );
}

/** The camera: a picture of a QR code (a screenshot, a photo), scanned on the server. */
function imageScanner(view, errorBox) {
  const input = el("input", { id: "oob-image", type: "file", accept: "image/*", className: "visually-hidden" });
  const button = el("button", { id: "oob-image-pick", type: "button", className: "btn btn-block", text: "Scan a picture of a QR code…" });
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    startFrom(view, button, errorBox, "image", () => postFile(view.phonePath("/oob/image"), file));
  });
  return [button, input];
}

/**
 * The pasted text as a push in a shape a developer copies one in (docs/protocol.md): FCM's send
 * request or message ("message", "data"), iOS's userInfo ("aps", "gcm.*", "google.*" beside the
 * data keys) or Android's data map on its own (nma_data as JSON text, where a QR payload holds an
 * object). Null for anything else, which goes as QR text.
 */
function fcmMessage(text) {
  if (!text.startsWith("{")) return null;
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const pushKey = (key) => key === "message" || key === "data" || key === "aps" || key.startsWith("gcm.") || key.startsWith("google.");
  return Object.keys(value).some(pushKey) || typeof value.nma_data === "string" ? value : null;
}
