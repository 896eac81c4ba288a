// The home screen: what the authenticator app shows when no flow is under way: the phone's
// accounts, its privacyIDEA tokens, its one-time codes, its inbox, the waiting requests, PIN and
// biometrics, and its local data. The device itself (camera, sensor, device information,
// settings) is driven from the controls beside the frame (device-controls.js).
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
      el("header", { className: "home-header" }, el("p", { className: "home-kicker", text: "AuthPhone" }), el("h1", { className: "home-title", id: "home-phone-name", text: phone.name || view.phoneName })),
      el(
        "section",
        { className: "home-section" },
        el("h2", { className: "section-title", text: "Accounts" }),
        accounts.length ? accountList : el("p", { className: "empty", id: "no-accounts", text: "No accounts yet. Scan a QR code or open a link to enrol." }),
      ),
      view.privacyIDEASection(),
      view.otpSection(),
      view.inboxSection(),
      pendingSection(view),
      accounts.length ? securitySection(phone, view) : null,
      accounts.length ? localDataSection(phone, view) : null,
    ),
  );
}
