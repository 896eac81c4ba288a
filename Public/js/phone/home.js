// The home screen: what the phone shows when no flow is under way: its number, each app on it
// with what it holds (AuthPhone's accounts; privacyIDEA's tokens and one-time codes; the texts), one line saying how to
// add one when none holds anything, the inbox when it has notifications, the waiting requests,
// PIN and biometrics, and the local data. An app with nothing is not shown. The device itself
// (camera, sensor, device information, settings) is driven from the controls beside the frame
// (device-controls.js).
import { el } from "../api.js";
import { localDataSection } from "./local-data.js";
import { pendingSection } from "./pending.js";
import { securitySection } from "./security.js";

/** Renders the home screen. */
export function renderHome(view) {
  const phone = view.state.phone || {};
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

  view.screen.append(
    el(
      "div",
      { className: "home" },
      el("header", { className: "home-header" }, el("p", { className: "home-kicker", text: "AuthPhone" }), el("h1", { className: "home-title", id: "home-phone-name", text: phone.name || view.phoneName }), el("p", { className: "home-number", id: "home-phone-number", text: phone.number || "" })),
      el(
        "div",
        { id: "home-apps", className: "home-apps" },
        el("section", { id: "authphone-app", className: "home-section", hidden: !accounts.length }, el("h2", { className: "section-title", text: "AuthPhone" }), accountList),
        view.containersSection(),
        view.privacyIDEASection(),
        view.otpSection(),
        view.messagesSection(),
        el("p", {
          id: "home-empty",
          className: "empty",
          text: "No accounts yet. Scan a QR code or open a link: an AuthPhone enrolment, privacyIDEA's token code or an otpauth:// key.",
        }),
      ),
      view.inboxSection(),
      pendingSection(view),
      accounts.length ? securitySection(phone, view) : null,
      accounts.length ? localDataSection(phone, view) : null,
    ),
  );
}
