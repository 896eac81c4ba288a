// The inbox on the home screen: the waiting pushes, newest first, each with Open; and Clear all.
import { el } from "../api.js";
import { pushText } from "./push-banner.js";
import { timeNode } from "./time.js";

/** `list`: the waiting pushes, newest first. `actions`: opening (the id being opened, or null), open(id), clearAll(). */
export function inboxContent(list, { opening, open, clearAll }) {
  const clearButton = el("button", {
    id: "inbox-clear",
    type: "button",
    className: "btn btn-small btn-ghost",
    text: "Clear all",
    hidden: list.length === 0,
    on: { click: clearAll },
  });
  const head = el("div", { className: "section-head" }, el("h2", { className: "section-title", text: list.length ? `Inbox (${list.length})` : "Inbox" }), clearButton);
  const ul = el("ul", { id: "inbox", className: "inbox-list", hidden: list.length === 0 });
  for (const item of list) {
    const message = item.message;
    const { app, title, body } = pushText(message);
    ul.appendChild(
      el(
        "li",
        { className: "inbox-item", dataset: { messageId: message.id } },
        el(
          "div",
          { className: "inbox-main" },
          el("div", { className: "inbox-top" }, el("span", { className: "inbox-title", text: title }), timeNode("inbox-time", message.receivedAt)),
          el("p", { className: "inbox-app hint small", text: app }),
          body ? el("p", { className: "inbox-body", text: body }) : null,
        ),
        el("button", {
          type: "button",
          className: "btn btn-small btn-primary inbox-open",
          text: "Open",
          disabled: opening !== null,
          "aria-label": `Open in ${app}: ${title}`,
          on: { click: () => open(message.id) },
        }),
      ),
    );
  }
  return [head, ul];
}
