// The session card's "Open on phone" and "Push to phone": a waiting session goes to the chosen
// phone as its camera would read the QR code, or through the FCM endpoint so the phone's banner
// shows it. Nobody copies or pastes a payload.
import { el, clear, postJSON, shortId, showError } from "../api.js";

/** A push answered later than this is being retried by the backend (the push service did not answer). */
const RETRYING_AFTER_MS = 500;

/**
 * `loadPhones()`: a promise of the phones, newest first. `preferredPhoneId()`: the phone to
 * choose first (the one on stage), or null. `onSession(session)`: the backend's answer to a push.
 * Returns {show(session), refresh()}: refresh re-reads the phones (one was added, say).
 */
export function createSessionToPhone({ loadPhones, preferredPhoneId = () => null, onSession }) {
  const byId = (id) => document.getElementById(id);
  const box = byId("session-send");
  const select = byId("session-phone");
  const openButton = byId("open-on-phone");
  const pushButton = byId("push-to-phone");
  const note = byId("session-send-note");
  const errorBox = byId("session-send-error");

  let session = null;
  let phones = [];
  let preferred = null; // the stage's phone the options were last chosen for

  function renderOptions() {
    const wanted = preferredPhoneId();
    const chosen = wanted && wanted !== preferred ? wanted : select.value || wanted;
    preferred = wanted;
    clear(select);
    for (const p of phones) select.append(el("option", { value: String(p.id), text: `${p.name || "(unnamed)"} (${shortId(p.id)})` }));
    if (phones.some((p) => String(p.id) === chosen)) select.value = chosen;
    const none = phones.length === 0;
    openButton.disabled = none;
    pushButton.disabled = none;
    if (none) note.textContent = "No phones yet: create one first.";
  }

  async function refresh() {
    try {
      phones = await loadPhones();
      renderOptions();
    } catch (err) {
      showError(errorBox, err);
    }
  }

  function chosenPhone() {
    return phones.find((p) => String(p.id) === select.value) || null;
  }

  /** `waiting`: what the note says meanwhile; `slow`: what it says once the answer is late. */
  async function act(button, run, { waiting = "", slow = null } = {}) {
    const phone = chosenPhone();
    if (!session || !phone) return;
    button.disabled = true;
    showError(errorBox, null);
    note.textContent = waiting;
    const late = slow ? setTimeout(() => (note.textContent = slow), RETRYING_AFTER_MS) : null;
    try {
      note.textContent = await run(session, phone);
    } catch (err) {
      note.textContent = "";
      showError(errorBox, err);
    } finally {
      clearTimeout(late);
      button.disabled = false;
    }
  }

  openButton.addEventListener("click", () =>
    act(openButton, async (s, phone) => {
      await postJSON(`/api/phones/${encodeURIComponent(phone.id)}/oob`, { qr: s.qrText });
      return `Opened on ${phone.name}, as its camera would.`;
    }),
  );
  pushButton.addEventListener("click", () =>
    act(
      pushButton,
      async (s, phone) => {
        onSession(await postJSON(`/api/backend/sessions/${encodeURIComponent(s.id)}/push`, { pushToken: phone.fcmToken }));
        return `Pushed to ${phone.name}: its banner shows it.`;
      },
      { waiting: "Sending the push…", slow: "The push service has not answered: the backend is trying again…" },
    ),
  );
  select.addEventListener("focus", refresh);

  return {
    /** Offered while the session waits for a phone. */
    show(s) {
      const another = !session || String(session.id) !== String(s.id);
      if (another) {
        note.textContent = "";
        showError(errorBox, null);
      }
      session = s;
      box.hidden = s.status !== "pending";
      if (another && !box.hidden) refresh();
    },
    refresh,
  };
}
