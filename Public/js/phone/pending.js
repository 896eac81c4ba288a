// The pull fallback on the home screen: ask the backends what is waiting for this phone's accounts.
import { getJSON, postJSON, el, clear } from "../api.js";
import { startFrom, withControl } from "./controls.js";
import { timeNode } from "./time.js";

export function pendingSection(view) {
  const list = el("ul", { id: "pending", className: "inbox-list", hidden: true });
  const note = el("p", { id: "pending-empty", className: "empty", hidden: true, text: "Nothing is waiting." });
  const errorBox = el("div", { id: "pending-error", className: "error", role: "alert", hidden: true });
  const check = el("button", { id: "pending-check", type: "button", className: "btn btn-small", text: "Check for requests" });
  check.addEventListener("click", () =>
    withControl(view, check, errorBox, async () => {
      const answer = await getJSON(view.phonePath("/pending"));
      const operations = Array.isArray(answer && answer.operations) ? answer.operations : [];
      clear(list);
      for (const op of operations) {
        const open = el("button", { type: "button", className: "btn btn-small btn-primary pending-open", text: "Open" });
        open.addEventListener("click", () => startFrom(view, open, errorBox, "pending", () => postJSON(view.phonePath("/oob"), { qr: String(op.payload || "") })));
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
