// The notification banner over the phone's screen: the newest waiting push that the user has not
// seen yet, with a count when more wait; tapping it opens the push, × stops announcing them.
import { formatTime, toDate } from "../api.js";
import { relativeTime } from "./time.js";
import { alertPush } from "./push-alert.js";

/** The app a push is for (the server says which claims it), its title and body, as it shows here and in the inbox. */
export function pushText(message) {
  const said = (text) => typeof text === "string" && text.trim() !== "";
  const n = (message.message && message.message.notification) || {};
  // privacyIDEA's challenges are data messages: its app shows their title and question, as here
  const data = (message.app === "privacyIDEA" && message.message && message.message.data) || {};
  const title = [n.title, data.title].find(said) || "New message";
  const body = [n.body, data.question].find(said) || (said(n.title) || said(data.title) ? "" : "A data message for this phone.");
  return { app: message.app || "AuthPhone", title, body };
}

const reduceMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };

/**
 * `parts`: the banner's elements (banner, openButton, app, title, body, time, count, dismissButton). `actions`:
 * open(id), dismiss(). Returns render(list), list = the waiting pushes, newest first.
 */
export function createPushBanner(parts, state, { open, dismiss }) {
  const { banner, openButton, app: appNode, title: titleNode, body: bodyNode, time, count, dismissButton } = parts;

  banner.addEventListener("click", (event) => {
    if (event.target.closest("#push-banner-dismiss")) return;
    const id = banner.dataset.messageId;
    if (id) open(id);
  });
  dismissButton.addEventListener("click", dismiss);

  return function render(list) {
    const newest = list[0];
    if (state.notFound || !newest || state.seenPushes.has(newest.message.id)) {
      banner.hidden = true;
      delete banner.dataset.messageId;
      state.bannerId = null;
      return;
    }
    const message = newest.message;
    const { app, title, body } = pushText(message);
    appNode.textContent = app;
    titleNode.textContent = title;
    bodyNode.textContent = body;
    bodyNode.hidden = !body;
    time.textContent = relativeTime(message.receivedAt);
    time.dataset.receivedAt = String(message.receivedAt ?? "");
    const d = toDate(message.receivedAt);
    time.title = d ? formatTime(d) : "";
    count.textContent = String(list.length);
    count.dataset.count = String(list.length);
    count.hidden = list.length < 2;
    banner.dataset.messageId = message.id;
    if (list.length > 1) banner.dataset.stacked = "true";
    else delete banner.dataset.stacked;
    const busy = state.openingPush === message.id;
    banner.dataset.busy = busy ? "true" : "false";
    openButton.disabled = busy;
    const more = list.length > 1 ? `, ${list.length} notifications waiting` : "";
    openButton.setAttribute("aria-label", `${app} notification: ${title}. ${body}${more}. Open`);
    const wasHidden = banner.hidden;
    banner.hidden = false;
    if (state.bannerId !== message.id) {
      state.bannerId = message.id;
      alertPush();
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
  };
}
