// Backend console: start demo sessions, show their QR / deep link, follow their status live,
// and the backend's settings (the wrong-PIN policy, the server flags, faults).
//
// This module wires the parts under console/ together; each part looks after its own section
// of the page and receives what it calls.
import { initFaultsForm } from "./console/faults-form.js";
import { mountLiveSessions } from "./console/live-sessions.js";
import { initServerFlags } from "./console/otp-form.js";
import { initPolicyForm } from "./console/policy-form.js";
import { createSessionsTable } from "./console/sessions-table.js";

const live = mountLiveSessions({
  table: createSessionsTable((id) => live.showSession(id)),
  // `/console/sessions/{id}` opens on that session; the address follows the session shown
  shownId: document.body.dataset.sessionId || null,
  onShown: (id) => history.replaceState(null, "", "/console/sessions/" + encodeURIComponent(id)),
  preferredPhoneId: () => null,
  streamBadge: document.getElementById("stream-status"),
  errorBox: document.getElementById("sessions-error"),
});

initServerFlags(live.otpForm.setFlags);
document.getElementById("refresh-sessions").addEventListener("click", live.loadSessions);
initPolicyForm();
initFaultsForm(live.loadPhones);
