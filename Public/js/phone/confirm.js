// The confirm screens: create an account (ENROL, with the server's visual hash), and log in or
// start signing (LOGIN, SIGN_TRANSACTION: the account to use, a message to the server).
import { el } from "../api.js";
import { visualHashView } from "../visual-hash.js";
import { accountLabel, accountsOnServer, actions, button, expiryNote, screenHeader, serverBlock, serverName } from "./screen-parts.js";

const LOGO = /^data:image\/(?:png|jpeg|gif);base64,[A-Za-z0-9+/=]+$/;

/** The server's announceInfo for this session (seeds 001, 002): its logo and strings by key. */
function announcement(session) {
  const logo = typeof session.announceLogo === "string" && LOGO.test(session.announceLogo) ? el("img", { id: "announce-logo", className: "announce-logo", src: session.announceLogo, alt: "Logo" }) : null;
  const entries = session.announceInfo && typeof session.announceInfo === "object" ? Object.entries(session.announceInfo) : [];
  if (!entries.length) return [logo];
  const dl = el("dl", { id: "announce-info", className: "kv" });
  for (const [k, v] of entries) dl.append(el("dt", { text: k }), el("dd", { text: typeof v === "string" ? v : JSON.stringify(v) }));
  return [logo, dl];
}

export function renderConfirmEnrol(flow, ci, view) {
  const { state } = view;
  const session = flow.session || {};
  const enrol = session.enrolInfo || {};
  const existing = (ci.confirmSessionInfo && Array.isArray(ci.confirmSessionInfo.accounts) && ci.confirmSessionInfo.accounts) || [];
  const nsAccounts = Array.isArray(enrol.nsAccounts) ? enrol.nsAccounts : [];

  const body = el(
    "div",
    { className: "screen-body" },
    screenHeader("Create account?", null),
    serverBlock(flow),
    ...announcement(session),
    ...(state.phone && state.phone.settings && state.phone.settings.showVisualHash === false
      ? []
      : [visualHashView(session.server?.visualHash, "visual-hash"), el("p", { className: "hint small", text: "Check that the colours and fingerprint match those shown by the website." })]),
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
  view.screen.append(
    body,
    actions(
      button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow()),
      button("confirm", "Create account", "btn-primary", () => {
        if (view.send({ action: "confirmSession" })) view.setBusy(true);
      }),
    ),
  );
}

export function renderConfirmLogin(flow, ci, view) {
  const { state } = view;
  const session = flow.session || {};
  let accounts = (ci.confirmSessionInfo && Array.isArray(ci.confirmSessionInfo.accounts) && ci.confirmSessionInfo.accounts) || [];
  // no list from the flow: offer this phone's accounts on that server
  if (!ci.confirmSessionInfo) accounts = accountsOnServer(state.phone, flow);

  const signing = flow.type === "SIGN_TRANSACTION";
  const title = signing ? `Sign a transaction for ${serverName(flow)}?` : `Log in to ${serverName(flow)}?`;
  const body = el("div", { className: "screen-body" }, screenHeader(title, signing ? "You will see the transaction next." : null), serverBlock(flow), ...announcement(session));
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
      view.toast.show("NO_ACCOUNT", "Choose an account first.");
      return;
    }
    const account = accounts.find((a) => String(a.id) === checked.value);
    const message = { action: "confirmSession", account: checked.value };
    if (userInput.value !== "") message.userInput = userInput.value;
    if (view.send(message)) {
      if (account) state.chosenAccounts.set(flow.id, account);
      view.setBusy(true);
    }
  });
  view.screen.append(body, actions(button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow()), confirm));
  if (!accounts.length) confirm.disabled = true;
}
