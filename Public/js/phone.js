// The phone's screen. All logic lives in the server: this page renders the current flow it
// receives over the WebSocket and sends the user's input back.
//
// PIN handling: digits are kept in a plain array, overwritten with 0 and emptied after use or on
// cancel. A PIN is only ever sent over the socket; it never goes into the URL, storage, the flow
// log or the console.
import { FlowDiagram } from "./flow-diagram.js";
import { renderSessionStart, showsSession } from "./session-start.js";
import { ReconnectingSocket, api, getJSON, postJSON, putJSON, postFile, el, clear, shortId, formatTime, showError, toDate } from "./api.js";

const phoneId = document.body.dataset.phoneId || "";
const phoneNameFromPage = document.body.dataset.phoneName || "";
const screen = document.getElementById("screen");
const toastBox = document.getElementById("toast");
const operationBanner = document.getElementById("operation-banner");
const faultStrip = document.getElementById("fault-strip");
const clockEl = document.getElementById("clock");
const connIndicator = document.getElementById("conn-indicator");
const logBody = document.querySelector("#flow-log tbody");
const logEmpty = document.getElementById("flow-log-empty");
const downloadButton = document.getElementById("download-log");
const clearLogButton = document.getElementById("clear-log");
const flowDiagram = new FlowDiagram(document.getElementById("flow-diagram"));
const banner = document.getElementById("push-banner");
const bannerOpen = document.getElementById("push-banner-open");
const bannerTitle = document.getElementById("push-banner-title");
const bannerBody = document.getElementById("push-banner-body");
const bannerTime = document.getElementById("push-banner-time");
const bannerCount = document.getElementById("push-count");
const bannerDismiss = document.getElementById("push-banner-dismiss");

const DISMISS_KEY = "authphone.dismissedFlow." + phoneId;
const SEEN_PUSHES_KEY = "authphone.seenPushes." + phoneId;
const FINAL_STATES = new Set(["DONE", "ERROR"]);

const state = {
  phone: null, // PhoneDetail
  flow: null, // current Flow (or null)
  session: null, // the last scanned session before its flow (seed 004's STARTING, the OTP)
  dismissedSessionId: null, // the session whose OTP the user closed
  dismissedFlowId: readDismissed(),
  firstMessage: true, // next "phone" message is the snapshot sent on connect
  renderedKey: null, // what the screen currently shows (to skip identical re-renders)
  log: [], // [{receivedAt, source, flow}], oldest first
  chosenAccounts: new Map(), // flow id -> account picked on the LOGIN confirm screen
  notFound: false,
  // Pushes waiting in the phone's inbox: id -> {message: InboxMessage, seq}. seq counts arrivals
  // on this page, so messages received in the same second keep their order.
  inbox: new Map(),
  inboxSeq: 0,
  // ids the server no longer holds (opened, cleared): a late duplicate of one is ignored
  gonePushes: new Set(),
  // ids the banner no longer announces (dismissed, or seen when another one was opened)
  seenPushes: readSeenPushes(),
  bannerId: null, // message on the banner (to replay the slide-in only for a new one)
  openingPush: null, // id of the message being opened
};

/** Tear-down hooks of the current screen (wipe PIN digits, remove key listeners). */
let teardowns = [];
/** The PIN pad currently shown, if any. */
let activePad = null;

// ---------------------------------------------------------------------------------------------
// Small helpers

function readDismissed() {
  try {
    return sessionStorage.getItem(DISMISS_KEY);
  } catch {
    return null;
  }
}

function writeDismissed(id) {
  state.dismissedFlowId = id;
  try {
    if (id) sessionStorage.setItem(DISMISS_KEY, id);
    else sessionStorage.removeItem(DISMISS_KEY);
  } catch {
    // storage unavailable: keep it in memory only
  }
}

function readSeenPushes() {
  try {
    const list = JSON.parse(sessionStorage.getItem(SEEN_PUSHES_KEY) || "[]");
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

function writeSeenPushes() {
  try {
    sessionStorage.setItem(SEEN_PUSHES_KEY, JSON.stringify([...state.seenPushes]));
  } catch {
    // storage unavailable: keep it in memory only
  }
}

function pinLength() {
  const n = state.phone && Number(state.phone.pinLength);
  return Number.isInteger(n) && n > 0 && n <= 32 ? n : 6;
}

function serverName(flow) {
  const server = flow && flow.session && flow.session.server;
  return (server && server.name) || "the server";
}

function accountLabel(account) {
  if (!account) return "";
  const name = account.displayName || "";
  const user = account.userId || "";
  if (name && user && name !== user) return `${name} (${user})`;
  return name || user || shortId(account.id);
}

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

function button(id, label, className, onClick) {
  return el("button", { id, type: "button", className: "btn " + className, text: label, on: { click: onClick } });
}

/** Disables the screen's action buttons while an input is on its way to the server. */
function setBusy(busy) {
  screen.dataset.busy = busy ? "true" : "false";
  for (const b of screen.querySelectorAll("button.btn")) b.disabled = busy;
}

// ---------------------------------------------------------------------------------------------
// Toast

let toastTimer = null;

function showToast(code, message) {
  clear(toastBox);
  toastBox.append(el("strong", { className: "error-code", text: code || "ERROR" }), el("span", { text: message || "" }));
  toastBox.dataset.code = code || "ERROR";
  toastBox.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(hideToast, 7000);
}

function hideToast() {
  clearTimeout(toastTimer);
  toastBox.hidden = true;
}

toastBox.addEventListener("click", hideToast);

// ---------------------------------------------------------------------------------------------
// Socket

function send(action) {
  if (!socket || !socket.send(action)) {
    showToast("NOT_CONNECTED", "The phone is not connected to the server. Retrying…");
    return false;
  }
  return true;
}

function setConnection(status) {
  document.body.dataset.connection = status;
  connIndicator.dataset.state = status;
  const label = status === "open" ? "connected" : status === "connecting" ? "connecting…" : "disconnected, reconnecting…";
  connIndicator.title = label;
  connIndicator.setAttribute("aria-label", label);
}

let socket = null;
let diagnosing = false;

function onSocketClose(info) {
  // A connection that never opened may mean the phone does not exist: ask the API.
  if (info.opened || diagnosing || state.notFound) return;
  diagnosing = true;
  getJSON("/api/phones/" + encodeURIComponent(phoneId))
    .then(() => {})
    .catch((err) => {
      if (err.code === "PHONE_NOT_FOUND" || err.status === 404) {
        state.notFound = true;
        socket.stop();
        renderNotFound(err);
      }
    })
    .finally(() => {
      diagnosing = false;
    });
}

function onSocketMessage(msg) {
  switch (msg.type) {
    case "phone": {
      if (!msg.phone || typeof msg.phone !== "object") return;
      // pushes are followed by token: a refreshed token needs a fresh subscription
      const tokenRefreshed = state.phone && state.phone.fcmToken !== msg.phone.fcmToken;
      state.phone = msg.phone;
      if (tokenRefreshed && socket) socket.restart();
      if (state.firstMessage) {
        // The snapshot sent on connect carries the current flow: show it (also after a reload).
        state.firstMessage = false;
        // The waiting pushes follow this message; drop those that went away while disconnected.
        syncInbox();
        if (msg.phone.flow) addLog("snapshot", msg.phone.flow);
        applyFlow(msg.phone.flow || null);
        state.session = msg.phone.session || null;
        // an input sent just before a reconnect may have been lost: re-enable the screen
        render(screen.dataset.busy === "true");
        break;
      }
      render();
      break;
    }
    case "flowUpdate": {
      if (!msg.flow || typeof msg.flow !== "object") return;
      addLog("flowUpdate", msg.flow);
      applyFlow(msg.flow);
      render();
      break;
    }
    case "session": {
      if (!msg.session || typeof msg.session !== "object") return;
      addSessionLog(msg.session);
      state.session = msg.session;
      render();
      break;
    }
    case "notification": {
      if (!msg.notification || typeof msg.notification !== "object") return;
      addPush(msg.notification);
      break;
    }
    case "operation": {
      if (!msg.operation || typeof msg.operation !== "object") return;
      showOperation(msg.operation);
      break;
    }
    case "faults": {
      showFaults(Array.isArray(msg.faults) ? msg.faults : []);
      break;
    }
    case "error": {
      const e = msg.error || {};
      showToast(String(e.code || "ERROR"), String(e.message || "The server refused the input."));
      // Nothing changed on the server: show the current screen afresh (resets a PIN pad, re-enables buttons).
      render(true);
      break;
    }
    default:
      break;
  }
}

function applyFlow(flow) {
  // "Home" hides only the final flow it was pressed on (dismissal is kept per flow id).
  state.flow = flow;
  flowDiagram.update(flow);
}

// ---------------------------------------------------------------------------------------------
// Notifications (pushes waiting in the phone's inbox)
//
// The stream replays the inbox on connect, then sends each new push; the same id may come twice.
// The server does not announce removals, so the page removes what it opened or cleared itself and
// re-reads the inbox after a reconnect and when the tab becomes visible again.

const inboxPath = () => "/api/phones/" + encodeURIComponent(phoneId) + "/inbox";

function addPush(message) {
  const id = typeof message.id === "string" ? message.id : "";
  if (!id || state.gonePushes.has(id) || state.inbox.has(id)) return;
  state.inboxSeq += 1;
  state.inbox.set(id, { message, seq: state.inboxSeq });
  scheduleNotificationsRender();
}

function removePushes(ids) {
  for (const id of ids) {
    state.inbox.delete(id);
    state.gonePushes.add(id);
    state.seenPushes.delete(id);
  }
  // the set only guards against late duplicates: keep it small
  if (state.gonePushes.size > 500) state.gonePushes = new Set([...state.gonePushes].slice(-250));
  writeSeenPushes();
  scheduleNotificationsRender();
}

/** The banner stops announcing every message waiting now; they stay in the inbox. */
function markAllSeen() {
  for (const id of state.inbox.keys()) state.seenPushes.add(id);
  writeSeenPushes();
}

let syncing = false;
let syncAgain = false;

/** Re-reads the inbox; drops local messages the server no longer has. */
async function syncInbox() {
  if (state.notFound) return;
  if (syncing) {
    syncAgain = true;
    return;
  }
  syncing = true;
  const seqAtRequest = state.inboxSeq;
  try {
    const data = await getJSON(inboxPath());
    const list = Array.isArray(data && data.messages) ? data.messages : [];
    const held = new Set(list.map((m) => m && m.id));
    // a message that arrived after the request was sent may be missing from the answer: keep it
    const stale = [...state.inbox].filter(([id, item]) => item.seq <= seqAtRequest && !held.has(id)).map(([id]) => id);
    if (stale.length) removePushes(stale);
    for (const m of list) if (m && typeof m === "object") addPush(m);
    // only ids still waiting are worth remembering
    const before = state.seenPushes.size;
    for (const id of state.seenPushes) if (!held.has(id) && !state.inbox.has(id)) state.seenPushes.delete(id);
    if (state.seenPushes.size !== before) writeSeenPushes();
  } catch {
    // the next reconnect or visibility change tries again
  } finally {
    syncing = false;
    if (syncAgain) {
      syncAgain = false;
      syncInbox();
    }
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && socket && socket.isOpen) syncInbox();
});

function receivedTime(item) {
  const d = toDate(item.message.receivedAt);
  return d ? d.getTime() : 0;
}

/** Waiting messages, newest first. */
function pushesNewestFirst() {
  return [...state.inbox.values()].sort((a, b) => receivedTime(b) - receivedTime(a) || b.seq - a.seq);
}

function pushText(message) {
  const n = (message.message && message.message.notification) || {};
  const title = typeof n.title === "string" && n.title.trim() ? n.title : "New message";
  const body = typeof n.body === "string" && n.body.trim() ? n.body : n.title ? "" : "A data message for this phone.";
  return { title, body };
}

/** "now", "5m ago", or the time of day for older messages. */
function relativeTime(value) {
  const d = toDate(value);
  if (!d) return "";
  const seconds = (Date.now() - d.getTime()) / 1000;
  if (seconds < 60) return "now";
  if (seconds < 3600) return Math.floor(seconds / 60) + "m ago";
  return String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0");
}

function timeNode(className, value, id) {
  const d = toDate(value);
  return el("time", { id, className, datetime: d ? d.toISOString() : null, title: d ? formatTime(d) : null, dataset: { receivedAt: String(value ?? "") }, text: relativeTime(value) });
}

function refreshTimes() {
  for (const node of document.querySelectorAll("[data-received-at]")) {
    const text = relativeTime(node.dataset.receivedAt);
    if (node.textContent !== text) node.textContent = text;
  }
}

let notificationsTimer = null;

/** Batches the re-render: the inbox replay after a connect comes as one frame per message. */
function scheduleNotificationsRender() {
  if (notificationsTimer !== null) return;
  notificationsTimer = setTimeout(() => {
    notificationsTimer = null;
    renderNotifications();
  }, 0);
}

function renderNotifications() {
  renderBanner();
  renderInbox();
}

const reduceMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };

function renderBanner() {
  const list = pushesNewestFirst();
  const newest = list[0];
  if (state.notFound || !newest || state.seenPushes.has(newest.message.id)) {
    banner.hidden = true;
    delete banner.dataset.messageId;
    state.bannerId = null;
    return;
  }
  const message = newest.message;
  const { title, body } = pushText(message);
  bannerTitle.textContent = title;
  bannerBody.textContent = body;
  bannerBody.hidden = !body;
  bannerTime.textContent = relativeTime(message.receivedAt);
  bannerTime.dataset.receivedAt = String(message.receivedAt ?? "");
  const d = toDate(message.receivedAt);
  bannerTime.title = d ? formatTime(d) : "";
  bannerCount.textContent = String(list.length);
  bannerCount.dataset.count = String(list.length);
  bannerCount.hidden = list.length < 2;
  banner.dataset.messageId = message.id;
  if (list.length > 1) banner.dataset.stacked = "true";
  else delete banner.dataset.stacked;
  const busy = state.openingPush === message.id;
  banner.dataset.busy = busy ? "true" : "false";
  bannerOpen.disabled = busy;
  const more = list.length > 1 ? `, ${list.length} notifications waiting` : "";
  bannerOpen.setAttribute("aria-label", `AuthPhone notification: ${title}. ${body}${more}. Open`);
  const wasHidden = banner.hidden;
  banner.hidden = false;
  if (state.bannerId !== message.id) {
    state.bannerId = message.id;
    if (!reduceMotion.matches && typeof banner.animate === "function") {
      banner.animate(
        [
          { transform: "translateY(-130%)", opacity: 0.4 },
          { transform: "translateY(0)", opacity: 1 },
        ],
        { duration: wasHidden ? 380 : 260, easing: "cubic-bezier(0.2, 0.9, 0.3, 1)" },
      );
    }
  }
}

function inboxSection() {
  return el("section", { id: "inbox-section", className: "home-section inbox-section" }, ...inboxContent());
}

function inboxContent() {
  const list = pushesNewestFirst();
  const clearButton = el("button", {
    id: "inbox-clear",
    type: "button",
    className: "btn btn-small btn-ghost",
    text: "Clear all",
    hidden: list.length === 0,
    on: { click: clearInbox },
  });
  const head = el("div", { className: "section-head" }, el("h2", { className: "section-title", text: list.length ? `Inbox (${list.length})` : "Inbox" }), clearButton);
  const ul = el("ul", { id: "inbox", className: "inbox-list", hidden: list.length === 0 });
  for (const item of list) {
    const message = item.message;
    const { title, body } = pushText(message);
    ul.appendChild(
      el(
        "li",
        { className: "inbox-item", dataset: { messageId: message.id } },
        el(
          "div",
          { className: "inbox-main" },
          el("div", { className: "inbox-top" }, el("span", { className: "inbox-title", text: title }), timeNode("inbox-time", message.receivedAt)),
          body ? el("p", { className: "inbox-body", text: body }) : null,
        ),
        el("button", {
          type: "button",
          className: "btn btn-small btn-primary inbox-open",
          text: "Open",
          disabled: state.openingPush !== null,
          "aria-label": `Open: ${title}`,
          on: { click: () => openPush(message.id) },
        }),
      ),
    );
  }
  const empty = el("p", { id: "inbox-empty", className: "empty", text: "No notifications.", hidden: list.length > 0 });
  return [head, ul, empty];
}

/** Updates the home screen's inbox in place (the rest of the screen, the text box included, stays). */
function renderInbox() {
  const section = document.getElementById("inbox-section");
  if (!section || !screen.contains(section)) return;
  clear(section);
  section.append(...inboxContent());
}

async function openPush(id) {
  if (state.openingPush !== null) return;
  if (!state.inbox.has(id)) return;
  state.openingPush = id;
  renderNotifications();
  try {
    const answer = await postJSON(inboxPath() + "/" + encodeURIComponent(id) + "/open", {});
    state.openingPush = null;
    // the user acted on the notifications: the banner stops announcing the others
    removePushes([id]);
    markAllSeen();
    renderNotifications();
    hideToast();
    showStartedFlow("push", answer);
  } catch (err) {
    state.openingPush = null;
    if (err.code === "MESSAGE_NOT_FOUND") removePushes([id]);
    renderNotifications();
    showToast(err.code, err.message);
  }
}

async function clearInbox() {
  const ids = [...state.inbox.keys()];
  const clearButton = document.getElementById("inbox-clear");
  if (clearButton) clearButton.disabled = true;
  try {
    await api(inboxPath(), { method: "DELETE" });
    removePushes(ids);
  } catch (err) {
    showToast(err.code, err.message);
    if (clearButton && clearButton.isConnected) clearButton.disabled = false;
  }
}

banner.addEventListener("click", (event) => {
  if (event.target.closest("#push-banner-dismiss")) return;
  const id = banner.dataset.messageId;
  if (id) openPush(id);
});

bannerDismiss.addEventListener("click", () => {
  markAllSeen();
  renderBanner();
});

// ---------------------------------------------------------------------------------------------
// Flow log

/** Text with line-break opportunities after underscores (SET_SECOND_FACTOR wraps at words). */
function breakable(text) {
  const parts = String(text).split(/(?<=_)/);
  const nodes = [];
  parts.forEach((part, i) => {
    if (i > 0) nodes.push(el("wbr"));
    nodes.push(part);
  });
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// Retried operations (seed 003's DeviceInformationChange) and faults set on purpose

let operationTimer = null;

/** The banner over the screen: "attempt 2 of 4, next in 3.2 s", a bar running down to it, Cancel. */
function showOperation(progress) {
  addOperationLog(progress);
  clearInterval(operationTimer);
  clear(operationBanner);
  const attempts = Array.isArray(progress.attempts) ? progress.attempts : [];
  const done = attempts.length;
  const max = Number(progress.maxAttempts) || done || 1;
  operationBanner.dataset.state = String(progress.state || "");
  operationBanner.dataset.attempts = String(done);
  const title = el("strong", { text: "Updating device information" });
  const line = el("span", { id: "operation-line", className: "operation-line" });
  const bar = el("span", { className: "operation-bar" }, el("span", { className: "operation-bar-fill" }));
  const last = attempts.length ? attempts[attempts.length - 1].outcome : "";
  const cancel = el("button", { id: "operation-cancel", type: "button", className: "btn btn-small", text: "Cancel" });
  cancel.addEventListener("click", () =>
    api(phonePath("/operation"), { method: "DELETE" }).catch((err) => showToast(err.code, err.message)),
  );
  if (progress.state === "waiting") {
    const total = Number(progress.nextAttemptIn) || 0;
    const deadline = Date.now() + total * 1000;
    const tick = () => {
      const left = Math.max(0, (deadline - Date.now()) / 1000);
      line.textContent = `Attempt ${done} of ${max} failed (${last}). Attempt ${done + 1} of ${max} in ${left.toFixed(1)} s`;
      bar.firstChild.style.width = total > 0 ? `${(100 * left) / total}%` : "0%";
      if (left <= 0) clearInterval(operationTimer);
    };
    tick();
    operationTimer = setInterval(tick, 100);
    operationBanner.append(title, line, bar, cancel);
  } else if (progress.state === "running") {
    line.textContent = done ? `Attempt ${done + 1} of ${max}…` : `Attempt 1 of ${max}…`;
    operationBanner.append(title, line, cancel);
  } else {
    const outcome = { succeeded: "Done", failed: "Failed", cancelled: "Cancelled" }[progress.state] || progress.state;
    line.textContent = `${outcome} after ${done} attempt${done === 1 ? "" : "s"}` + (progress.error ? `: ${progress.error.code}` : ".");
    operationBanner.append(title, line, el("ol", { className: "operation-attempts" }, attempts.map((a) => el("li", { text: `${a.outcome} (waited ${a.waitedBefore} s)` }))));
    operationTimer = setTimeout(() => (operationBanner.hidden = true), progress.state === "succeeded" ? 3000 : 10000);
  }
  operationBanner.hidden = false;
}

/** Faults in force show as a strip at the top of the screen until they clear themselves. */
function showFaults(faults) {
  clear(faultStrip);
  faultStrip.hidden = faults.length === 0;
  faultStrip.dataset.count = String(faults.length);
  for (const f of faults) {
    faultStrip.append(el("span", { className: "fault-item", dataset: { kind: String(f.kind || "") }, text: `⚠ ${f.description} · until ${formatTime(f.expiresAt)}` }));
  }
}

function addOperationLog(progress) {
  const attempts = Array.isArray(progress.attempts) ? progress.attempts : [];
  const last = attempts[attempts.length - 1];
  const entry = { receivedAt: new Date().toISOString(), source: "operation", operation: progress };
  state.log.push(entry);
  logEmpty.hidden = true;
  const row = el(
    "tr",
    { className: "operation-row", dataset: { state: String(progress.state || "") } },
    el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
    el("td", {}, el("span", { className: "flow-type", text: "DEVICE_INFORMATION" }), " ", el("span", { className: "tag", text: "retry" })),
    el("td", {}, el("span", { className: "badge", text: String(progress.state || "").toUpperCase() })),
    el("td", { text: `attempt ${attempts.length} of ${progress.maxAttempts}` }),
    el("td", { className: last && last.outcome !== "success" ? "warn-text" : "" }, breakable(last ? last.outcome : "—")),
    el("td", { className: progress.error ? "error-text" : "" }, breakable(progress.error ? String(progress.error.code) : "—")),
  );
  logBody.insertBefore(row, logBody.firstChild);
}

/** Seed 004's session lifecycle in the log: STARTING (OTP on offer, connection errors), READY, STOPPED. */
function addSessionLog(session) {
  const entry = { receivedAt: new Date().toISOString(), source: "session", session };
  state.log.push(entry);
  logEmpty.hidden = true;
  const error = session.error;
  const row = el(
    "tr",
    { className: "session-row", dataset: { state: String(session.state || "") } },
    el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
    el("td", {}, el("span", { className: "flow-type", text: "SESSION" }), " ", el("span", { className: "tag", text: session.otpAvailable ? "OTP available" : session.otp ? "OTP shown" : "no OTP" })),
    el("td", {}, el("span", { className: "badge", text: String(session.state || "") })),
    el("td", { text: `attempt ${session.attempts}` }),
    el("td", { text: session.stopReason || "—" }),
    el("td", { className: error ? "error-text" : "" }, breakable(error ? String(error.code) + (error.sdkCode != null ? ` (${error.sdkCode})` : "") : "—")),
  );
  logBody.insertBefore(row, logBody.firstChild);
}

function addLog(source, flow) {
  const entry = { receivedAt: new Date().toISOString(), source, flow };
  state.log.push(entry);
  logEmpty.hidden = true;
  const ci = flow.currentInteraction;
  const prev = flow.previousInteractionResult;
  const err = flow.error;
  const flowCell = el(
    "td",
    {},
    el("span", { className: "flow-type", text: flow.type || "?" }),
    " ",
    el("code", { className: "muted", text: shortId(flow.id), title: String(flow.id ?? "") }),
    source !== "flowUpdate" ? el("span", { className: "tag", text: source }) : null,
  );
  const row = el(
    "tr",
    { dataset: { state: String(flow.state || "") } },
    el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
    flowCell,
    el("td", {}, el("span", { className: "badge state-" + String(flow.state || "").toLowerCase(), text: flow.state || "" })),
    el("td", {}, breakable((ci && ci.type) || "—")),
    el("td", { className: prev && prev.type && prev.type !== "SUCCESS" ? "warn-text" : "" }, breakable((prev && prev.type) || "—")),
    el("td", { className: err ? "error-text" : "" }, breakable(err ? String(err.code || "ERROR") + (err.sdkCode != null ? ` (${err.sdkCode})` : "") : "—")),
  );
  logBody.insertBefore(row, logBody.firstChild);
}

downloadButton.addEventListener("click", () => {
  const data = JSON.stringify({ phoneId, exportedAt: new Date().toISOString(), entries: state.log }, null, 2);
  const blob = new Blob([data], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const a = el("a", { href: url, download: `authphone-flows-${shortId(phoneId)}-${stamp}.json`, className: "offscreen" });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});

clearLogButton.addEventListener("click", () => {
  state.log = [];
  clear(logBody);
  logEmpty.hidden = false;
});

// ---------------------------------------------------------------------------------------------
// Rendering

function currentView() {
  if (showsSession(state.session, state.dismissedSessionId)) return "SESSION";
  const flow = state.flow;
  if (!flow) return "HOME";
  if (FINAL_STATES.has(flow.state) && flow.id === state.dismissedFlowId) return "HOME";
  return "FLOW";
}

function runTeardowns() {
  const fns = teardowns;
  teardowns = [];
  activePad = null;
  for (const fn of fns) {
    try {
      fn();
    } catch {
      // ignore
    }
  }
}

function setScreenAttrs(attrs) {
  for (const name of ["state", "interaction", "flowType", "flowId", "prevResult", "busy", "connectionError"]) delete screen.dataset[name];
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== "") screen.dataset[k] = String(v);
}

function render(force = false) {
  if (state.notFound) return;
  const view = currentView();
  let key;
  if (view === "HOME") {
    const p = state.phone || {};
    key = "HOME:" + JSON.stringify([p.name, p.accounts, p.pinLength, p.hasPin, p.settings, p.biometrics]);
  } else if (view === "SESSION") {
    key = "SESSION:" + JSON.stringify(state.session);
  } else {
    key = "FLOW:" + JSON.stringify(state.flow);
  }
  if (!force && key === state.renderedKey) return;
  // the home screen redrawn (a setting changed) keeps its scroll position
  const scrolled = screen.firstElementChild;
  const scrollTop = view === "HOME" && String(state.renderedKey).startsWith("HOME:") && scrolled ? scrolled.scrollTop : 0;
  state.renderedKey = key;

  // keep what the user typed in the out-of-band box across re-renders of the home screen
  const oob = document.getElementById("oob-text");
  const oobText = view === "HOME" && oob ? oob.value : null;

  runTeardowns();
  clear(screen);
  screen.scrollTop = 0;

  if (view === "HOME") {
    renderHome(oobText);
    if (screen.firstElementChild) screen.firstElementChild.scrollTop = scrollTop;
    return;
  }
  if (view === "SESSION") {
    setScreenAttrs({});
    renderSessionStart(screen, state.session, {
      phoneId,
      countdown: state.phone && state.phone.settings ? state.phone.settings.otpCountdown : 0,
      cancel: () => send({ action: "cancel" }),
      done: () => {
        state.dismissedSessionId = state.session && state.session.id;
        render(true);
      },
      onTeardown: (fn) => teardowns.push(fn),
    });
    return;
  }
  const flow = state.flow;
  const ci = flow.currentInteraction || null;
  setScreenAttrs({
    state: flow.state,
    interaction: flow.state === "WAIT_FOR_INPUT" && ci ? ci.type : "",
    flowType: flow.type,
    flowId: flow.id,
    prevResult: flow.previousInteractionResult && flow.previousInteractionResult.type,
  });
  switch (flow.state) {
    case "PROCESSING":
      renderProcessing(flow);
      break;
    case "WAIT_FOR_INPUT":
      renderWaitForInput(flow, ci);
      break;
    case "DONE":
      renderDone(flow);
      break;
    case "ERROR":
      renderError(flow);
      break;
    default:
      renderUnknown(flow, `Unknown state ${flow.state}`);
  }
}

function screenHeader(title, subtitle) {
  return el("header", { className: "screen-header" }, el("h1", { className: "screen-title", text: title }), subtitle ? el("p", { className: "screen-subtitle", text: subtitle }) : null);
}

// --- Home ---

function renderHome(oobText) {
  setScreenAttrs({ state: "HOME" });
  const phone = state.phone || {};
  const accounts = Array.isArray(phone.accounts) ? phone.accounts : [];

  const accountList = el("ul", { id: "accounts", className: "account-list" });
  for (const a of accounts) {
    const initial = (a.displayName || a.userId || "?").trim().charAt(0).toUpperCase() || "?";
    accountList.appendChild(
      el(
        "li",
        { className: "account", dataset: { accountId: String(a.id ?? "") } },
        el("span", { className: "avatar", "aria-hidden": "true", text: initial }),
        el(
          "span",
          { className: "account-main" },
          el("span", { className: "account-name", text: a.displayName || a.userId || "" }),
          el("span", { className: "account-user", text: a.userId || "" }),
          el("span", { className: "account-server", text: (a.server && a.server.name) || "" }),
        ),
      ),
    );
  }

  const textarea = el("textarea", {
    id: "oob-text",
    rows: "4",
    spellcheck: "false",
    autocomplete: "off",
    placeholder: "Paste QR text, a link (authphone://…, https://…/open?…) or FCM message JSON",
    "aria-label": "Out-of-band input",
  });
  if (oobText) textarea.value = oobText;
  const errorBox = el("div", { id: "oob-error", className: "error", role: "alert", hidden: true });
  const openButton = el("button", { id: "oob-open", type: "button", className: "btn btn-primary btn-block", text: "Open" });

  openButton.addEventListener("click", async () => {
    const text = textarea.value.trim();
    if (!text) {
      showError(errorBox, { code: "EMPTY_INPUT", message: "Paste QR text, a link or FCM message JSON first." });
      return;
    }
    const push = fcmMessage(text);
    const body = push ? { push } : /^(authphone:\/\/|https?:\/\/)/i.test(text) ? { link: text } : { qr: text };
    await startFrom(openButton, errorBox, "oob", async () => {
      const answer = await postJSON("/api/phones/" + encodeURIComponent(phoneId) + "/oob", body);
      if (textarea.isConnected) textarea.value = "";
      return answer;
    });
  });

  screen.append(
    el(
      "div",
      { className: "home" },
      el("header", { className: "home-header" }, el("p", { className: "home-kicker", text: "AuthPhone" }), el("h1", { className: "home-title", id: "home-phone-name", text: phone.name || phoneNameFromPage })),
      el(
        "section",
        { className: "home-section" },
        el("h2", { className: "section-title", text: "Accounts" }),
        accounts.length ? accountList : el("p", { className: "empty", id: "no-accounts", text: "No accounts yet. Scan a QR code or open a link to enrol." }),
      ),
      inboxSection(),
      el(
        "section",
        { className: "home-section oob-box" },
        el("h2", { className: "section-title", text: "Out-of-band input" }),
        el("p", { className: "hint", text: "Stands in for the camera, links opened on the phone and pushes: paste QR text, a deep link or FCM message JSON." }),
        textarea,
        openButton,
        ...imageScanner(errorBox),
        errorBox,
      ),
      pendingSection(),
      accounts.length ? securitySection(phone) : null,
      accounts.length ? localDataSection(phone) : null,
      sensorSection(phone),
      deviceSection(phone),
      settingsSection(phone),
    ),
  );
}

/**
 * Shows the flow a request started. The socket normally delivers the same flow; the answer is only
 * used if the socket has not shown this flow yet (never step back from a later update of it).
 */
function showStartedFlow(source, answer) {
  const flow = answer && answer.flow;
  if (flow && typeof flow === "object" && (!state.flow || state.flow.id !== flow.id)) {
    addLog(source, flow);
    applyFlow(flow);
    render();
  }
}

/** Runs `work` with `control` disabled, showing a failure in `errorBox` (or as a toast once the box is gone). */
async function withControl(control, errorBox, work) {
  control.disabled = true;
  showError(errorBox, null);
  try {
    await work();
  } catch (err) {
    if (errorBox.isConnected) showError(errorBox, err);
    else showToast(err.code, err.message);
  } finally {
    control.disabled = false;
  }
}

/** Runs a request that starts a flow from the home screen. */
function startFrom(button, errorBox, source, request) {
  return withControl(button, errorBox, async () => showStartedFlow(source, await request()));
}

/** The camera: a picture of a QR code (a screenshot, a photo), scanned on the server. */
function imageScanner(errorBox) {
  const input = el("input", { id: "oob-image", type: "file", accept: "image/*", className: "visually-hidden" });
  const button = el("button", { id: "oob-image-pick", type: "button", className: "btn btn-block", text: "Scan a picture of a QR code…" });
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    startFrom(button, errorBox, "image", () => postFile("/api/phones/" + encodeURIComponent(phoneId) + "/oob/image", file));
  });
  return [button, input];
}

/** The pull fallback: ask the backends what is waiting for this phone's accounts. */
function pendingSection() {
  const list = el("ul", { id: "pending", className: "inbox-list", hidden: true });
  const note = el("p", { id: "pending-empty", className: "empty", hidden: true, text: "Nothing is waiting." });
  const errorBox = el("div", { id: "pending-error", className: "error", role: "alert", hidden: true });
  const check = el("button", { id: "pending-check", type: "button", className: "btn btn-small", text: "Check for requests" });
  check.addEventListener("click", () =>
    withControl(check, errorBox, async () => {
      const answer = await getJSON("/api/phones/" + encodeURIComponent(phoneId) + "/pending");
      const operations = Array.isArray(answer && answer.operations) ? answer.operations : [];
      clear(list);
      for (const op of operations) {
        const open = el("button", { type: "button", className: "btn btn-small btn-primary pending-open", text: "Open" });
        open.addEventListener("click", () =>
          startFrom(open, errorBox, "pending", () => postJSON("/api/phones/" + encodeURIComponent(phoneId) + "/oob", { qr: String(op.payload || "") })),
        );
        list.appendChild(
          el(
            "li",
            { className: "inbox-item pending-item", dataset: { sessionId: String(op.sessionId || "") } },
            el("div", { className: "inbox-main" }, el("div", { className: "inbox-top" }, el("span", { className: "inbox-title", text: "Login request" }), timeNode("inbox-time", op.createdAt))),
            open,
          ),
        );
      }
      list.hidden = operations.length === 0;
      note.hidden = operations.length > 0;
    }),
  );
  return el(
    "section",
    { id: "pending-section", className: "home-section" },
    el("div", { className: "section-head" }, el("h2", { className: "section-title", text: "Waiting requests" }), check),
    el("p", { className: "hint", text: "Without pushes, the phone can ask its servers for the logins waiting for it." }),
    list,
    note,
    errorBox,
  );
}

const phonePath = (suffix) => "/api/phones/" + encodeURIComponent(phoneId) + suffix;

/** Second-factor management: the flows the phone starts itself (seed 000), and the reset. */
function securitySection(phone) {
  const bio = phone.biometrics || {};
  const errorBox = el("div", { id: "security-error", className: "error", role: "alert", hidden: true });
  const start = (id, label, type) => {
    const b = el("button", { id, type: "button", className: "btn btn-small", text: label });
    b.addEventListener("click", () => startFrom(b, errorBox, "phone", () => postJSON(phonePath("/flows"), { type })));
    return b;
  };
  const reset = confirmButton("remove-accounts", "Remove all accounts", "Tap again: remove all accounts and the PIN", errorBox, async () => {
    state.phone = await api(phonePath("/accounts"), { method: "DELETE" });
    render(true);
  });
  const yesNo = (value) => (value ? "yes" : "no");
  return el(
    "section",
    { id: "security-section", className: "home-section" },
    el("h2", { className: "section-title", text: "PIN and biometrics" }),
    el(
      "dl",
      { id: "biometrics-state", className: "kv kv-compact" },
      el("dt", { text: "hasEnabledBiometrics" }),
      el("dd", { id: "has-enabled-biometrics", text: yesNo(bio.hasEnabledBiometrics) }),
      el("dt", { text: "canEnableBiometrics" }),
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
    el("p", { className: "hint", text: "A blocked PIN is unblocked by a biometric, or by removing all accounts (which resets the phone; the accounts stay on the server)." }),
    reset,
    errorBox,
  );
}

/** A button that asks for a second tap before it acts (removals cannot be undone). */
function confirmButton(id, label, confirmLabel, errorBox, action) {
  const b = el("button", { id, type: "button", className: "btn btn-small btn-danger", text: label });
  b.addEventListener("click", () => {
    if (b.dataset.armed !== "true") {
      b.dataset.armed = "true";
      b.textContent = confirmLabel;
      return;
    }
    withControl(b, errorBox, action);
  });
  return b;
}

/** Seed 003's LocalData: the accounts and authenticators this phone holds, and their removal. */
function localDataSection(phone) {
  const accounts = Array.isArray(phone.accounts) ? phone.accounts : [];
  const bio = phone.biometrics || {};
  const errorBox = el("div", { id: "local-data-error", className: "error", role: "alert", hidden: true });
  const refresh = async (request) => {
    await request();
    state.phone = await getJSON(phonePath(""));
    render(true);
  };
  const rows = accounts.map((a) =>
    el(
      "li",
      { className: "local-account", dataset: { accountId: String(a.id) } },
      el("span", { className: "account-main" }, el("span", { className: "account-name", text: accountLabel(a) }), el("span", { className: "account-server", text: (a.server && a.server.name) || "" })),
      el(
        "span",
        { className: "row-actions" },
        confirmButton("delete-local-" + a.id, "Delete locally", "Tap again: keys off this phone", errorBox, () =>
          refresh(() => postJSON(phonePath("/local-data/delete-authenticator"), { userId: a.userId, aaid: "PIN" })),
        ),
        confirmButton("remove-account-" + a.id, "Remove", "Tap again: remove here and at the server", errorBox, () =>
          refresh(() => api(phonePath("/accounts/" + encodeURIComponent(a.id)), { method: "DELETE" })),
        ),
      ),
    ),
  );
  return el(
    "section",
    { id: "local-data-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Local data" }),
    el(
      "dl",
      { className: "kv kv-compact" },
      el("dt", { text: "Authenticator PIN" }),
      el("dd", { id: "authenticator-pin", text: phone.hasPin ? "registered" : "none" }),
      el("dt", { text: "Authenticator BIOMETRICS" }),
      el("dd", { id: "authenticator-biometrics", text: bio.hasEnabledBiometrics ? "registered" : "none" }),
    ),
    el("ul", { id: "local-accounts", className: "local-accounts" }, rows),
    el("p", { className: "hint", text: "Delete locally (deleteAuthenticator) leaves the account at the server; Remove deletes it on both sides." }),
    errorBox,
  );
}

/** The simulated biometric sensor: what the phone's OS has enrolled. */
function sensorSection(phone) {
  const settings = phone.settings || {};
  const bio = phone.biometrics || {};
  const errorBox = el("div", { id: "sensor-error", className: "error", role: "alert", hidden: true });
  const action = (id, label, method) => {
    const b = el("button", { id, type: "button", className: "btn btn-small", text: label });
    b.addEventListener("click", () =>
      withControl(b, errorBox, async () => {
        // a state-changing request is JSON, even with nothing to say
        state.phone = await api(phonePath("/sensor/features"), method === "POST" ? { method, body: {} } : { method });
        render(true);
      }),
    );
    return b;
  };
  const count = Number(bio.enrolledFeatures) || 0;
  return el(
    "section",
    { id: "sensor-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Biometric sensor" }),
    el("p", { id: "sensor-state", className: "hint", dataset: { features: String(count) },
      text: settings.biometricSensor === false ? "This phone has no biometric sensor." : `${count} fingerprint${count === 1 ? "" : "s"} or face${count === 1 ? "" : "s"} enrolled in the phone's OS.` }),
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

/** Seed 003's device information: the name, the FCM token and pushes, told to the backend with retries. */
function deviceSection(phone) {
  const errorBox = el("div", { id: "device-error", className: "error", role: "alert", hidden: true });
  const policy = el(
    "select",
    { id: "device-retry-policy" },
    el("option", { value: "default", text: "Retry: default (exponential, 3 retries, 1–8 s)" }),
    el("option", { value: "none", text: "Retry: none" }),
    el("option", { value: "constant", text: "Retry: constant, 3 × 2 s" }),
    el("option", { value: "exponential", text: "Retry: exponential, 5 retries, 1–16 s" }),
  );
  const withPolicy = (body) => {
    const chosen = RETRY_POLICIES[policy.value];
    return chosen ? { ...body, retryPolicy: chosen } : body;
  };
  const nameInput = el("input", { id: "device-name", type: "text", maxlength: "64", value: phone.name || "", "aria-label": "Device name" });
  const rename = el("button", { id: "device-rename", type: "button", className: "btn btn-small", text: "Rename" });
  rename.addEventListener("click", () =>
    withControl(rename, errorBox, () => putJSON(phonePath("/device-information"), withPolicy({ name: nameInput.value.trim() }))),
  );
  const rotate = el("button", { id: "rotate-token", type: "button", className: "btn btn-small", text: "Rotate FCM token" });
  rotate.addEventListener("click", () => withControl(rotate, errorBox, () => postJSON(phonePath("/fcm-token/rotate"), withPolicy({}))));
  const pushes = el("button", {
    id: "toggle-pushes",
    type: "button",
    className: "btn btn-small",
    text: phone.pushNotifications === false ? "Enable pushes" : "Disable pushes",
  });
  pushes.addEventListener("click", () =>
    withControl(pushes, errorBox, () =>
      putJSON(phonePath("/device-information"), withPolicy(phone.pushNotifications === false ? { fcmToken: phone.fcmToken } : { disablePushNotifications: true })),
    ),
  );
  return el(
    "section",
    { id: "device-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Device information" }),
    el(
      "dl",
      { className: "kv kv-compact" },
      el("dt", { text: "Device id" }),
      el("dd", {}, el("code", { text: shortId(phone.deviceId), title: String(phone.deviceId || "") })),
      el("dt", { text: "FCM token" }),
      el("dd", {}, el("code", { id: "device-fcm-token", text: String(phone.fcmToken || "").slice(0, 18) + "…", title: String(phone.fcmToken || "") })),
      el("dt", { text: "Push notifications" }),
      el("dd", { id: "device-pushes", text: phone.pushNotifications === false ? "off" : "on" }),
    ),
    el("div", { className: "inline-form" }, nameInput, rename),
    el("div", { className: "row-actions device-actions" }, rotate, pushes),
    policy,
    el("p", { className: "hint", text: "The backend learns each change; rotating the token retires the old one at once, so pushes fail until the backend has the new one." }),
    errorBox,
  );
}

/** The SDK options of seeds 000, 001 and 003, saved on the server one change at a time. */
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
];

function settingsSection(phone) {
  const settings = phone.settings || {};
  const errorBox = el("div", { id: "settings-error", className: "error", role: "alert", hidden: true });
  const save = (control, value, undo) =>
    withControl(control, errorBox, async () => {
      try {
        state.phone = await putJSON(phonePath("/settings"), { [control.dataset.setting]: value });
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
  return el(
    "section",
    { id: "settings-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Settings" }),
    ...rows,
    errorBox,
  );
}

/** The pasted text as an FCM message (a JSON object with "message" or "data"), or null. */
function fcmMessage(text) {
  if (!text.startsWith("{")) return null;
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  return Object.hasOwn(value, "message") || Object.hasOwn(value, "data") ? value : null;
}

// --- Processing ---

function renderProcessing(flow) {
  screen.append(
    el(
      "div",
      { className: "screen-center", id: "flow-processing" },
      el("div", { className: "spinner", "aria-hidden": "true" }),
      el("p", { className: "processing-text", text: flow.type === "HEADLESS_UPGRADE" ? "The server is upgrading your account key…" : "Processing…" }),
      el("span", { className: "pill", text: flow.type || "" }),
    ),
  );
}

// --- Wait for input ---

function renderWaitForInput(flow, ci) {
  const type = ci && ci.type;
  if (type === "CONFIRM") {
    if (flow.type === "ENROL") renderConfirmEnrol(flow, ci);
    else renderConfirmLogin(flow, ci);
  } else if (type === "CONFIRM_TRANSACTION") {
    renderConfirmTransaction(flow);
  } else if (type === "SET_SECOND_FACTOR") {
    if (offers(ci, "BIOMETRICS")) renderSetBiometrics(flow);
    else if (isNevisPinChange(flow)) renderNevisPinChange(flow);
    else renderSetPin(flow);
  } else if (type === "VERIFY_SECOND_FACTOR") {
    renderVerifyPin(flow, ci);
  } else {
    renderUnknown(flow, `This screen cannot show the interaction ${type || "(none)"} yet.`);
  }
}

function offers(ci, factor) {
  const info = ci && ci.secondFactorInfo;
  return Boolean(info && Array.isArray(info.allowedSecondFactorTypes) && info.allowedSecondFactorTypes.includes(factor));
}

/** Seed 003's PIN change: old and new PIN on one screen (the server's rule: no VERIFY came before). */
function isNevisPinChange(flow) {
  const prev = flow.previousInteractionResult;
  return flow.type === "CHANGE_PIN" && !(prev && prev.interactionType === "VERIFY_SECOND_FACTOR");
}

function cancelFlow() {
  runPadWipe();
  if (send({ action: "cancel" })) setBusy(true);
}

function runPadWipe() {
  if (activePad) activePad.wipe();
}

function actions(...buttons) {
  return el("div", { className: "screen-actions" }, ...buttons);
}

function visualHash(server) {
  const vh = (server && server.visualHash) || {};
  const colors = Array.isArray(vh.colors) ? vh.colors.slice(0, 16) : [];
  const grid = el("div", { id: "visual-hash", className: "visual-hash", role: "img", "aria-label": "Visual hash of the server key" });
  for (let i = 0; i < 16; i++) {
    const cell = el("span", { className: "vh-cell" });
    const c = colors[i];
    if (typeof c === "string" && HEX_COLOR.test(c)) {
      cell.style.backgroundColor = c;
      cell.dataset.color = c;
    }
    grid.appendChild(cell);
  }
  return el("div", { className: "visual-hash-box" }, grid, el("p", { id: "visual-hash-fingerprint", className: "fingerprint", text: vh.fingerprint || "" }));
}

function serverBlock(flow) {
  const server = (flow.session && flow.session.server) || {};
  return el(
    "div",
    { className: "server-block" },
    el("span", { className: "server-icon", "aria-hidden": "true" }),
    el("span", { className: "server-main" }, el("span", { id: "server-name", className: "server-name", text: server.name || "Unknown server" }), el("span", { className: "server-url", text: server.url || "" })),
  );
}

function expiryNote(flow) {
  const d = toDate(flow.session && flow.session.expiresAt);
  if (!d) return null;
  return el("p", { className: "hint small", text: "Request expires at " + formatTime(d) });
}

function renderConfirmEnrol(flow, ci) {
  const session = flow.session || {};
  const enrol = session.enrolInfo || {};
  const existing = (ci.confirmSessionInfo && Array.isArray(ci.confirmSessionInfo.accounts) && ci.confirmSessionInfo.accounts) || [];
  const nsAccounts = Array.isArray(enrol.nsAccounts) ? enrol.nsAccounts : [];

  const body = el(
    "div",
    { className: "screen-body" },
    screenHeader("Create account?", null),
    serverBlock(flow),
    ...(state.phone && state.phone.settings && state.phone.settings.showVisualHash === false
      ? []
      : [visualHash(session.server), el("p", { className: "hint small", text: "Check that the colours and fingerprint match those shown by the website." })]),
    el("dl", { className: "kv" }, el("dt", { text: "Account" }), el("dd", { id: "enrol-display-name", text: enrol.displayName || "—" })),
  );
  if (existing.length) {
    body.append(
      el(
        "div",
        { id: "existing-accounts", className: "notice notice-warn", role: "note" },
        el("strong", { text: `This phone already has ${existing.length === 1 ? "an account" : existing.length + " accounts"} on ${serverName(flow)}:` }),
        el("ul", {}, existing.map((a) => el("li", { text: accountLabel(a) }))),
      ),
    );
  }
  if (nsAccounts.length) {
    body.append(
      el(
        "div",
        { id: "ns-accounts", className: "notice", role: "note" },
        el("strong", { text: "Other accounts on the server (nsAccounts):" }),
        el("ul", {}, nsAccounts.map((n) => el("li", { text: typeof n === "string" ? n : JSON.stringify(n) }))),
      ),
    );
  }
  body.append(expiryNote(flow) || "");
  screen.append(
    body,
    actions(
      button("cancel", "Cancel", "btn-secondary", cancelFlow),
      button("confirm", "Create account", "btn-primary", () => {
        if (send({ action: "confirmSession" })) setBusy(true);
      }),
    ),
  );
}

function renderConfirmLogin(flow, ci) {
  const session = flow.session || {};
  let accounts = (ci.confirmSessionInfo && Array.isArray(ci.confirmSessionInfo.accounts) && ci.confirmSessionInfo.accounts) || [];
  if (!ci.confirmSessionInfo) {
    // no list from the flow: offer this phone's accounts on that server
    const url = session.server && session.server.url;
    accounts = ((state.phone && state.phone.accounts) || []).filter((a) => a.server && url && a.server.url === url);
  }
  const announce = session.announceInfo && typeof session.announceInfo === "object" ? Object.entries(session.announceInfo) : [];

  const signing = flow.type === "SIGN_TRANSACTION";
  const title = signing ? `Sign a transaction for ${serverName(flow)}?` : `Log in to ${serverName(flow)}?`;
  const body = el("div", { className: "screen-body" }, screenHeader(title, signing ? "You will see the transaction next." : null), serverBlock(flow));
  if (announce.length) {
    const dl = el("dl", { id: "announce-info", className: "kv" });
    for (const [k, v] of announce) dl.append(el("dt", { text: k }), el("dd", { text: typeof v === "string" ? v : JSON.stringify(v) }));
    body.append(dl);
  }
  const fieldset = el("fieldset", { id: "account-choices", className: "account-choices" }, el("legend", { className: "section-title", text: accounts.length > 1 ? "Choose an account" : "Account" }));
  accounts.forEach((a, i) => {
    const input = el("input", { type: "radio", name: "account", value: String(a.id ?? ""), className: "account-choice", id: "account-" + i });
    if (i === 0) input.checked = true;
    fieldset.append(
      el(
        "label",
        { className: "account-option", for: "account-" + i },
        input,
        el("span", { className: "account-main" }, el("span", { className: "account-name", text: a.displayName || a.userId || "" }), el("span", { className: "account-user", text: a.userId || "" })),
      ),
    );
  });
  if (!accounts.length) fieldset.append(el("p", { className: "notice notice-warn", text: "This phone has no account for this server." }));
  if (session.preselectedAccountId && accounts.length === 1) fieldset.append(el("p", { id: "account-preselected", className: "hint small", text: "Chosen by the server." }));
  // nextAuth's userInput: free text the relying party receives with the confirmation
  const userInput = el("textarea", { id: "user-input", className: "user-input", rows: "2", maxlength: "500", placeholder: "Optional", spellcheck: "false" });
  const userInputField = el("label", { className: "field", for: "user-input" }, el("span", { className: "section-title", text: "Message to the server" }), userInput);
  body.append(fieldset, userInputField, expiryNote(flow) || "");

  const confirm = button("confirm", signing ? "Continue" : "Log in", "btn-primary", () => {
    const checked = fieldset.querySelector("input.account-choice:checked");
    if (!checked) {
      showToast("NO_ACCOUNT", "Choose an account first.");
      return;
    }
    const account = accounts.find((a) => String(a.id) === checked.value);
    const message = { action: "confirmSession", account: checked.value };
    if (userInput.value !== "") message.userInput = userInput.value;
    if (send(message)) {
      if (account) state.chosenAccounts.set(flow.id, account);
      setBusy(true);
    }
  });
  screen.append(body, actions(button("cancel", "Cancel", "btn-secondary", cancelFlow), confirm));
  if (!accounts.length) confirm.disabled = true;
}

function renderConfirmTransaction(flow) {
  const text = flow.transaction ?? (flow.session && flow.session.transaction) ?? "";
  const who = loginAccountLabel(flow);
  const body = el(
    "div",
    { className: "screen-body" },
    screenHeader("Confirm the transaction", who ? `as ${who}` : null),
    serverBlock(flow),
    // shown exactly as it will be signed: whitespace and line breaks kept
    el("pre", { id: "transaction-text", className: "transaction-text", text }),
    el("p", { className: "hint small", text: "Your account key signs exactly this text; the server refuses any other." }),
    expiryNote(flow) || "",
  );
  screen.append(
    body,
    actions(
      button("cancel", "Cancel", "btn-secondary", cancelFlow),
      button("confirm", "Sign", "btn-primary", () => {
        if (send({ action: "confirmTransaction" })) setBusy(true);
      }),
    ),
  );
}

// --- PIN pad ---

/**
 * A PIN pad: keys 0-9, delete, OK; a row of dots shows how many digits were entered. Keys give no
 * visual feedback. onSubmit(digits) is called with the digit array when OK is pressed with a full PIN;
 * the caller must wipe it.
 */
function createPinPad({ length, onSubmit, message }) {
  const digits = [];
  let locked = false;
  const dots = el("div", { className: "pin-dots", id: "pin-dots", "aria-label": `0 of ${length} digits entered`, role: "status" });
  for (let i = 0; i < length; i++) dots.appendChild(el("span", { className: "pin-dot" }));

  function updateDots() {
    const list = dots.children;
    for (let i = 0; i < list.length; i++) list[i].classList.toggle("filled", i < digits.length);
    dots.dataset.count = String(digits.length);
    dots.setAttribute("aria-label", `${digits.length} of ${length} digits entered`);
  }

  function wipe() {
    digits.fill(0);
    digits.length = 0;
    updateDots();
  }

  function press(d) {
    if (locked || digits.length >= length) return;
    digits.push(d);
    updateDots();
  }

  function del() {
    if (locked || digits.length === 0) return;
    digits[digits.length - 1] = 0;
    digits.pop();
    updateDots();
  }

  function ok() {
    if (locked) return;
    if (digits.length < length) {
      message(`Enter ${length} digits.`, "hint");
      return;
    }
    onSubmit(digits);
  }

  const grid = el("div", { className: "pin-keys", role: "group", "aria-label": "PIN pad" });
  // A pointer click drops the focus again (keyboard activation, where detail is 0, keeps it).
  const blurAfterPointer = (event) => {
    if (event.detail > 0) event.currentTarget.blur();
  };
  const key = (d) =>
    el("button", {
      type: "button",
      className: "pin-key",
      "data-digit": String(d),
      "aria-label": String(d),
      text: String(d),
      on: {
        click: (event) => {
          press(d);
          blurAfterPointer(event);
        },
      },
    });
  for (const d of [1, 2, 3, 4, 5, 6, 7, 8, 9]) grid.appendChild(key(d));
  const fnKey = (id, label, text, action) =>
    el("button", {
      type: "button",
      id,
      className: "pin-key pin-fn",
      "aria-label": label,
      text,
      on: {
        click: (event) => {
          blurAfterPointer(event);
          action();
        },
      },
    });
  grid.appendChild(fnKey("pin-delete", "Delete", "⌫", del));
  grid.appendChild(key(0));
  grid.appendChild(fnKey("pin-ok", "OK", "OK", ok));

  // Typing digits on a keyboard works too (unless focus is in a text field).
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const t = event.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    if (/^[0-9]$/.test(event.key)) {
      event.preventDefault();
      press(Number(event.key));
    } else if (event.key === "Backspace") {
      event.preventDefault();
      del();
    } else if (event.key === "Enter" && !(t && t.tagName === "BUTTON")) {
      event.preventDefault();
      ok();
    }
  }
  document.addEventListener("keydown", onKey);

  const root = el("div", { id: "pin-pad", className: "pin-pad" }, dots, grid);
  const pad = {
    root,
    wipe,
    lock() {
      locked = true;
      root.dataset.locked = "true";
    },
    unlock() {
      locked = false;
      delete root.dataset.locked;
    },
    setPhase(phase) {
      root.dataset.phase = phase;
    },
  };
  activePad = pad;
  teardowns.push(() => {
    document.removeEventListener("keydown", onKey);
    wipe();
  });
  return pad;
}

function pinMessageBox() {
  const box = el("p", { id: "pin-message", className: "pin-message", role: "status" });
  const set = (text, kind) => {
    box.textContent = text || "";
    box.dataset.kind = kind || "";
  };
  return [box, set];
}

function renderSetPin(flow) {
  const length = pinLength();
  const chooseText = flow.type === "CHANGE_PIN" ? "Choose a new PIN" : "Choose a PIN";
  const title = el("h1", { id: "pin-title", className: "screen-title", text: chooseText });
  const subtitle = el("p", { className: "screen-subtitle", text: `${length} digits. You'll need it to use your account on ${serverName(flow)}.` });
  const [messageBox, setMessage] = pinMessageBox();
  const prev = flow.previousInteractionResult;
  if (prev && prev.type && prev.type !== "SUCCESS") setMessage(`The PIN was not accepted (${prev.type}). Choose another.`, "error");

  const first = [];
  let phase = "choose";
  const pad = createPinPad({
    length,
    message: setMessage,
    onSubmit(digits) {
      if (phase === "choose") {
        for (const d of digits) first.push(d);
        pad.wipe();
        phase = "repeat";
        pad.setPhase(phase);
        title.textContent = "Repeat your PIN";
        setMessage("", "");
        return;
      }
      const same = first.length === digits.length && first.every((d, i) => d === digits[i]);
      if (!same) {
        first.fill(0);
        first.length = 0;
        pad.wipe();
        phase = "choose";
        pad.setPhase(phase);
        title.textContent = chooseText;
        setMessage("The PINs don't match. Start over.", "error");
        return;
      }
      const pin = digits.join("");
      first.fill(0);
      first.length = 0;
      pad.wipe();
      pad.lock();
      if (send({ action: "inputSecondFactor", pin })) {
        setMessage("Saving…", "hint");
        setBusy(true);
      } else {
        pad.unlock();
        phase = "choose";
        pad.setPhase(phase);
        title.textContent = chooseText;
      }
    },
  });
  pad.setPhase(phase);
  teardowns.push(() => {
    first.fill(0);
    first.length = 0;
  });

  screen.append(
    el("div", { className: "pin-screen" }, el("header", { className: "screen-header" }, title, subtitle), messageBox, pad.root),
    actions(button("cancel", "Cancel", "btn-secondary", cancelFlow)),
  );
}

function renderVerifyPin(flow, ci) {
  const length = pinLength();
  const sfa = flow.secondFactorAccount || null;
  const prev = flow.previousInteractionResult;
  const pinOffered = offers(ci, "PIN");
  const bioOffered = offers(ci, "BIOMETRICS");
  const title = el("h1", { id: "pin-title", className: "screen-title", text: pinOffered ? "Enter your PIN" : "Use your biometric" });
  const purpose =
    {
      LOGIN: "to log in to",
      SIGN_TRANSACTION: "to sign the transaction for",
      CHANGE_PIN: "to change your PIN at",
      ADD_BIOMETRICS: "to add biometrics at",
      REMOVE_BIOMETRICS: "to remove biometrics at",
    }[flow.type] || "for";
  const subtitle = el("p", { className: "screen-subtitle", text: `${purpose} ${serverName(flow)}` });
  const [messageBox, setMessage] = pinMessageBox();
  if (prev && prev.type === "PIN_FAIL") setMessage("Wrong PIN", "error");
  else if (prev && prev.type === "BIOMETRICS_REMOVED") setMessage("Your enrolled fingerprints changed, so biometrics were turned off. Enter your PIN.", "error");
  else if (prev && prev.type && prev.type !== "SUCCESS") setMessage(prev.type, "error");

  const extra = [];
  if (sfa && Number(sfa.failedAttempts) > 0) {
    const max = sfa.maxAttempts != null ? sfa.maxAttempts : "?";
    extra.push(el("p", { id: "pin-attempts", className: "pin-attempts", text: `Failed attempt ${sfa.failedAttempts} of ${max}` }));
  }
  const penalty = sfa && Number(sfa.penalisedFor) > 0 ? el("p", { id: "pin-penalty", className: "pin-attempts", role: "timer" }) : null;
  if (penalty) extra.push(penalty);
  const blocked = !!(sfa && sfa.isBlocked);
  if (blocked) {
    const text = bioOffered ? "Your PIN is blocked. A biometric verification unblocks it." : "Your PIN is blocked. This account can no longer be used with a PIN.";
    extra.push(el("p", { id: "pin-blocked", className: "notice notice-error", text }));
  }

  const pad = createPinPad({
    length,
    message: setMessage,
    onSubmit(digits) {
      const pin = digits.join("");
      pad.wipe();
      pad.lock();
      if (send({ action: "inputSecondFactor", pin })) {
        setMessage("Checking…", "hint");
        setBusy(true);
      } else {
        pad.unlock();
      }
    },
  });
  pad.setPhase("verify");
  if (!pinOffered) {
    pad.lock();
    pad.root.hidden = true;
  } else if (penalty) {
    countDownPenalty(penalty, Number(sfa.penalisedFor), pad);
  }

  const buttons = [button("cancel", "Cancel", "btn-secondary", cancelFlow)];
  if (bioOffered) buttons.push(button("use-biometrics", "Use biometrics", "btn-primary", () => biometricPrompt("Verify it's you")));
  screen.append(el("div", { className: "pin-screen" }, el("header", { className: "screen-header" }, title, subtitle), messageBox, ...extra, pad.root), actions(...buttons));
  // Seed 001: when biometrics are offered the prompt comes first; the PIN stays a way out.
  if (bioOffered && !(prev && prev.type === "BIOMETRICS_REMOVED")) biometricPrompt("Verify it's you");
}

/**
 * The OS's biometric prompt, simulated: the tester decides whether the sensor recognises the
 * user. Cancel closes it (the PIN is still there where offered).
 */
function biometricPrompt(reason) {
  const existing = document.getElementById("bio-prompt");
  if (existing) existing.remove();
  const close = () => prompt.remove();
  const answer = (result) => {
    close();
    if (send({ action: "inputSecondFactor", biometrics: result })) setBusy(true);
  };
  const prompt = el(
    "div",
    { id: "bio-prompt", className: "bio-prompt", role: "dialog", "aria-modal": "true", "aria-labelledby": "bio-prompt-title" },
    el(
      "div",
      { className: "bio-sheet" },
      el("div", { className: "bio-icon", "aria-hidden": "true", text: "◉" }),
      el("h2", { id: "bio-prompt-title", className: "bio-title", text: reason }),
      el("p", { className: "hint small", text: "Simulated sensor: choose what it reads." }),
      el(
        "div",
        { className: "bio-actions" },
        button("bio-match", "Match", "btn-primary", () => answer("match")),
        button("bio-no-match", "No match", "btn-secondary", () => answer("noMatch")),
        button("bio-cancel", "Cancel", "btn-ghost", close),
      ),
    ),
  );
  screen.append(prompt);
  teardowns.push(close);
}

/** ADD_BIOMETRICS: the user presents their biometric so that the phone can make its key. */
function renderSetBiometrics(flow) {
  screen.append(
    el(
      "div",
      { className: "screen-center", id: "set-biometrics" },
      el("div", { className: "bio-icon bio-icon-large", "aria-hidden": "true", text: "◉" }),
      el("h1", { className: "screen-title", text: "Add your fingerprint" }),
      el("p", { className: "screen-subtitle", text: `Biometrics will verify you at ${serverName(flow)} instead of the PIN.` }),
    ),
    actions(button("cancel", "Cancel", "btn-secondary", cancelFlow), button("use-biometrics", "Touch the sensor", "btn-primary", () => biometricPrompt("Add your fingerprint"))),
  );
}

/**
 * Seed 003's PIN change: the old PIN, then the new one twice, sent together. The server
 * answers a wrong old PIN with PIN_FAIL and asks again; a PIN that breaks the policy or equals
 * the old one is refused before anything is checked.
 */
function renderNevisPinChange(flow) {
  const length = pinLength();
  const sfa = flow.secondFactorAccount || null;
  const prev = flow.previousInteractionResult;
  const title = el("h1", { id: "pin-title", className: "screen-title", text: "Enter your current PIN" });
  const subtitle = el("p", { className: "screen-subtitle", text: `Then choose a new one (${length} digits).` });
  const [messageBox, setMessage] = pinMessageBox();
  if (prev && prev.type === "PIN_FAIL") setMessage("The current PIN was wrong.", "error");
  const extra = [];
  if (sfa && Number(sfa.failedAttempts) > 0) {
    extra.push(el("p", { id: "pin-attempts", className: "pin-attempts", text: `Failed attempt ${sfa.failedAttempts} of ${sfa.maxAttempts ?? "?"}` }));
  }
  const penalty = sfa && Number(sfa.penalisedFor) > 0 ? el("p", { id: "pin-penalty", className: "pin-attempts", role: "timer" }) : null;
  if (penalty) extra.push(penalty);

  const old = [];
  const fresh = [];
  const wipe = () => {
    for (const list of [old, fresh]) {
      list.fill(0);
      list.length = 0;
    }
  };
  let phase = "old";
  const to = (next, text) => {
    phase = next;
    pad.setPhase(next);
    title.textContent = text;
  };
  const pad = createPinPad({
    length,
    message: setMessage,
    onSubmit(digits) {
      if (phase === "old" || phase === "new") {
        (phase === "old" ? old : fresh).push(...digits);
        pad.wipe();
        setMessage("", "");
        if (phase === "old") to("new", "Choose a new PIN");
        else to("repeat", "Repeat the new PIN");
        return;
      }
      const same = fresh.length === digits.length && fresh.every((d, i) => d === digits[i]);
      pad.wipe();
      if (!same) {
        fresh.fill(0);
        fresh.length = 0;
        to("new", "Choose a new PIN");
        setMessage("The new PINs don't match. Choose again.", "error");
        return;
      }
      const message = { action: "inputSecondFactor", oldPin: old.join(""), pin: fresh.join("") };
      wipe();
      pad.lock();
      if (send(message)) {
        setMessage("Changing…", "hint");
        setBusy(true);
      } else {
        pad.unlock();
        to("old", "Enter your current PIN");
      }
    },
  });
  pad.setPhase(phase);
  teardowns.push(wipe);
  if (penalty) countDownPenalty(penalty, Number(sfa.penalisedFor), pad);
  screen.append(
    el("div", { className: "pin-screen" }, el("header", { className: "screen-header" }, title, subtitle), messageBox, ...extra, pad.root),
    actions(button("cancel", "Cancel", "btn-secondary", cancelFlow)),
  );
}

/**
 * The server refuses a PIN during a penalty without counting it, so the pad stays locked until
 * the wait is over. Counted from the seconds the update gave, not from penalisedUntil: the
 * server's clock need not be this browser's.
 */
function countDownPenalty(node, seconds, pad) {
  const deadline = Date.now() + seconds * 1000;
  pad.lock();
  let timer = null;
  const tick = () => {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    node.dataset.secondsLeft = String(Math.max(left, 0));
    if (left > 0) {
      node.textContent = `Wait ${left} s before the next try.`;
      return;
    }
    clearInterval(timer);
    node.textContent = "You can try again now.";
    pad.unlock();
  };
  timer = setInterval(tick, 250);
  teardowns.push(() => clearInterval(timer));
  tick();
}

// --- Final states ---

function goHome() {
  if (state.flow) writeDismissed(state.flow.id);
  hideToast();
  render(true);
}

function loginAccountLabel(flow) {
  const chosen = state.chosenAccounts.get(flow.id);
  if (chosen) return accountLabel(chosen);
  // after a reload: the phone's account on that server, when there is only one
  const url = flow.session && flow.session.server && flow.session.server.url;
  const accounts = ((state.phone && state.phone.accounts) || []).filter((a) => a.server && url && a.server.url === url);
  return accounts.length === 1 ? accountLabel(accounts[0]) : "";
}

const DONE_TITLES = {
  CHANGE_PIN: "PIN changed",
  ADD_BIOMETRICS: "Biometrics added",
  REMOVE_BIOMETRICS: "Biometrics removed",
  HEADLESS_UPGRADE: "Account key upgraded",
};

function renderDone(flow) {
  let title;
  if (flow.type === "ENROL") {
    const name = (flow.session && flow.session.enrolInfo && flow.session.enrolInfo.displayName) || "";
    title = name ? `Account created for ${name}` : "Account created";
  } else if (flow.type === "LOGIN") {
    const who = loginAccountLabel(flow);
    title = who ? `Logged in as ${who}` : `Logged in to ${serverName(flow)}`;
  } else if (flow.type === "SIGN_TRANSACTION") {
    title = "Transaction signed";
  } else if (DONE_TITLES[flow.type]) {
    title = DONE_TITLES[flow.type];
  } else {
    title = "Done";
  }
  screen.append(
    el(
      "div",
      { id: "flow-done", className: "screen-center result result-ok" },
      el("div", { className: "result-icon", "aria-hidden": "true", text: "✓" }),
      el("h1", { className: "screen-title", id: "done-title", text: title }),
      el("p", { className: "screen-subtitle", text: serverName(flow) }),
    ),
    actions(button("home", "Home", "btn-primary", goHome)),
  );
}

const ERROR_TITLES = {
  USER_CANCELED: "Cancelled",
  PIN_BLOCKED: "PIN blocked",
  PIN_LOCKED: "PIN locked",
  SESSION_EXPIRED: "Request expired",
};

function renderError(flow) {
  const e = flow.error || {};
  const code = String(e.code || "ERROR");
  const box = el(
    "div",
    { id: "flow-error", className: "screen-center result result-error", dataset: { code } },
    el("div", { className: "result-icon", "aria-hidden": "true", text: code === "USER_CANCELED" ? "×" : "!" }),
    el("h1", { className: "screen-title", text: ERROR_TITLES[code] || "Something went wrong" }),
    el("p", { className: "error-line" }, el("code", { id: "flow-error-code", className: "error-code", text: code }), e.sdkCode != null ? el("span", { id: "flow-error-sdk", className: "pill", text: `SDK ${e.sdkCode}` }) : null),
    el("p", { id: "flow-error-message", className: "screen-subtitle", text: e.message || "" }),
  );
  screen.append(box, actions(button("home", "Home", "btn-primary", goHome)));
}

function renderUnknown(flow, text) {
  screen.append(
    el("div", { className: "screen-center" }, el("h1", { className: "screen-title", text: flow.type || "Flow" }), el("p", { className: "screen-subtitle", text })),
    flow.state === "WAIT_FOR_INPUT" ? actions(button("cancel", "Cancel", "btn-secondary", cancelFlow)) : actions(button("home", "Home", "btn-primary", goHome)),
  );
}

function renderNotFound(err) {
  banner.hidden = true;
  runTeardowns();
  clear(screen);
  setScreenAttrs({ state: "NOT_FOUND" });
  screen.append(
    el(
      "div",
      { className: "screen-center result result-error" },
      el("div", { className: "result-icon", "aria-hidden": "true", text: "?" }),
      el("h1", { className: "screen-title", text: "No such phone" }),
      el("p", { className: "error-line" }, el("code", { className: "error-code", text: err.code || "PHONE_NOT_FOUND" })),
      el("p", { className: "screen-subtitle", text: err.message || "" }),
      el("a", { className: "btn btn-primary", href: "/", text: "All phones" }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Status-bar clock

function tick() {
  const now = new Date();
  const text = String(now.getHours()).padStart(2, "0") + ":" + String(now.getMinutes()).padStart(2, "0");
  if (clockEl.textContent !== text) clockEl.textContent = text;
  refreshTimes();
}
tick();
setInterval(tick, 1000);

// ---------------------------------------------------------------------------------------------
// Start

window.addEventListener("pagehide", runTeardowns);

if (!phoneId) {
  state.notFound = true;
  renderNotFound({ code: "PHONE_NOT_FOUND", message: "This page has no phone id." });
} else {
  socket = new ReconnectingSocket("/api/phones/" + encodeURIComponent(phoneId) + "/stream", {
    onMessage: onSocketMessage,
    onOpen: () => {
      state.firstMessage = true;
      showFaults([]); // the server sends the faults in force, if any, after the snapshot
    },
    onClose: onSocketClose,
    onStatus: setConnection,
  });
}
