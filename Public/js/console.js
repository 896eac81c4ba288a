// Backend console: start demo sessions, show their QR / deep link, follow their status live.
import { ReconnectingSocket, api, getJSON, postJSON, putJSON, el, clear, shortId, formatDateTime, showError, copyText, flashLabel, safeHref } from "./api.js";

const form = document.getElementById("session-form");
const typeSelect = document.getElementById("session-type");
const userInput = document.getElementById("session-user");
const displayNameInput = document.getElementById("session-display-name");
const displayNameField = document.getElementById("display-name-field");
const transactionField = document.getElementById("transaction-field");
const transactionInput = document.getElementById("session-transaction");
const accountField = document.getElementById("account-field");
const accountInput = document.getElementById("session-account");
const deliverySelect = document.getElementById("session-delivery");
const pushPhoneField = document.getElementById("push-phone-field");
const pushPhoneSelect = document.getElementById("session-push-phone");
const pushPhoneHint = document.getElementById("push-phone-hint");
const startButton = document.getElementById("start-session");
const formError = document.getElementById("session-error");

const card = document.getElementById("session-card");
const cardId = document.getElementById("session-id");
const cardStatus = document.getElementById("session-status");
const cardMeta = document.getElementById("session-meta");
const cardDispatch = document.getElementById("session-dispatch");
const qrImg = document.getElementById("session-qr");
const qrText = document.getElementById("session-qr-text");
const deepLink = document.getElementById("session-deep-link");
const copyQrButton = document.getElementById("copy-qr-text");
const copyLinkButton = document.getElementById("copy-deep-link");

const tableBody = document.querySelector("#sessions tbody");
const tableEmpty = document.getElementById("sessions-empty");
const tableError = document.getElementById("sessions-error");
const refreshButton = document.getElementById("refresh-sessions");
const streamStatus = document.getElementById("stream-status");

const MAX_ROWS = 200;
const STATUS_RANK = { pending: 0, redeemed: 1, confirmed: 2, verified: 2, enrolled: 3, loggedin: 3, signed: 3, completed: 3, failed: 3, canceled: 3, expired: 3 };

/** id -> BackendSession */
const sessions = new Map();
let shownId = null;

// ---------------------------------------------------------------------------------------------
// Rendering

function statusBadge(status, attrs = {}) {
  const s = String(status || "unknown");
  return el("span", { className: "badge status-" + s.replace(/[^a-z0-9_-]/gi, ""), dataset: { status: s }, text: s, ...attrs });
}

function setBadge(node, status) {
  const s = String(status || "");
  node.className = "badge status-" + s.replace(/[^a-z0-9_-]/gi, "");
  node.dataset.status = s;
  node.textContent = s;
}

function loggedinText(value) {
  if (value === true) return "yes";
  if (value === false || value === null || value === undefined || value === "") return "—";
  return String(value);
}

function createdTime(s) {
  const t = new Date(s.createdAt).getTime();
  return Number.isNaN(t) ? 0 : t;
}

function renderTable() {
  clear(tableBody);
  const list = [...sessions.values()].sort((a, b) => createdTime(b) - createdTime(a)).slice(0, MAX_ROWS);
  tableEmpty.hidden = list.length > 0;
  for (const s of list) {
    const row = el(
      "tr",
      {
        className: "session-row" + (s.id === shownId ? " selected" : ""),
        dataset: { sessionId: String(s.id), status: String(s.status || "") },
        tabindex: "0",
        title: "Show this session",
      },
      el("td", {}, el("code", { text: shortId(s.id), title: String(s.id) })),
      el("td", { text: s.type || "" }),
      el("td", {}, el("span", { className: "cell-main", text: s.userId || "" }), s.displayName ? el("span", { className: "cell-sub muted", text: s.displayName }) : null),
      el("td", { className: "session-status-cell" }, statusBadge(s.status)),
      deliveryCell(s),
      el("td", { className: "nowrap", text: formatDateTime(s.createdAt) }),
      el("td", {}, s.accountId ? el("code", { text: shortId(s.accountId), title: String(s.accountId) }) : "—"),
      el("td", { className: "loggedin-cell" }, loggedinText(s.loggedin), s.otplogin ? el("span", { className: "tag", text: "OTP" }) : null),
    );
    row.addEventListener("click", () => showSession(s.id));
    row.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        showSession(s.id);
      }
    });
    tableBody.appendChild(row);
  }
}

const DELIVERY_LABELS = { qr: "QR code / link", push: "Push" };

/** What came of sending the push: {kind: "ok" | "warn" | "error", text}. */
function dispatchInfo(dispatch) {
  const d = String(dispatch);
  if (d === "dispatched") return { kind: "ok", text: "The push was sent; open it on the phone." };
  if (d === "dispatchTargetNotFound") return { kind: "warn", text: "No phone to send it to: the user has no phone enrolled, or no phone was chosen. Use the QR code or link." };
  if (d === "dispatchTargetExpired") return { kind: "warn", text: "The phone's push token is no longer registered. Use the QR code or link." };
  if (d.startsWith("dispatchError")) return { kind: "error", text: "Sending the push failed" + (d.includes(":") ? ": " + d.slice(d.indexOf(":") + 1).trim() : ".") };
  return { kind: "warn", text: "" };
}

/** The dispatch code without its detail ("dispatchError: …" -> "dispatchError"). */
function dispatchCode(dispatch) {
  const d = String(dispatch);
  return d.includes(":") ? d.slice(0, d.indexOf(":")) : d;
}

function deliveryCell(s) {
  if (!s.delivery) return el("td", { className: "muted", text: "—" });
  const sub =
    s.delivery === "push" && s.dispatch
      ? el("span", { className: "cell-sub dispatch-" + dispatchInfo(s.dispatch).kind, text: dispatchCode(s.dispatch), title: String(s.dispatch) })
      : null;
  return el("td", { className: "delivery-cell", dataset: { delivery: String(s.delivery) } }, el("span", { className: "cell-main", text: s.delivery === "push" ? "push" : String(s.delivery) }), sub);
}

function renderDispatch(s) {
  clear(cardDispatch);
  if (s.delivery !== "push") {
    cardDispatch.hidden = true;
    delete cardDispatch.dataset.dispatch;
    return;
  }
  const raw = s.dispatch === null || s.dispatch === undefined ? "" : String(s.dispatch);
  const info = raw ? dispatchInfo(raw) : { kind: "warn", text: "Not sent." };
  cardDispatch.dataset.dispatch = raw;
  cardDispatch.dataset.kind = info.kind;
  cardDispatch.append(
    el("span", { className: "dispatch-label", text: "Push" }),
    raw ? el("code", { className: "dispatch-code", text: dispatchCode(raw), title: raw }) : null,
    el("span", { className: "dispatch-text", text: info.text }),
  );
  cardDispatch.hidden = false;
}

function metaRow(dl, label, value) {
  if (value === null || value === undefined || value === "") return;
  dl.append(el("dt", { text: label }), el("dd", {}, value instanceof Node ? value : String(value)));
}

function renderCard() {
  const s = shownId ? sessions.get(shownId) : null;
  if (!s) {
    card.hidden = true;
    return;
  }
  card.hidden = false;
  card.dataset.sessionId = String(s.id);
  card.dataset.type = String(s.type || "");
  cardId.textContent = shortId(s.id);
  cardId.title = String(s.id);
  setBadge(cardStatus, s.status);

  clear(cardMeta);
  metaRow(cardMeta, "Type", s.type);
  metaRow(cardMeta, "User", s.userId);
  metaRow(cardMeta, "Display name", s.displayName);
  metaRow(cardMeta, "Delivery", s.delivery ? DELIVERY_LABELS[s.delivery] || s.delivery : null);
  metaRow(cardMeta, "Created", formatDateTime(s.createdAt));
  metaRow(cardMeta, "Expires", formatDateTime(s.expiresAt));
  metaRow(cardMeta, "Account", s.accountId ? el("code", { text: String(s.accountId) }) : null);
  metaRow(cardMeta, "Logged in", s.loggedin === undefined ? null : loggedinText(s.loggedin));
  metaRow(cardMeta, "OTP login", s.otplogin ? "yes" : null);
  metaRow(cardMeta, "Transaction", s.transaction ? el("span", { id: "session-transaction-text", className: "pre-text", text: s.transaction }) : null);
  metaRow(cardMeta, "Signed", s.transaction ? (s.transactionSigned ? "yes, by the account key" : "not yet") : null);
  metaRow(cardMeta, "User input", s.userInput ? el("span", { id: "session-user-input", className: "pre-text", text: s.userInput }) : null);
  metaRow(cardMeta, "Failure", s.failure ? (typeof s.failure === "string" ? s.failure : JSON.stringify(s.failure)) : null);
  renderDispatch(s);
  renderOTPForm(s);

  const src = safeHref(s.qrImageUrl);
  if (src && qrImg.getAttribute("src") !== src) qrImg.src = src;
  if (!src) qrImg.removeAttribute("src");
  if (qrText.value !== (s.qrText || "")) qrText.value = s.qrText || "";

  const link = s.deepLink || "";
  deepLink.textContent = link;
  const href = safeHref(link);
  if (href) deepLink.href = href;
  else deepLink.removeAttribute("href");

  for (const row of tableBody.querySelectorAll("tr.session-row")) row.classList.toggle("selected", row.dataset.sessionId === shownId);
}

// ---------------------------------------------------------------------------------------------
// Seed 004: an offline OTP typed in for a pending login, and the server flag that allows it

const otpForm = document.getElementById("otp-form");
const otpInput = document.getElementById("otp-input");
const otpError = document.getElementById("otp-error");
const otpButton = document.getElementById("otp-login");
const flagBoxes = [...document.querySelectorAll("input[data-flag]")];
const flagsError = document.getElementById("flags-error");

function renderOTPForm(s) {
  const open = s.type === "login" && (STATUS_RANK[s.status] ?? 3) < 3;
  if (otpForm.dataset.sessionId !== String(s.id)) {
    otpInput.value = "";
    showError(otpError, null);
  }
  otpForm.dataset.sessionId = String(s.id);
  otpForm.hidden = !open;
}

otpForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const id = otpForm.dataset.sessionId;
  otpButton.disabled = true;
  showError(otpError, null);
  try {
    upsert(await postJSON(`/api/backend/sessions/${encodeURIComponent(id)}/otp-login`, { otp: otpInput.value }));
    renderTable();
    renderCard();
  } catch (err) {
    showError(otpError, err);
  } finally {
    otpButton.disabled = false;
  }
});

function showFlags(flags) {
  for (const box of flagBoxes) box.checked = Boolean(flags[box.dataset.flag]);
}

for (const box of flagBoxes) {
  box.addEventListener("change", async () => {
    showError(flagsError, null);
    try {
      showFlags((await putJSON("/api/backend/server-flags", { flags: { [box.dataset.flag]: box.checked } })).flags || {});
    } catch (err) {
      box.checked = !box.checked;
      showError(flagsError, err);
    }
  });
}

getJSON("/api/backend/server-flags")
  .then((answer) => showFlags((answer && answer.flags) || {}))
  .catch((err) => showError(flagsError, err));

function showSession(id) {
  shownId = id;
  renderCard();
}

// ---------------------------------------------------------------------------------------------
// Data

/** Merges a session. Live updates always win; a list snapshot never steps a status back. */
function upsert(s, { fromSnapshot = false } = {}) {
  if (!s || typeof s !== "object" || s.id === undefined || s.id === null) return;
  const id = String(s.id);
  const existing = sessions.get(id);
  if (fromSnapshot && existing && (STATUS_RANK[existing.status] ?? 0) > (STATUS_RANK[s.status] ?? 0)) return;
  sessions.set(id, { ...s, id });
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

// ---------------------------------------------------------------------------------------------
// Form

function syncTypeFields() {
  const type = typeSelect.value;
  const show = (field, input, on) => {
    field.hidden = !on;
    input.disabled = !on;
  };
  show(displayNameField, displayNameInput, type === "enrol");
  show(transactionField, transactionInput, type === "transaction");
  show(accountField, accountInput, type !== "enrol");
}
typeSelect.addEventListener("change", syncTypeFields);
syncTypeFields();

// --- Push delivery: the phone to send to

let phones = []; // Phone, newest first
let phonesLoading = null;

function syncDeliveryFields() {
  const push = deliverySelect.value === "push";
  pushPhoneField.hidden = !push;
  pushPhoneSelect.disabled = !push;
  if (push) loadPhones();
  syncPushPhoneHint();
}

function syncPushPhoneHint() {
  const enrol = typeSelect.value === "enrol";
  const all = pushPhoneSelect.value === "";
  let text = "";
  if (!phones.length) text = "No phones yet: create one on the Phones page.";
  else if (enrol && all) text = "An enrol push goes to one phone: choose it.";
  else if (all) text = "The push goes to every phone the user enrolled on.";
  pushPhoneHint.textContent = text;
  pushPhoneHint.hidden = !text;
}

function renderPhoneOptions() {
  const chosen = pushPhoneSelect.value;
  clear(pushPhoneSelect);
  pushPhoneSelect.append(el("option", { value: "", text: "All phones of this user (login only)" }));
  for (const p of phones) {
    if (typeof p.fcmToken !== "string" || !p.fcmToken) continue;
    pushPhoneSelect.append(el("option", { value: p.fcmToken, dataset: { phoneId: String(p.id) }, text: `${p.name || "(unnamed)"} (${shortId(p.id)})` }));
  }
  // keep the choice while that phone is still listed
  pushPhoneSelect.value = [...pushPhoneSelect.options].some((o) => o.value === chosen) ? chosen : "";
  syncPushPhoneHint();
}

/** Reads the phones (again); called when push is chosen and when the page comes back into view. */
function loadPhones() {
  if (phonesLoading) return phonesLoading;
  phonesLoading = getJSON("/api/phones")
    .then((data) => {
      const list = Array.isArray(data && data.phones) ? data.phones.slice() : [];
      const time = (p) => {
        const t = new Date(p.createdAt).getTime();
        return Number.isNaN(t) ? 0 : t;
      };
      phones = list.sort((a, b) => time(b) - time(a));
      renderPhoneOptions();
    })
    .catch((err) => {
      pushPhoneHint.textContent = `Could not list the phones: ${err.code} ${err.message}`;
      pushPhoneHint.hidden = false;
    })
    .finally(() => {
      phonesLoading = null;
    });
  return phonesLoading;
}

deliverySelect.addEventListener("change", syncDeliveryFields);
typeSelect.addEventListener("change", syncPushPhoneHint);
pushPhoneSelect.addEventListener("change", syncPushPhoneHint);
// phones are created in other tabs: refresh the list when this one is looked at again
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && deliverySelect.value === "push") loadPhones();
});
syncDeliveryFields();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const type = typeSelect.value;
  const userId = userInput.value.trim();
  if (!userId) {
    showError(formError, { code: "USER_REQUIRED", message: "Enter a user id." });
    userInput.focus();
    return;
  }
  const body = { type, userId };
  const displayName = displayNameInput.value.trim();
  if (type === "enrol" && displayName) body.displayName = displayName;
  if (type === "transaction") {
    if (!transactionInput.value.trim()) {
      showError(formError, { code: "TRANSACTION_REQUIRED", message: "Enter the transaction text the user is to sign." });
      transactionInput.focus();
      return;
    }
    // sent as typed: the phone signs these exact characters
    body.transaction = transactionInput.value;
  }
  const accountId = accountInput.value.trim();
  if (type !== "enrol" && accountId) body.accountId = accountId;
  if (deliverySelect.value === "push") {
    body.delivery = "push";
    const token = pushPhoneSelect.value;
    if (token) body.pushToken = token;
    else if (type === "enrol") {
      showError(formError, { code: "PHONE_REQUIRED", message: "An enrol push goes to one phone: choose it." });
      pushPhoneSelect.focus();
      return;
    }
  }

  startButton.disabled = true;
  showError(formError, null);
  try {
    const s = await postJSON("/api/backend/sessions", body);
    upsert(s);
    shownId = String(s.id);
    renderTable();
    renderCard();
  } catch (err) {
    showError(formError, err);
  } finally {
    startButton.disabled = false;
  }
});

copyQrButton.addEventListener("click", async () => {
  const ok = await copyText(qrText.value);
  flashLabel(copyQrButton, ok ? "Copied" : "Copy failed");
});

copyLinkButton.addEventListener("click", async () => {
  const ok = await copyText(deepLink.textContent || "");
  flashLabel(copyLinkButton, ok ? "Copied" : "Copy failed");
});

refreshButton.addEventListener("click", loadSessions);

// ---------------------------------------------------------------------------------------------
// The Second Factor Server's wrong-PIN policy

const policyForm = document.getElementById("policy-form");
const policyPreset = document.getElementById("policy-preset");
const policyMax = document.getElementById("policy-max-attempts");
const policyPenalties = document.getElementById("policy-penalties");
const policyCurrent = document.getElementById("policy-current");
const policyError = document.getElementById("policy-error");
const policySave = document.getElementById("policy-save");
let policyPresets = {};

function describePolicy(p) {
  const waits = (p.penalties || []).map((s, i) => (s > 0 ? `${s} s after ${i + 1}` : null)).filter(Boolean);
  return `In force: blocked at failure ${p.maxAttempts}` + (waits.length ? `; waits ${waits.join(", ")}` : "; no waits");
}

function showPolicy(p) {
  policyPresets = p.presets || {};
  policyPreset.value = p.preset || "custom";
  policyMax.value = String(p.maxAttempts);
  policyPenalties.value = (p.penalties || []).join(", ");
  policyCurrent.textContent = describePolicy(p);
  policyForm.dataset.preset = p.preset || "custom";
  syncPolicyFields();
}

/** A preset's numbers are shown but fixed; Custom makes them editable. */
function syncPolicyFields() {
  const preset = policyPresets[policyPreset.value];
  const custom = !preset;
  if (preset) {
    policyMax.value = String(preset.maxAttempts);
    policyPenalties.value = preset.penalties.join(", ");
  }
  policyMax.readOnly = !custom;
  policyPenalties.readOnly = !custom;
}

/** "0, 0, 60" -> [0, 0, 60]; anything but whole seconds is the server's to refuse, by name. */
function parsePenalties(text) {
  const parts = text.split(/[\s,;]+/).filter((t) => t !== "");
  return parts.map((t) => (/^\d+$/.test(t) ? Number(t) : NaN));
}

policyPreset.addEventListener("change", syncPolicyFields);
policyForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  let body;
  if (policyPresets[policyPreset.value]) {
    body = { preset: policyPreset.value };
  } else {
    const penalties = parsePenalties(policyPenalties.value);
    if (penalties.some(Number.isNaN)) {
      showError(policyError, { code: "INVALID_FIELD", message: "Waits are whole seconds, separated by commas." });
      policyPenalties.focus();
      return;
    }
    body = { maxAttempts: Number(policyMax.value), penalties };
  }
  policySave.disabled = true;
  showError(policyError, null);
  try {
    showPolicy(await putJSON("/api/backend/second-factor-policy", body));
    flashLabel(policySave, "Applied");
  } catch (err) {
    showError(policyError, err);
  } finally {
    policySave.disabled = false;
  }
});

// ---------------------------------------------------------------------------------------------
// Faults on demand

const faultForm = document.getElementById("fault-form");
const faultTarget = document.getElementById("fault-target");
const faultPhoneField = document.getElementById("fault-phone-field");
const faultPhone = document.getElementById("fault-phone");
const faultKind = document.getElementById("fault-kind");
const faultList = document.getElementById("faults");
const faultsEmpty = document.getElementById("faults-empty");
const faultError = document.getElementById("fault-error");
const numberOf = (id) => {
  const v = document.getElementById(id).value.trim();
  return v === "" ? undefined : Number(v);
};

function syncFaultFields() {
  const phone = faultTarget.value === "phone";
  faultPhoneField.hidden = !phone;
  faultPhone.disabled = !phone;
  if (phone) {
    loadPhones().then(() => {
      const chosen = faultPhone.value;
      clear(faultPhone);
      for (const p of phones) faultPhone.append(el("option", { value: String(p.id), text: `${p.name || "(unnamed)"} (${shortId(p.id)})` }));
      if ([...faultPhone.options].some((o) => o.value === chosen)) faultPhone.value = chosen;
    });
  }
  for (const param of faultForm.querySelectorAll(".fault-param")) param.hidden = param.dataset.kind !== faultKind.value;
}

function renderFaults(faults) {
  clear(faultList);
  faultsEmpty.hidden = faults.length > 0;
  for (const f of faults) {
    const remove = el("button", { type: "button", className: "btn btn-small fault-remove", text: "Remove" });
    remove.addEventListener("click", async () => {
      try {
        await api("/api/faults/" + encodeURIComponent(f.id), { method: "DELETE" });
      } catch (err) {
        showError(faultError, err);
      }
      loadFaults();
    });
    faultList.append(
      el(
        "li",
        { className: "fault-row", dataset: { faultId: String(f.id), kind: String(f.kind) } },
        el("span", { className: "fault-text", text: f.description + (f.phoneId ? ` (phone ${shortId(f.phoneId)})` : "") }),
        el("span", { className: "muted", text: "until " + formatDateTime(f.expiresAt) }),
        remove,
      ),
    );
  }
}

async function loadFaults() {
  try {
    const data = await getJSON("/api/faults");
    renderFaults(Array.isArray(data && data.faults) ? data.faults : []);
  } catch (err) {
    showError(faultError, err);
  }
}

faultTarget.addEventListener("change", syncFaultFields);
faultKind.addEventListener("change", syncFaultFields);
faultForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = { target: faultTarget.value, kind: faultKind.value, count: numberOf("fault-count"), seconds: numberOf("fault-seconds") };
  if (body.target === "phone") body.phoneId = faultPhone.value;
  if (body.kind === "status") Object.assign(body, { status: numberOf("fault-status"), retryAfter: numberOf("fault-retry-after") });
  if (body.kind === "latency") Object.assign(body, { minimumMs: numberOf("fault-min-ms"), maximumMs: numberOf("fault-max-ms") });
  if (body.kind === "delayPush") body.delaySeconds = numberOf("fault-delay");
  showError(faultError, null);
  try {
    await postJSON("/api/faults", body);
  } catch (err) {
    showError(faultError, err);
  }
  loadFaults();
});
document.getElementById("faults-clear").addEventListener("click", async () => {
  await api("/api/faults", { method: "DELETE" }).catch((err) => showError(faultError, err));
  loadFaults();
});
syncFaultFields();
loadFaults();
// faults clear themselves: keep the list current while the page is looked at
setInterval(() => {
  if (document.visibilityState === "visible") loadFaults();
}, 2000);

getJSON("/api/backend/second-factor-policy")
  .then(showPolicy)
  .catch((err) => showError(policyError, err));

// ---------------------------------------------------------------------------------------------
// Live updates

function setStreamStatus(status) {
  document.body.dataset.connection = status;
  streamStatus.dataset.state = status;
  streamStatus.textContent = status === "open" ? "live" : status === "connecting" ? "connecting…" : "offline, reconnecting…";
}

let opens = 0;
new ReconnectingSocket("/api/backend/stream", {
  onStatus: setStreamStatus,
  onOpen: () => {
    // after a reconnect, catch up on what was missed
    opens += 1;
    if (opens > 1) loadSessions();
  },
  onMessage: (msg) => {
    if (msg.type !== "session" || !msg.session) return;
    upsert(msg.session);
    renderTable();
    if (shownId !== null && String(msg.session.id) === shownId) renderCard();
  },
});

loadSessions();
