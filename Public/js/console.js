// Backend console: start demo sessions, show their QR / deep link, follow their status live.
//
// This module owns the sessions the page knows and wires the parts under console/ together;
// each part looks after its own section of the page and receives what it calls.
import { ReconnectingSocket, api, getJSON, showError } from "./api.js";
import { initFaultsForm } from "./console/faults-form.js";
import { createOtpForm, initServerFlags } from "./console/otp-form.js";
import { initPolicyForm } from "./console/policy-form.js";
import { createSessionCard } from "./console/session-card.js";
import { createSessionForm } from "./console/session-form.js";
import { STATUS_RANK } from "./console/session-labels.js";
import { createSessionsTable } from "./console/sessions-table.js";
import { mountPushComposer } from "./console/push-composer.js";
import { mountPushLog } from "./console/push-log.js";
import { payloadOf } from "./console/push-request.js";

const state = {
  sessions: new Map(), // id -> BackendSession
  shownId: null, // the session on the card
  opens: 0, // how often the live stream opened (after the first, catch up)
};

const tableError = document.getElementById("sessions-error");
const streamStatus = document.getElementById("stream-status");

const table = createSessionsTable(showSession);
const renderSessionCard = createSessionCard(createOtpForm(showUpdate));
const form = createSessionForm((s) => {
  upsert(s);
  state.shownId = String(s.id);
  renderTable();
  renderCard();
});

function renderTable() {
  table.render(state.sessions, state.shownId);
}

function renderCard() {
  const s = state.shownId ? state.sessions.get(state.shownId) : null;
  renderSessionCard(s);
  if (s) table.markSelected(state.shownId);
}

function showSession(id) {
  state.shownId = id;
  renderCard();
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

async function loadSessions() {
  try {
    const data = await getJSON("/api/backend/sessions");
    const list = Array.isArray(data && data.sessions) ? data.sessions : [];
    for (const s of list) upsert(s, { fromSnapshot: true });
    showError(tableError, null);
    renderTable();
    renderCard();
  } catch (err) {
    showError(tableError, err);
  }
}

function setStreamStatus(status) {
  document.body.dataset.connection = status;
  streamStatus.dataset.state = status;
  streamStatus.textContent = status === "open" ? "live" : status === "connecting" ? "connecting…" : "offline, reconnecting…";
}

const redeemTokens = new Map(); // session id -> its payload's redeem token, decoded once

/** The session whose payload carries this redeem token (the push log links to it). */
function sessionOfPayload(token) {
  for (const [id, s] of state.sessions) {
    if (!redeemTokens.has(id)) redeemTokens.set(id, payloadOf(s.qrText)?.nma_data.token);
    if (redeemTokens.get(id) === token) return id;
  }
  return null;
}

const pushLog = mountPushLog(document.getElementById("push-log"), {
  api,
  loadPhones: form.loadPhones,
  sessionFor: sessionOfPayload,
  showSession: (id) => {
    showSession(id);
    document.getElementById("session-card").scrollIntoView({ block: "nearest" });
  },
});
// what the composer keeps lives on the server, under this page's name
const composerState = "/api/push/composer/console";
mountPushComposer(document.getElementById("push-composer"), {
  api,
  fetch: window.fetch.bind(window),
  loadPhones: form.loadPhones,
  origin: location.origin,
  project: () => getJSON("/api/push/messages?limit=1").then((log) => log.project),
  drafts: { load: () => getJSON(composerState), save: (kept) => api(composerState, { method: "PUT", body: kept }) },
  onSent: () => pushLog.refresh(),
});

initServerFlags();
document.getElementById("refresh-sessions").addEventListener("click", loadSessions);
initPolicyForm();
initFaultsForm(form.loadPhones);

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

loadSessions();
