// Pieces the flow screens are built of: the header, the action buttons at the bottom, the
// server asking, and how accounts are named.
import { el, shortId, formatTime, toDate } from "../api.js";

export function button(id, label, className, onClick) {
  return el("button", { id, type: "button", className: "btn " + className, text: label, on: { click: onClick } });
}

/** The spinner while the server works, what it does in words, and `extra` under them. */
export function processingScreen(id, text, ...extra) {
  return el(
    "div",
    { className: "screen-center", id },
    el("div", { className: "spinner", "aria-hidden": "true" }),
    el("p", { className: "processing-text", text }),
    ...extra,
  );
}

/** The buttons at the bottom of the screen (they stay while the content scrolls). */
export function actions(...buttons) {
  return el("div", { className: "screen-actions" }, ...buttons);
}

export function screenHeader(title, subtitle) {
  return el("header", { className: "screen-header" }, el("h1", { className: "screen-title", text: title }), subtitle ? el("p", { className: "screen-subtitle", text: subtitle }) : null);
}

/** The server a flow works with: its session's, or for the phone's own flows (which carry no
 * session, seed 001) the server of the phone's first account, which they act through. */
export function serverName(flow, phone) {
  const server = flow && flow.session && flow.session.server;
  const account = phone && Array.isArray(phone.accounts) ? phone.accounts[0] : null;
  return (server && server.name) || (account && account.server && account.server.name) || "the server";
}

export function serverBlock(flow) {
  return serverCard((flow.session && flow.session.server) || {});
}

/** A server by its name and URL, as the confirm screens show the one asking. */
export function serverCard(server) {
  return el(
    "div",
    { className: "server-block" },
    el("span", { className: "server-icon", "aria-hidden": "true" }),
    el("span", { className: "server-main" }, el("span", { id: "server-name", className: "server-name", text: server.name || "Unknown server" }), el("span", { className: "server-url", text: server.url || "" })),
  );
}

export function expiryNote(flow) {
  const d = toDate(flow.session && flow.session.expiresAt);
  if (!d) return null;
  return el("p", { className: "hint small", text: "Request expires at " + formatTime(d) });
}

export function accountLabel(account) {
  if (!account) return "";
  const name = account.displayName || "";
  const user = account.userId || "";
  if (name && user && name !== user) return `${name} (${user})`;
  return name || user || shortId(account.id);
}

/** The phone's accounts on the flow's server. */
export function accountsOnServer(phone, flow) {
  const url = flow.session && flow.session.server && flow.session.server.url;
  return ((phone && phone.accounts) || []).filter((a) => a.server && url && a.server.url === url);
}

/** Who the flow logs in as: the account picked on the confirm screen, else the only one there is. */
export function loginAccountLabel(flow, state) {
  const chosen = state.chosenAccounts.get(flow.id);
  if (chosen) return accountLabel(chosen);
  // after a reload: the phone's account on that server, when there is only one
  const accounts = accountsOnServer(state.phone, flow);
  return accounts.length === 1 ? accountLabel(accounts[0]) : "";
}
