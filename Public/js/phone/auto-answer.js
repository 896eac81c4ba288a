// The phone's auto-answer rules (docs/scripting.md#auto-answer-rules) in the device controls: the
// list in the order they apply, a small form to add one, and removal. The phone checks a rule's
// PIN itself; the server never shows it back, and the form forgets it once sent.
import { api, getJSON, postJSON, el, clear, shortId } from "../api.js";
import { confirmButton, withControl } from "./controls.js";

/** "confirm · server bank.example · user alice · PIN · 2 left": what a rule covers and does. */
function describe(rule) {
  const parts = [rule.answer];
  if (rule.server) parts.push(`server ${rule.server}`);
  if (rule.user) parts.push(`user ${rule.user}`);
  if (rule.text) parts.push(`text “${rule.text}”`);
  if (rule.account) parts.push(`account ${shortId(rule.account)}`);
  if (rule.secondFactor) parts.push(rule.secondFactor === "PIN" ? "PIN" : "biometric");
  if (rule.remaining != null) parts.push(`${rule.remaining} left`);
  if (rule.expiresAt) parts.push(`until ${new Date(rule.expiresAt).toLocaleTimeString()}`);
  return parts.join(" · ");
}

/**
 * `view`: the app's context (phonePath, toast). Built once; returns {node, sync}: the section, and
 * sync(), which reads the rules again (a rule with a count goes once used up).
 */
export function createAutoAnswer(view) {
  const path = view.phonePath("/auto-answer");
  const list = el("ul", { id: "auto-answer-rules", className: "account-list" });
  const empty = el("p", { id: "no-auto-answer-rules", className: "empty", text: "No rules: every request waits for you." });
  const errorBox = el("div", { id: "auto-answer-error", className: "error", role: "alert", hidden: true });
  const input = (id, label, attrs = {}) => el("input", { id, type: "text", placeholder: label, "aria-label": label, ...attrs });
  const answer = el("select", { id: "auto-answer-answer", "aria-label": "Answer" }, el("option", { value: "confirm", text: "Confirm" }), el("option", { value: "decline", text: "Decline" }));
  const factor = el(
    "select",
    { id: "auto-answer-factor", "aria-label": "Second factor" },
    el("option", { value: "", text: "No second factor" }),
    el("option", { value: "pin", text: "PIN" }),
    el("option", { value: "biometric", text: "Biometric" }),
  );
  const pin = input("auto-answer-pin", "PIN", { type: "password", inputmode: "numeric", autocomplete: "off", hidden: true });
  factor.addEventListener("change", () => (pin.hidden = factor.value !== "pin"));
  const server = input("auto-answer-server", "Server", { title: "An origin (https://host[:port]) or a host name" });
  const user = input("auto-answer-user", "User");
  const text = input("auto-answer-text", "Text contains");
  const count = input("auto-answer-count", "Count", { type: "number", min: "1", step: "1" });
  const add = el("button", { id: "auto-answer-add", type: "button", className: "btn btn-small", text: "Add rule" });

  function show(rules) {
    clear(list);
    for (const rule of rules) {
      const remove = confirmButton(view, "auto-answer-delete-" + rule.id, "Delete", "Tap again: delete", errorBox, () =>
        api(path + "/" + encodeURIComponent(rule.id), { method: "DELETE" }).then(sync),
      );
      list.append(
        el(
          "li",
          { className: "account auto-answer-rule", dataset: { ruleId: String(rule.id) } },
          el("span", { className: "account-main" }, el("code", { className: "muted", text: shortId(rule.id), title: String(rule.id) }), el("span", { text: " " + describe(rule) })),
          el("span", { className: "row-actions" }, remove),
        ),
      );
    }
    list.hidden = rules.length === 0;
    empty.hidden = rules.length > 0;
  }

  async function sync() {
    show((await getJSON(path)).rules || []);
  }

  add.addEventListener("click", () =>
    withControl(view, add, errorBox, async () => {
      const body = { answer: answer.value };
      for (const [field, node] of [["server", server], ["user", user], ["text", text]]) if (node.value.trim()) body[field] = node.value.trim();
      if (count.value) body.count = Number(count.value);
      if (answer.value === "confirm" && factor.value === "pin") body.pin = pin.value;
      if (answer.value === "confirm" && factor.value === "biometric") body.biometric = true;
      try {
        await postJSON(path, body);
      } finally {
        pin.value = "";
      }
      await sync();
    }),
  );

  const node = el(
    "section",
    { id: "auto-answer-section", className: "home-section" },
    el("h2", { className: "section-title", text: "Auto-answer rules" }),
    list,
    empty,
    el("div", { className: "auto-answer-form" }, answer, factor, pin, server, user, text, count, add),
    el("p", { className: "hint", text: "The first rule that covers a request answers it as you would; a request no rule covers waits for you. Rules live in memory only." }),
    errorBox,
  );
  return { node, sync };
}
