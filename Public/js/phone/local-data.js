// LocalData (docs/behaviour.md#local-data) on the home screen: the accounts and authenticators this phone holds,
// and their removal (here only, or here and at the server).
import { api, getJSON, postJSON, el } from "../api.js";
import { confirmButton } from "./controls.js";
import { accountLabel } from "./screen-parts.js";

export function localDataSection(phone, view) {
  const accounts = Array.isArray(phone.accounts) ? phone.accounts : [];
  const bio = phone.biometrics || {};
  const errorBox = el("div", { id: "local-data-error", className: "error", role: "alert", hidden: true });
  const refresh = async (request) => {
    await request();
    view.state.phone = await getJSON(view.phonePath(""));
    view.render(true);
  };
  const rows = accounts.map((a) =>
    el(
      "li",
      { className: "local-account", dataset: { accountId: String(a.id) } },
      el("span", { className: "account-main" }, el("span", { className: "account-name", text: accountLabel(a) }), el("span", { className: "account-server", text: (a.server && a.server.name) || "" })),
      el(
        "span",
        { className: "row-actions" },
        confirmButton(view, "delete-local-" + a.id, "Delete locally", "Tap again: keys off this phone", errorBox, () =>
          refresh(() => postJSON(view.phonePath("/local-data/delete-authenticator"), { userId: a.userId, aaid: "PIN" })),
        ),
        confirmButton(view, "remove-account-" + a.id, "Remove", "Tap again: remove here and at the server", errorBox, () =>
          refresh(() => api(view.phonePath("/accounts/" + encodeURIComponent(a.id)), { method: "DELETE" })),
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
