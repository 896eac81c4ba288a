// The phone's screen. All logic lives in the server: this page renders the current flow it
// receives over the WebSocket and sends the user's input back.
//
// This module owns the page's state and wires the parts under phone/ together: each part
// receives what it calls (the state, send, render, the toast…) and imports only downward.
import { api } from "./api.js";
import { FlowDiagram } from "./flow-diagram.js";
import { connect } from "./phone/connection.js";
import { createDeviceControls } from "./phone/device-controls.js";
import { showFaults } from "./phone/fault-strip.js";
import { createFlowLog } from "./phone/flow-log.js";
import { createInbox } from "./phone/inbox.js";
import { createMessages } from "./phone/messages.js";
import { createOperationBanner } from "./phone/operation-banner.js";
import { createOTPAccounts } from "./phone/otp-accounts.js";
import { acceptPictures } from "./phone/picture-drop.js";
import { createPrivacyIDEARequest } from "./phone/privacyidea-request.js";
import { createPrivacyIDEATokens } from "./phone/privacyidea-tokens.js";
import { createPrivacyIDEAContainers } from "./phone/privacyidea-containers.js";
import { createScreen } from "./phone/screen.js";
import { showsSession } from "./phone/session-start.js";
import { readDismissedFlow, readSeenPushes } from "./phone/storage.js";
import { startClock } from "./phone/time.js";
import { createToast } from "./phone/toast.js";
import { mountRecordingControl } from "./recording-control.js";
import { createTimelineView } from "./timeline-view.js";

const byId = (id) => document.getElementById(id);
const phoneId = document.body.dataset.phoneId || "";

/** What the page knows. Only this module replaces it; the parts read it and update their fields. */
const state = {
  phone: null, // PhoneDetail
  flow: null, // current Flow (or null)
  privacyIDEA: null, // the PrivacyIDEARequest on screen, or null (docs/privacyidea.md)
  lastOnScreen: "flow", // which of the two changed last ("flow", "privacyIDEA"): the screen shows it when both are final
  session: null, // the last scanned session before its flow (STARTING, the OTP: docs/behaviour.md#offline-otp)
  dismissedSessionId: null, // the session whose OTP the user closed
  dismissedFlowId: readDismissedFlow(phoneId),
  firstMessage: true, // next "phone" message is the snapshot sent on connect
  renderedKey: null, // what the screen currently shows (to skip identical re-renders)
  log: [], // [{receivedAt, source, flow | session | operation | otpAccount | privacyIDEA}], oldest first
  chosenAccounts: new Map(), // flow id -> account picked on the LOGIN confirm screen
  notFound: false,
  // Pushes waiting in the phone's inbox: id -> {message: InboxMessage, seq}. seq counts arrivals
  // on this page, so messages received in the same second keep their order.
  inbox: new Map(),
  inboxSeq: 0,
  // ids the server no longer holds (opened, cleared): a late duplicate of one is ignored
  gonePushes: new Set(),
  // ids the banner no longer announces (dismissed, or seen when another one was opened)
  seenPushes: readSeenPushes(phoneId),
  bannerId: null, // message on the banner (to replay the slide-in only for a new one)
  openingPush: null, // id of the message being opened
  openPastedPushAtOnce: false, // the out-of-band box's choice: a pasted push opens at once instead of waiting in the inbox
};

let pageLoad = true; // until the first snapshot (not one after a reconnect) is shown

const toast = createToast(byId("toast"));
const diagram = new FlowDiagram(byId("flow-diagram"));
// the phone's exchanges with its backends, and the pushes that reach it
createTimelineView(byId("phone-timeline")).show({
  url: "/api/phones/" + encodeURIComponent(phoneId) + "/timeline",
  matches: (hop) => hop.phoneId === phoneId || hop.to === "phone",
  name: `phone-${phoneId}`,
});
const log = createFlowLog(
  { body: document.querySelector("#flow-log tbody"), empty: byId("flow-log-empty"), downloadButton: byId("download-log"), clearButton: byId("clear-log") },
  { state, phoneId },
);

/** The context the parts receive. */
const app = {
  state,
  phoneId,
  phoneName: document.body.dataset.phoneName || "",
  phonePath: (suffix) => "/api/phones/" + encodeURIComponent(phoneId) + suffix,
  send,
  toast,
  showStartedFlow,
  inboxSection: () => inbox.section(),
  otpSection: () => otpAccounts.section(),
  privacyIDEASection: () => privacyIDEATokens.section(),
  containersSection: () => privacyIDEAContainers.section(),
  messagesSection: () => messages.section(),
  receivePush: (message, openAtOnce) => inbox.receive(message, openAtOnce),
};

/** A new push's banner slides over the home screen, not over an old result. */
function leaveResults() {
  screen.dismissResults(state.flow, state.privacyIDEA);
  screen.render();
}

const bannerParts = {
  banner: byId("push-banner"),
  openButton: byId("push-banner-open"),
  app: byId("push-banner-app"),
  title: byId("push-banner-title"),
  body: byId("push-banner-body"),
  time: byId("push-banner-time"),
  count: byId("push-count"),
  dismissButton: byId("push-banner-dismiss"),
};
const inbox = createInbox(bannerParts, { ...app, onNewPush: leaveResults });
const otpAccounts = createOTPAccounts(app);
const privacyIDEATokens = createPrivacyIDEATokens(app);
const privacyIDEAContainers = createPrivacyIDEAContainers(app);
const messages = createMessages(app, byId("text-banner"));
app.privacyIDEA = createPrivacyIDEARequest({
  ...app,
  onChange: (source, request) => {
    if (request) log.privacyIDEA(source, request);
    screen.render();
  },
});
const screen = createScreen(byId("screen"), app);
const showOperation = createOperationBanner(byId("operation-banner"), app);
acceptPictures(document.querySelector(".phone"), app);
const faultStrip = { strip: byId("fault-strip"), none: byId("no-faults") };
// the controls beside the frame; a control that changed the phone draws both afresh
const renderControls = createDeviceControls(
  { camera: byId("device-camera"), sections: byId("device-sections") },
  {
    ...app,
    render: (force) => {
      renderControls(force);
      screen.render(force);
    },
  },
);

function send(action) {
  if (!connection || !connection.send(action)) {
    toast.show("NOT_CONNECTED", "The phone is not connected to the server. Retrying…");
    return false;
  }
  return true;
}

function applyFlow(flow) {
  // a flow that moved on is the latest on screen (a snapshot of the same one is not)
  if (flow && JSON.stringify(flow) !== JSON.stringify(state.flow)) state.lastOnScreen = "flow";
  state.flow = flow;
  diagram.update(flow);
}

/**
 * Shows the flow or privacyIDEA request a request started. The socket normally delivers the same;
 * the answer is only used if the socket has not shown it yet (never step back from a later update of it).
 */
function showStartedFlow(source, answer) {
  const flow = answer && answer.flow;
  if (flow && typeof flow === "object" && (!state.flow || state.flow.id !== flow.id)) {
    log.flow(source, flow);
    applyFlow(flow);
    screen.render();
  }
  const request = answer && answer.privacyIDEA;
  if (request && typeof request === "object") app.privacyIDEA.started(source, request);
}

function onMessage(msg) {
  switch (msg.type) {
    case "phone": {
      if (!msg.phone || typeof msg.phone !== "object") return;
      // pushes are followed by token: a refreshed token needs a fresh subscription
      const tokenRefreshed = state.phone && state.phone.fcmToken !== msg.phone.fcmToken;
      state.phone = msg.phone;
      if (tokenRefreshed && connection) connection.restart();
      if (state.firstMessage) {
        // The snapshot sent on connect carries the current flow: show it (also after a reload, if under way).
        state.firstMessage = false;
        // The waiting pushes follow this message; drop those that went away while disconnected.
        inbox.sync();
        otpAccounts.sync();
        privacyIDEATokens.sync();
        privacyIDEAContainers.sync();
        messages.sync();
        const request = msg.phone.privacyIDEA && typeof msg.phone.privacyIDEA === "object" ? msg.phone.privacyIDEA : null;
        // a reload brings back a flow under way, but not the result of a finished one
        if (pageLoad) screen.dismissResults(msg.phone.flow, request);
        pageLoad = false;
        app.privacyIDEA.snapshot(request);
        if (msg.phone.flow) log.flow("snapshot", msg.phone.flow);
        applyFlow(msg.phone.flow || null);
        state.session = msg.phone.session || null;
        if (showsSession(state.session, state.dismissedSessionId)) diagram.session(state.session);
        // an input sent just before a reconnect may have been lost: re-enable the screen
        screen.render(screen.isBusy());
        renderControls();
        break;
      }
      screen.render();
      renderControls();
      break;
    }
    case "flowUpdate": {
      if (!msg.flow || typeof msg.flow !== "object") return;
      log.flow("flowUpdate", msg.flow);
      applyFlow(msg.flow);
      screen.render();
      break;
    }
    case "session": {
      if (!msg.session || typeof msg.session !== "object") return;
      log.session(msg.session);
      state.session = msg.session;
      diagram.session(msg.session);
      screen.render();
      break;
    }
    case "notification": {
      if (!msg.notification || typeof msg.notification !== "object") return;
      inbox.add(msg.notification);
      break;
    }
    case "notificationOpened": {
      if (typeof msg.notificationOpened?.id !== "string") return;
      inbox.opened(msg.notificationOpened.id);
      break;
    }
    case "otpAccount": {
      if (!msg.otpAccount || typeof msg.otpAccount !== "object") return;
      log.otpAccount(msg.otpAccount);
      otpAccounts.receive(msg.otpAccount);
      break;
    }
    case "privacyIDEA": {
      if (!msg.privacyIDEA || typeof msg.privacyIDEA !== "object") return;
      app.privacyIDEA.receive(msg.privacyIDEA);
      break;
    }
    case "pushTokens": {
      if (!Array.isArray(msg.pushTokens)) return;
      privacyIDEATokens.show(msg.pushTokens);
      break;
    }
    case "containers": {
      if (!Array.isArray(msg.containers)) return;
      privacyIDEAContainers.show(msg.containers);
      break;
    }
    case "textMessage": {
      if (!msg.textMessage || typeof msg.textMessage !== "object") return;
      messages.receive(msg.textMessage);
      break;
    }
    case "operation": {
      if (!msg.operation || typeof msg.operation !== "object") return;
      log.operation(msg.operation);
      showOperation(msg.operation);
      break;
    }
    case "faults": {
      showFaults(faultStrip, Array.isArray(msg.faults) ? msg.faults : []);
      break;
    }
    case "error": {
      const e = msg.error || {};
      toast.show(String(e.code || "ERROR"), String(e.message || "The server refused the input."));
      // Nothing changed on the server: show the current screen afresh (resets a PIN pad, re-enables buttons).
      screen.render(true);
      break;
    }
    default:
      break;
  }
}

function showNotFound(err) {
  state.notFound = true;
  bannerParts.banner.hidden = true;
  byId("device-controls").hidden = true;
  screen.showNotFound(err);
}

// the walk recorded from beside the phone; framed on the stage, the stage's own bar records it
if (phoneId && !document.body.dataset.framed) {
  byId("recording-section").hidden = false;
  const recordings = byId("phone-recordings");
  mountRecordingControl(byId("phone-recording"), {
    api,
    list: byId("phone-recording-list"),
    onStopped: () => {
      recordings.open = true;
    },
  });
}

startClock(byId("clock"));
window.addEventListener("pagehide", screen.tearDown);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && connection && connection.isOpen) inbox.sync();
});

// a page without a phone id has nothing to connect to
const connection = phoneId
  ? connect(phoneId, byId("conn-indicator"), state, {
      onMessage,
      onOpen: () => {
        state.firstMessage = true;
        showFaults(faultStrip, []); // the server sends the faults in force, if any, after the snapshot
      },
      onNotFound: showNotFound,
    })
  : null;
if (!phoneId) showNotFound({ code: "PHONE_NOT_FOUND", message: "This page has no phone id." });
