// SIGN_TRANSACTION's confirm screen: the transaction text, shown exactly as it will be signed.
import { el } from "../api.js";
import { actions, button, expiryNote, loginAccountLabel, screenHeader, serverBlock } from "./screen-parts.js";

export function renderConfirmTransaction(flow, view) {
  const text = flow.transaction ?? (flow.session && flow.session.transaction) ?? "";
  const who = loginAccountLabel(flow, view.state);
  const body = el(
    "div",
    { className: "screen-body" },
    screenHeader("Confirm the transaction", who ? `as ${who}` : null),
    serverBlock(flow),
    // shown exactly as it will be signed: whitespace and line breaks kept
    el("pre", { id: "transaction-text", className: "transaction-text", text }),
    el("p", { className: "hint small", text: "Your account key signs exactly this text; the server refuses any other." }),
    expiryNote(flow) || "",
  );
  view.screen.append(
    body,
    actions(
      button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow()),
      button("confirm", "Sign", "btn-primary", () => {
        if (view.send({ action: "confirmTransaction" })) view.setBusy(true);
      }),
    ),
  );
}
