// Second-factor management on the home screen: the flows the phone starts itself (docs/behaviour.md#second-factor-management),
// and the reset that removes every account.
import { api, postJSON, el } from "../api.js";
import { confirmButton, startFrom } from "./controls.js";

export function securitySection(phone, view) {
  const bio = phone.biometrics || {};
  const errorBox = el("div", { id: "security-error", className: "error", role: "alert", hidden: true });
  const start = (id, label, type) => {
    const b = el("button", { id, type: "button", className: "btn btn-small", text: label });
    b.addEventListener("click", () => startFrom(view, b, errorBox, "phone", () => postJSON(view.phonePath("/flows"), { type })));
    return b;
  };
  const reset = confirmButton(view, "remove-accounts", "Remove all accounts", "Tap again: remove all accounts and the PIN", errorBox, async () => {
    view.state.phone = await api(view.phonePath("/accounts"), { method: "DELETE" });
    view.render(true);
  });
  const yesNo = (value) => (value ? "yes" : "no");
  return el(
    "section",
    { id: "security-section", className: "home-section" },
    el("h2", { className: "section-title", text: "PIN and biometrics" }),
    el(
      "dl",
      { id: "biometrics-state", className: "kv kv-compact" },
      el("dt", { text: "Biometrics on", title: "hasEnabledBiometrics" }),
      el("dd", { id: "has-enabled-biometrics", text: yesNo(bio.hasEnabledBiometrics) }),
      el("dt", { text: "Biometrics possible", title: "canEnableBiometrics" }),
      el("dd", { id: "can-enable-biometrics", text: yesNo(bio.canEnableBiometrics) }),
      el("dt", { text: "Biometric uses since the PIN" }),
      el("dd", { text: String(bio.verificationsSinceLastPin ?? 0) }),
    ),
    el(
      "div",
      { className: "row-actions" },
      start("start-change-pin", "Change PIN", "CHANGE_PIN"),
      bio.canEnableBiometrics && !bio.hasEnabledBiometrics ? start("start-add-biometrics", "Add biometrics", "ADD_BIOMETRICS") : null,
      bio.hasEnabledBiometrics ? start("start-remove-biometrics", "Remove biometrics", "REMOVE_BIOMETRICS") : null,
    ),
    el("p", { className: "hint", text: "A blocked PIN is unblocked by a biometric, by the server's administrator, or by removing all accounts (which resets the phone; the accounts stay on the server)." }),
    reset,
    errorBox,
  );
}
