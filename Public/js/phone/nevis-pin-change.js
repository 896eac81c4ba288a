// The Nevis PIN change (docs/behaviour.md#pin-change-both-ways): the old PIN, then the new one twice, sent together. The server answers
// a wrong old PIN with PIN_FAIL and asks again; a PIN that breaks the policy or equals the old
// one is refused before anything is checked. A new PIN that breaks the policy is refused as soon
// as it is first typed, by the server's own rule.
import { el } from "../api.js";
import { attemptsNote, checkFirstEntry, countDownPenalty, createPinPad, penaltyNote, pinLength, pinMessageBox } from "./pin-pad.js";
import { actions, button } from "./screen-parts.js";

/** A CHANGE_PIN flow asks for old and new PIN on one screen when no VERIFY came before (the server's rule). */
export function isNevisPinChange(flow) {
  const prev = flow.previousInteractionResult;
  return flow.type === "CHANGE_PIN" && !(prev && prev.interactionType === "VERIFY_SECOND_FACTOR");
}

export function renderNevisPinChange(flow, view) {
  const length = pinLength(view.state.phone);
  const sfa = flow.secondFactorAccount || null;
  const prev = flow.previousInteractionResult;
  const title = el("h1", { id: "pin-title", className: "screen-title", text: "Enter your current PIN" });
  const subtitle = el("p", { className: "screen-subtitle", text: `Then choose a new one (${length} digits).` });
  const [messageBox, setMessage] = pinMessageBox();
  if (prev && prev.type === "PIN_FAIL") setMessage("The current PIN was wrong.", "error");
  const penalty = penaltyNote(sfa);
  const extra = [attemptsNote(sfa), penalty].filter(Boolean);

  const old = [];
  const fresh = [];
  const wipe = () => {
    for (const list of [old, fresh]) {
      list.fill(0);
      list.length = 0;
    }
  };
  let phase = "old";
  let shown = true; // until the screen changes
  const to = (next, text) => {
    phase = next;
    pad.setPhase(next);
    title.textContent = text;
  };
  const pad = createPinPad(
    {
      length,
      message: setMessage,
      onSubmit(digits) {
        if (phase === "old") {
          old.push(...digits);
          pad.wipe();
          setMessage("", "");
          to("new", "Choose a new PIN");
          return;
        }
        if (phase === "new") {
          fresh.push(...digits);
          pad.wipe();
          checkFirstEntry(view, pad, setMessage, fresh, () => shown).then((accepted) => {
            if (accepted) to("repeat", "Repeat the new PIN");
            else if (shown) {
              fresh.fill(0);
              fresh.length = 0;
            }
          });
          return;
        }
        const same = fresh.length === digits.length && fresh.every((d, i) => d === digits[i]);
        pad.wipe();
        if (!same) {
          fresh.fill(0);
          fresh.length = 0;
          to("new", "Choose a new PIN");
          setMessage("The new PINs don't match. Choose again.", "error");
          return;
        }
        const message = { action: "inputSecondFactor", oldPin: old.join(""), pin: fresh.join("") };
        wipe();
        pad.lock();
        if (view.send(message)) {
          setMessage("Changing…", "hint");
          view.setBusy(true);
        } else {
          pad.unlock();
          to("old", "Enter your current PIN");
        }
      },
    },
    view.onTeardown,
  );
  pad.setPhase(phase);
  view.onTeardown(() => {
    shown = false;
    wipe();
  });
  if (penalty) countDownPenalty(penalty, Number(sfa.penalisedFor), pad, view.onTeardown);
  view.screen.append(
    el("div", { className: "pin-screen" }, el("header", { className: "screen-header" }, title, subtitle), messageBox, ...extra, pad.root),
    actions(button("cancel", "Cancel", "btn-secondary", () => view.cancelFlow(pad))),
  );
}
