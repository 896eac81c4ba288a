// The device controls' camera and clipboard: the out-of-band box that takes QR text, links and
// pushes as the phone's camera, its links and its push service would hand them over, and a
// picture of a QR code scanned on the server.
import { postJSON, postFile, el, showError } from "../api.js";
import { startFrom, withControl } from "./controls.js";
import { cameraScanner } from "./camera-scan.js";

/**
 * `view`: state, phonePath(suffix), showStartedFlow(source, answer), receivePush(message, openAtOnce), toast.
 * Built once (what is typed stays while the phone changes); returns {node, sync(phone)}.
 */
export function outOfBandSection(view) {
  const textarea = el("textarea", {
    id: "oob-text",
    rows: "4",
    spellcheck: "false",
    autocomplete: "off",
    placeholder: "Paste QR text, a link (authphone://…, https://…/open?…), an otpauth:// key URI or FCM message JSON",
    "aria-label": "Out-of-band input",
  });
  const errorBox = el("div", { id: "oob-error", className: "error", role: "alert", hidden: true });
  const openButton = el("button", { id: "oob-open", type: "button", className: "btn btn-primary btn-block", text: "Open" });
  // With the setting openPushesAtOnce the server opens every push itself, a pasted one too.
  let serverOpensPushes = false;

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
        textarea.value = "";
        await view.receivePush(message, view.state.openPastedPushAtOnce && !serverOpensPushes);
      });
      return;
    }
    await startFrom(view, openButton, errorBox, "oob", async () => {
      const answer = await postJSON(view.phonePath("/oob"), outOfBandBody(text));
      textarea.value = "";
      return answer;
    });
  });
  const atOnce = el("input", { id: "oob-open-at-once", type: "checkbox" });
  atOnce.addEventListener("change", () => (view.state.openPastedPushAtOnce = atOnce.checked));
  const atOnceLabel = el("label", { className: "setting" }, atOnce, el("span", { text: "Open a pasted push at once (else it waits in the inbox, as a notification)" }));

  const node = el(
    "section",
    { id: "oob-section", className: "home-section oob-box" },
    el("h2", { className: "section-title", text: "Camera and clipboard" }),
    el("p", { className: "hint", text: "Stands in for the camera, links opened on the phone and pushes: paste QR text, a deep link, an otpauth:// key URI or FCM message JSON." }),
    textarea,
    atOnceLabel,
    openButton,
    ...cameraScanner(view, errorBox, textarea, outOfBandBody),
    ...imageScanner(view, errorBox),
    errorBox,
  );

  return {
    node,
    /** Follows the phone's setting "Open pushes at once". */
    sync(phone) {
      serverOpensPushes = Boolean(phone.settings && phone.settings.openPushesAtOnce);
      atOnce.checked = serverOpensPushes || view.state.openPastedPushAtOnce;
      atOnce.disabled = serverOpensPushes;
      atOnceLabel.title = serverOpensPushes ? "The setting 'Open pushes at once' opens every push." : "";
    },
  };
}

/** Code text as `POST …/oob` takes it: a link, or QR text. */
function outOfBandBody(text) {
  return /^(authphone:\/\/|https?:\/\/)/i.test(text) ? { link: text } : { qr: text };
}

/** The camera: a picture of a QR code (a screenshot, a photo), scanned on the server. */
function imageScanner(view, errorBox) {
  // the button below opens it: the hidden input stays out of the tab order, named for screen readers
  const input = el("input", { id: "oob-image", type: "file", accept: "image/*", className: "visually-hidden", tabindex: "-1", "aria-label": "Picture of a QR code" });
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
