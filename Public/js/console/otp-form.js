// The offline OTP (docs/behaviour.md#offline-otp) on the console: an offline OTP typed in for a pending login, as a relying party's
// login page takes it; and the server flag that allows it.
import { getJSON, postJSON, putJSON, showError } from "../api.js";
import { STATUS_RANK } from "./session-labels.js";

/**
 * `onSession(session)`: the login's answer. Returns {show(session), setFlags(flags)}: the form
 * for that session, offered only while the server flag ENABLE_OTP is on.
 */
export function createOtpForm(onSession) {
  const form = document.getElementById("otp-form");
  const input = document.getElementById("otp-input");
  const errorBox = document.getElementById("otp-error");
  const button = document.getElementById("otp-login");

  let enabled = false;
  let shown = null; // the session last shown

  function place() {
    form.hidden = !(enabled && shown && shown.type === "login" && (STATUS_RANK[shown.status] ?? 3) < 3);
  }

  /** The flag may have been switched in another tab: read again for each session shown. */
  function readFlags() {
    getJSON("/api/backend/server-flags")
      .then((answer) => setFlags((answer && answer.flags) || {}))
      .catch((err) => showError(errorBox, err));
  }

  function setFlags(flags) {
    enabled = Boolean(flags.ENABLE_OTP);
    place();
  }

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
    /** Open while the session is a login that has not ended and ENABLE_OTP is on. */
    show(s) {
      if (form.dataset.sessionId !== String(s.id)) {
        input.value = "";
        showError(errorBox, null);
        readFlags();
      }
      form.dataset.sessionId = String(s.id);
      shown = s;
      place();
    },
    setFlags,
  };
}

/** The server flags' checkboxes (ENABLE_OTP), read from and saved to the server; `onFlags(flags)` hears each answer. */
export function initServerFlags(onFlags) {
  const boxes = [...document.querySelectorAll("input[data-flag]")];
  const errorBox = document.getElementById("flags-error");
  const showFlags = (flags) => {
    for (const box of boxes) box.checked = Boolean(flags[box.dataset.flag]);
    onFlags(flags);
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
