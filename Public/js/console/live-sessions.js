// The sessions a page knows, live over the backend's stream: the session starter, the card of
// the session shown (with its outcome, the OTP form, the phone to send it to and the timeline
// of its exchanges) and, where
// the page has one, the table of recent sessions. The console and the stage both mount it.
import { ReconnectingSocket, getJSON, showError } from "../api.js";
import { createTimelineView } from "../timeline-view.js";
import { createOtpForm } from "./otp-form.js";
import { payloadOf } from "./push-request.js";
import { createSessionCard } from "./session-card.js";
import { createSessionForm } from "./session-form.js";
import { STATUS_RANK } from "./session-labels.js";
import { createSessionOutcome } from "./session-outcome.js";
import { createSessionToPhone } from "./session-to-phone.js";
import { createSessionVisualHash } from "./session-visual-hash.js";

/**
 * `table`: {render(sessions, shownId)} or null; `shownId`: the session to
 * show first; `onShown(id)`: a session came onto the card; `preferredPhoneId()`: the phone the
 * card and a pushed start send to first; `streamBadge`: shows the stream's state; `errorBox`: where a failed read
 * of the sessions shows. Returns {showSession(id), loadSessions(), loadPhones(), sessionOfPayload(token),
 * toPhone, otpForm}.
 */
export function mountLiveSessions({ table = null, shownId = null, onShown = () => {}, preferredPhoneId, streamBadge, errorBox = null }) {
  const state = {
    sessions: new Map(), // id -> BackendSession
    shownId, // the session on the card
    opens: 0, // how often the live stream opened (after the first, catch up)
  };

  const form = createSessionForm({
    preferredPhoneId,
    onStarted: (s) => {
      upsert(s);
      showSession(String(s.id));
    },
    onRefused: (request, error) => {
      state.shownId = null;
      renderTable();
      card.refuse(request, error);
    },
  });
  const otpForm = createOtpForm(showUpdate);
  const toPhone = createSessionToPhone({ loadPhones: form.loadPhones, preferredPhoneId, onSession: showUpdate });
  const timeline = createTimelineView(document.getElementById("session-timeline"));
  const sessionTimeline = {
    show: (s) =>
      timeline.show({ url: `/api/backend/sessions/${encodeURIComponent(s.id)}/timeline`, matches: (hop) => hop.sessionId === String(s.id), name: `session-${s.id}` }),
  };
  const outcome = createSessionOutcome();
  const card = createSessionCard([outcome, createSessionVisualHash(), otpForm, toPhone, sessionTimeline], outcome);

  function renderTable() {
    if (table) table.render(state.sessions, state.shownId);
  }

  function renderCard() {
    const s = state.shownId ? state.sessions.get(state.shownId) : null;
    card.render(s);
  }

  function showSession(id) {
    state.shownId = id;
    renderTable();
    renderCard();
    onShown(id);
  }

  /** A session the server answered with: merged, and shown where it is listed. */
  function showUpdate(s) {
    upsert(s);
    renderTable();
    renderCard();
  }

  /** Merges a session. Live updates always win; a list snapshot never steps a status back. */
  function upsert(s, { fromSnapshot = false } = {}) {
    if (!s || typeof s !== "object" || s.id === undefined || s.id === null) return;
    const id = String(s.id);
    const existing = state.sessions.get(id);
    if (fromSnapshot && existing && (STATUS_RANK[existing.status] ?? 0) > (STATUS_RANK[s.status] ?? 0)) return;
    state.sessions.set(id, { ...s, id });
  }

  /** The recent sessions, and the one shown even when it is older than they are. */
  async function loadSessions() {
    try {
      const data = await getJSON("/api/backend/sessions");
      const list = Array.isArray(data && data.sessions) ? data.sessions : [];
      for (const s of list) upsert(s, { fromSnapshot: true });
      if (state.shownId && !state.sessions.has(state.shownId)) {
        upsert(await getJSON("/api/backend/sessions/" + encodeURIComponent(state.shownId)), { fromSnapshot: true });
      }
      showError(errorBox, null);
      renderTable();
      renderCard();
    } catch (err) {
      showError(errorBox, err);
    }
  }

  function setStreamStatus(status) {
    document.body.dataset.connection = status;
    streamBadge.dataset.state = status;
    streamBadge.textContent = status === "open" ? "live" : status === "connecting" ? "connecting…" : "offline, reconnecting…";
  }

  new ReconnectingSocket("/api/backend/stream", {
    onStatus: setStreamStatus,
    onOpen: () => {
      // after a reconnect, catch up on what was missed
      state.opens += 1;
      if (state.opens > 1) loadSessions();
    },
    onMessage: (msg) => {
      if (msg.type !== "session" || !msg.session) return;
      upsert(msg.session);
      renderTable();
      if (state.shownId !== null && String(msg.session.id) === state.shownId) renderCard();
    },
  });

  /** The session whose payload carries this redeem token (the push log links to it). */
  function sessionOfPayload(token) {
    for (const [id, s] of state.sessions) if (payloadOf(s.qrText)?.nma_data.token === token) return id;
    return null;
  }

  loadSessions();
  return { showSession, loadSessions, loadPhones: form.loadPhones, sessionOfPayload, toPhone, otpForm };
}
