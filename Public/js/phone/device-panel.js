// The device's own panel on the home screen: the simulated biometric sensor, the device
// information (name, FCM token and installation id, pushes; told to the backend with retries) and the SDK options.
import { api, postJSON, putJSON, el, shortId, showError, copyOnClick } from "../api.js";
import { withControl } from "./controls.js";

/** The simulated biometric sensor: what the phone's OS has enrolled. */
export function sensorSection(phone, view) {
  const settings = phone.settings || {};
  const bio = phone.biometrics || {};
  const errorBox = el("div", { id: "sensor-error", className: "error", role: "alert", hidden: true });
  const action = (id, label, method) => {
    const b = el("button", { id, type: "button", className: "btn btn-small", text: label });
    b.addEventListener("click", () =>
      withControl(view, b, errorBox, async () => {
        // a state-changing request is JSON, even with nothing to say
        view.state.phone = await api(view.phonePath("/sensor/features"), method === "POST" ? { method, body: {} } : { method });
        view.render(true);
      }),
    );
    return b;
  };
  const count = Number(bio.enrolledFeatures) || 0;
  return el(
    "section",
    { id: "sensor-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Biometric sensor" }),
    el("p", {
      id: "sensor-state",
      className: "hint",
      dataset: { features: String(count) },
      text: settings.biometricSensor === false ? "This phone has no biometric sensor." : `${count} fingerprint${count === 1 ? "" : "s"} or face${count === 1 ? "" : "s"} enrolled in the phone's OS.`,
    }),
    settings.biometricSensor === false
      ? null
      : el("div", { className: "row-actions" }, action("sensor-enrol", "Enrol another fingerprint", "POST"), count > 0 ? action("sensor-clear", "Remove all", "DELETE") : null),
    el("p", { className: "hint", text: "Enrolling another one invalidates the biometric key: its next use gives BIOMETRICS_REMOVED and falls back to the PIN." }),
    errorBox,
  );
}

/** Retry policies to choose from for a device information change (the first is the phone's default). */
const RETRY_POLICIES = {
  default: null,
  none: { type: "none" },
  constant: { type: "constant", maxRetries: 3, delay: 2 },
  exponential: { type: "exponential", maxRetries: 5, initialDelay: 1, maximumDelay: 16, multiplier: 2 },
};

/** The device information (docs/behaviour.md#device-information-and-fcm-token-changes): the name, the FCM token and pushes, told to the backend with retries. */
export function deviceSection(phone, view) {
  const errorBox = el("div", { id: "device-error", className: "error", role: "alert", hidden: true });
  const policy = el(
    "select",
    { id: "device-retry-policy", "aria-label": "Retry policy for device information changes" },
    el("option", { value: "default", text: "Retry: default (exponential, 3 retries, 1–8 s)" }),
    el("option", { value: "none", text: "Retry: none" }),
    el("option", { value: "constant", text: "Retry: constant, 3 × 2 s" }),
    el("option", { value: "exponential", text: "Retry: exponential, 5 retries, 1–16 s" }),
  );
  const withPolicy = (body) => {
    const chosen = RETRY_POLICIES[policy.value];
    return chosen ? { ...body, retryPolicy: chosen } : body;
  };
  const path = view.phonePath;
  const nameInput = el("input", { id: "device-name", type: "text", maxlength: "64", value: phone.name || "", "aria-label": "Device name" });
  const rename = el("button", { id: "device-rename", type: "button", className: "btn btn-small", text: "Rename" });
  rename.addEventListener("click", () => withControl(view, rename, errorBox, () => putJSON(path("/device-information"), withPolicy({ name: nameInput.value.trim() }))));
  const rotate = el("button", { id: "rotate-token", type: "button", className: "btn btn-small", text: "Rotate FCM token" });
  rotate.addEventListener("click", () => withControl(view, rotate, errorBox, () => postJSON(path("/fcm-token/rotate"), withPolicy({}))));
  const pushes = el("button", {
    id: "toggle-pushes",
    type: "button",
    className: "btn btn-small",
    text: phone.pushNotifications === false ? "Enable pushes" : "Disable pushes",
  });
  pushes.addEventListener("click", () =>
    withControl(view, pushes, errorBox, () =>
      putJSON(path("/device-information"), withPolicy(phone.pushNotifications === false ? { fcmToken: phone.fcmToken } : { disablePushNotifications: true })),
    ),
  );
  return el(
    "section",
    { id: "device-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Device information" }),
    el(
      "dl",
      { className: "kv kv-compact" },
      el("dt", { text: "Phone id" }),
      el("dd", {}, el("code", { text: shortId(phone.id), title: String(phone.id || "") }), copyButton("copy-phone-id", phone.id)),
      el("dt", { text: "Device id" }),
      el("dd", {}, el("code", { text: shortId(phone.deviceId), title: String(phone.deviceId || "") }), copyButton("copy-device-id", phone.deviceId)),
      el("dt", { text: "FCM token" }),
      el(
        "dd",
        {},
        el("code", { id: "device-fcm-token", text: String(phone.fcmToken || "").slice(0, 18) + "…", title: String(phone.fcmToken || "") }),
        copyButton("copy-fcm-token", phone.fcmToken),
      ),
      el("dt", { text: "Installation id (fid)", title: "Firebase installation id: the Admin SDKs send to it instead of the token" }),
      el("dd", {}, el("code", { id: "device-fid", text: String(phone.fid || "none") })),
      el("dt", { text: "Push notifications" }),
      el("dd", { id: "device-pushes", text: phone.pushNotifications === false ? "off" : "on" }),
    ),
    el("div", { className: "inline-form" }, nameInput, rename),
    el("div", { className: "row-actions device-actions" }, rotate, pushes),
    policy,
    el("p", { className: "hint", text: "The backend learns each change; rotating the token retires the old one and its installation id at once, so pushes fail until the backend has the new one." }),
    errorBox,
  );
}

/** The SDK options (docs/behaviour.md#second-factor-management), saved on the server one change at a time. */
const SETTING_FIELDS = [
  { name: "openPushesAtOnce", kind: "bool", label: "Open pushes at once (no notification)", id: "setting-open-pushes" },
  { name: "biometricSensor", kind: "bool", label: "The phone has a biometric sensor" },
  { name: "biometricsDisabled", kind: "bool", label: "biometricsDisabled" },
  { name: "legacyBioAddFlow", kind: "bool", label: "legacyBioAddFlow (biometric before PIN)" },
  { name: "disallowPinChangeWithBiometric", kind: "bool", label: "disallowPinChangeWithBiometric" },
  { name: "showVisualHash", kind: "bool", label: "Show the visual hash on enrolment" },
  { name: "pinLength", kind: "number", label: "PIN length (while no PIN is set)", min: 4, max: 12 },
  { name: "maxNumberSecondFactorWithoutPIN", kind: "number", label: "maxNumberSecondFactorWithoutPIN (0: none)", min: 0 },
  { name: "maxTimeSecondFactorWithoutPIN", kind: "number", label: "maxTimeSecondFactorWithoutPIN, s (0: none)", min: 0 },
  { name: "pinChangeStyle", kind: "choice", label: "PIN change", choices: [["nextAuth", "nextAuth: verify, then set"], ["nevis", "Nevis: old and new together"]] },
  { name: "otpCountdown", kind: "number", label: "Offline OTP offered after, s (server unreachable)", min: 0, max: 600 },
  { name: "pollPushTokens", kind: "bool", label: "Check poll-only privacyIDEA tokens every 10 s", id: "setting-poll-push-tokens" },
  { name: "unlockPushTokens", kind: "bool", label: "PIN or biometric before accepting a privacyIDEA login", id: "setting-unlock-push-tokens" },
];

export function settingsSection(phone, view) {
  const settings = phone.settings || {};
  const errorBox = el("div", { id: "settings-error", className: "error", role: "alert", hidden: true });
  const save = (control, value, undo) =>
    withControl(view, control, errorBox, async () => {
      try {
        view.state.phone = await putJSON(view.phonePath("/settings"), { [control.dataset.setting]: value });
      } catch (err) {
        undo(); // the setting did not change
        throw err;
      }
    });
  const rows = SETTING_FIELDS.map((field) => {
    const id = field.id || "setting-" + field.name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
    const current = settings[field.name];
    if (field.kind === "bool") {
      const input = el("input", { id, type: "checkbox", dataset: { setting: field.name } });
      input.checked = Boolean(current);
      input.addEventListener("change", () => save(input, input.checked, () => (input.checked = !input.checked)));
      return el("label", { className: "setting" }, input, el("span", { text: " " + field.label }));
    }
    let input;
    if (field.kind === "choice") {
      input = el("select", { id, dataset: { setting: field.name } }, field.choices.map(([value, text]) => el("option", { value, text })));
      input.value = String(current ?? field.choices[0][0]);
      input.addEventListener("change", () => save(input, input.value, () => (input.value = String(current))));
    } else {
      input = el("input", { id, type: "number", min: String(field.min), max: field.max ? String(field.max) : null, step: "1", dataset: { setting: field.name } });
      input.value = String(current ?? "");
      if (field.name === "pinLength" && phone.hasPin) input.disabled = true;
      input.addEventListener("change", () => {
        const value = Number(input.value);
        if (!Number.isInteger(value)) {
          showError(errorBox, { code: "INVALID_FIELD", message: `${field.name} takes a whole number.` });
          input.value = String(current);
          return;
        }
        save(input, value, () => (input.value = String(current)));
      });
    }
    return el("label", { className: "setting setting-field", for: id }, el("span", { className: "setting-label", text: field.label }), input);
  });
  return el("section", { id: "settings-section", className: "home-section" }, el("h2", { className: "section-title", text: "Settings" }), ...rows, errorBox);
}

/** A small button that copies a value the panel shows shortened. */
function copyButton(id, value) {
  return copyOnClick(el("button", { id, type: "button", className: "btn btn-small btn-ghost copy-btn", text: "Copy" }), () => String(value || ""));
}
