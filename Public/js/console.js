// Backend console: start demo sessions, show their QR / deep link, follow their status live,
// and the backend's settings (the wrong-PIN policy, the server flags, faults).
//
// This module wires the parts under console/ together; each part looks after its own section
// of the page and receives what it calls.
import { api, getJSON } from "./api.js";
import { initFaultsForm } from "./console/faults-form.js";
import { mountLiveSessions } from "./console/live-sessions.js";
import { initServerFlags } from "./console/otp-form.js";
import { initPolicyForm } from "./console/policy-form.js";
import { mountRecordingControl } from "./recording-control.js";
import { createSessionsTable } from "./console/sessions-table.js";
import { mountPushComposer } from "./console/push-composer.js";
import { mountPushLog } from "./console/push-log.js";

const live = mountLiveSessions({
  table: createSessionsTable((id) => live.showSession(id)),
  // `/console/sessions/{id}` opens on that session; the address follows the session shown
  shownId: document.body.dataset.sessionId || null,
  onShown: (id) => history.replaceState(null, "", "/console/sessions/" + encodeURIComponent(id)),
  preferredPhoneId: () => null,
  streamBadge: document.getElementById("stream-status"),
  errorBox: document.getElementById("sessions-error"),
});

const pushLog = mountPushLog(document.getElementById("push-log"), {
  api,
  loadPhones: live.loadPhones,
  sessionFor: live.sessionOfPayload,
  showSession: (id) => {
    live.showSession(id);
    document.getElementById("session-card").scrollIntoView({ block: "nearest" });
  },
});
// what the composer keeps lives on the server, under this page's name
const composerState = "/api/push/composer/console";
mountPushComposer(document.getElementById("push-composer"), {
  api,
  fetch: window.fetch.bind(window),
  loadPhones: live.loadPhones,
  origin: location.origin,
  project: () => getJSON("/api/push/messages?limit=1").then((log) => log.project),
  drafts: { load: () => getJSON(composerState), save: (kept) => api(composerState, { method: "PUT", body: kept }) },
  onSent: () => pushLog.refresh(),
});

initServerFlags(live.otpForm.setFlags);
document.getElementById("refresh-sessions").addEventListener("click", live.loadSessions);
initPolicyForm();
initFaultsForm(live.loadPhones);
mountRecordingControl(document.getElementById("console-recording"), { api });
