// The offline OTP (docs/behaviour.md#offline-otp) on the console: an offline OTP typed in for a pending login, as a relying party's
// login page takes it; and the server flag that allows it.
import { getJSON, postJSON, putJSON, showError } from "../api.js";
import { STATUS_RANK } from "./session-labels.js";

/** `onSession(session)`: the login's answer. Returns {show(session)}: the form for that session. */
export function createOtpForm(onSession) {
  const form = document.getElementById("otp-form");
  const input = document.getElementById("otp-input");
  const errorBox = document.getElementById("otp-error");
  const button = document.getElementById("otp-login");

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const id = form.dataset.sessionId;
    button.disabled = true;
    showError(errorBox, null);
    try {
      onSession(await postJSON(`/api/backend/sessions/${encodeURIComponent(id)}/otp-login`, { otp: input.value }));
    } catch (err) {
      showError(errorBox, err);
    } finally {
      button.disabled = false;
    }
  });

  return {
    /** Open while the session is a login that has not ended. */
    show(s) {
      const open = s.type === "login" && (STATUS_RANK[s.status] ?? 3) < 3;
      if (form.dataset.sessionId !== String(s.id)) {
        input.value = "";
        showError(errorBox, null);
      }
      form.dataset.sessionId = String(s.id);
      form.hidden = !open;
    },
  };
}

/** The server flags' checkboxes (ENABLE_OTP), read from and saved to the server. */
export function initServerFlags() {
  const boxes = [...document.querySelectorAll("input[data-flag]")];
  const errorBox = document.getElementById("flags-error");
  const showFlags = (flags) => {
    for (const box of boxes) box.checked = Boolean(flags[box.dataset.flag]);
  };
  for (const box of boxes) {
    box.addEventListener("change", async () => {
      showError(errorBox, null);
      try {
        showFlags((await putJSON("/api/backend/server-flags", { flags: { [box.dataset.flag]: box.checked } })).flags || {});
      } catch (err) {
        box.checked = !box.checked;
        showError(errorBox, err);
      }
    });
  }
  getJSON("/api/backend/server-flags")
    .then((answer) => showFlags((answer && answer.flags) || {}))
    .catch((err) => showError(errorBox, err));
}
