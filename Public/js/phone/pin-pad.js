// The PIN pad and what goes with it: the message line above it, and the countdown of a wrong-PIN
// penalty that keeps it locked.
//
// Digits are kept in a plain array, overwritten with 0 and emptied after use or on cancel. A PIN
// is only ever sent over the socket (and a new one, at its first entry, in the body of the
// policy's check); it never goes into the URL, storage, the flow log or the console.
import { el, postJSON } from "../api.js";

/** The phone's PIN length (the setting, while no PIN is set), 6 when unknown. */
export function pinLength(phone) {
  const n = phone && Number(phone.pinLength);
  return Number.isInteger(n) && n > 0 && n <= 32 ? n : 6;
}

/** How long a key shows that it was pressed. */
const PRESSED_MS = 150;

/**
 * A PIN pad: keys 0-9, delete, OK; a row of dots shows how many digits were entered. A key takes
 * the class "pressed" for a moment at each press, whether clicked, tapped or typed, which only the
 * stage shows (pin-pad.css: the phone's own page gives no sign of the key). onSubmit(digits) is called with the digit array when OK is pressed with a full PIN;
 * the caller must wipe it. The pad listens to the keyboard until onTeardown's hooks run.
 */
export function createPinPad({ length, onSubmit, message }, onTeardown) {
  const digits = [];
  let locked = false;
  const dots = el("div", { className: "pin-dots", id: "pin-dots", "aria-label": `0 of ${length} digits entered`, role: "status" });
  for (let i = 0; i < length; i++) dots.appendChild(el("span", { className: "pin-dot" }));

  function updateDots() {
    const list = dots.children;
    for (let i = 0; i < list.length; i++) list[i].classList.toggle("filled", i < digits.length);
    dots.dataset.count = String(digits.length);
    dots.setAttribute("aria-label", `${digits.length} of ${length} digits entered`);
  }

  function wipe() {
    digits.fill(0);
    digits.length = 0;
    updateDots();
  }

  function press(d) {
    if (locked || digits.length >= length) return;
    digits.push(d);
    updateDots();
  }

  function del() {
    if (locked || digits.length === 0) return;
    digits[digits.length - 1] = 0;
    digits.pop();
    updateDots();
  }

  function ok() {
    if (locked) return;
    if (digits.length < length) {
      message(`Enter ${length} digits.`, "hint");
      return;
    }
    onSubmit(digits);
  }

  const grid = el("div", { className: "pin-keys", role: "group", "aria-label": "PIN pad" });
  // The keys by what the keyboard types for them: "0"-"9", Backspace, Enter.
  const keys = new Map();
  const pressTimers = new Map();
  function showPressed(button) {
    if (locked) return;
    clearTimeout(pressTimers.get(button));
    button.classList.add("pressed");
    pressTimers.set(button, setTimeout(() => button.classList.remove("pressed"), PRESSED_MS));
  }
  // A pointer click drops the focus again (keyboard activation, where detail is 0, keeps it).
  const blurAfterPointer = (event) => {
    if (event.detail > 0) event.currentTarget.blur();
  };
  function addKey(keyName, attributes, action) {
    const button = el("button", {
      type: "button",
      ...attributes,
      on: {
        click: (event) => {
          showPressed(button);
          blurAfterPointer(event);
          action();
        },
      },
    });
    keys.set(keyName, button);
    grid.appendChild(button);
  }
  const digitKey = (d) => addKey(String(d), { className: "pin-key", "data-digit": String(d), "aria-label": String(d), text: String(d) }, () => press(d));
  for (const d of [1, 2, 3, 4, 5, 6, 7, 8, 9]) digitKey(d);
  addKey("Backspace", { id: "pin-delete", className: "pin-key pin-fn", "aria-label": "Delete", text: "⌫" }, del);
  digitKey(0);
  addKey("Enter", { id: "pin-ok", className: "pin-key pin-fn", "aria-label": "OK", text: "OK" }, ok);

  // Typing digits on a keyboard works too (unless focus is in a text field).
  // Enter on a button presses that button, but on a digit key only while digits are missing: a new
  // screen puts the focus on 1, and Enter after the typed PIN is OK.
  const enterMeansOK = (target) => !(target && target.tagName === "BUTTON") || (Boolean(target.dataset.digit) && digits.length >= length);
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const t = event.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    if (/^[0-9]$/.test(event.key)) {
      event.preventDefault();
      showPressed(keys.get(event.key));
      press(Number(event.key));
    } else if (event.key === "Backspace") {
      event.preventDefault();
      showPressed(keys.get("Backspace"));
      del();
    } else if (event.key === "Enter" && enterMeansOK(t)) {
      event.preventDefault();
      showPressed(keys.get("Enter"));
      ok();
    }
  }
  document.addEventListener("keydown", onKey);
  onTeardown(() => {
    document.removeEventListener("keydown", onKey);
    wipe();
  });

  const root = el("div", { id: "pin-pad", className: "pin-pad" }, dots, grid);
  return {
    root,
    wipe,
    lock() {
      locked = true;
      root.dataset.locked = "true";
    },
    unlock() {
      locked = false;
      delete root.dataset.locked;
    },
    setPhase(phase) {
      root.dataset.phase = phase;
    },
  };
}

/** The line above the pad, and set(text, kind) to change it (kind: "error", "hint" or ""). */
/**
 * A new PIN as first typed, checked against the server's policy while the pad is locked; a
 * refusal goes to the message line. Resolves to whether to ask for it again: false when refused
 * or when the screen went meanwhile (`shown()`).
 */
export async function checkFirstEntry(view, pad, setMessage, digits, shown) {
  pad.lock();
  setMessage("Checking…", "hint");
  const refusal = await policyRefusal(view, digits);
  if (!shown()) return false;
  pad.unlock();
  setMessage(refusal || "", refusal ? "error" : "");
  return !refusal;
}

/**
 * The server's answer (POST …/pin-check, the rule living there once): the refusal, or null (also
 * when the check could not be made: the final input is checked all the same).
 */
async function policyRefusal(view, digits) {
  try {
    await postJSON(view.phonePath("/pin-check"), { pin: digits.join("") });
    return null;
  } catch (err) {
    if (err.status !== 400) return null;
    // "the PIN is too easy to guess: …" -> "This PIN is too easy to guess: …. Choose another."
    return String(err.message || "This PIN is not allowed").replace(/^the PIN/, "This PIN").replace(/^./, (c) => c.toUpperCase()) + ". Choose another.";
  }
}

export function pinMessageBox() {
  const box = el("p", { id: "pin-message", className: "pin-message", role: "status" });
  const set = (text, kind) => {
    box.textContent = text || "";
    box.dataset.kind = kind || "";
  };
  return [box, set];
}

/** "Failed attempt 2 of 5", when the second factor account has failures. */
export function attemptsNote(sfa) {
  if (!(sfa && Number(sfa.failedAttempts) > 0)) return null;
  const max = sfa.maxAttempts != null ? sfa.maxAttempts : "?";
  return el("p", { id: "pin-attempts", className: "pin-attempts", text: `Failed attempt ${sfa.failedAttempts} of ${max}` });
}

/** The line that counts a wrong-PIN penalty down, when one is in force. */
export function penaltyNote(sfa) {
  return sfa && Number(sfa.penalisedFor) > 0 ? el("p", { id: "pin-penalty", className: "pin-attempts", role: "timer" }) : null;
}

/**
 * The server refuses a PIN during a penalty without counting it, so the pad stays locked until
 * the wait is over. Counted from the seconds the update gave, not from penalisedUntil: the
 * server's clock need not be this browser's.
 */
export function countDownPenalty(node, seconds, pad, onTeardown) {
  const deadline = Date.now() + seconds * 1000;
  pad.lock();
  let timer = null;
  const tick = () => {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    node.dataset.secondsLeft = String(Math.max(left, 0));
    if (left > 0) {
      node.textContent = `Wait ${left} s before the next try.`;
      return;
    }
    clearInterval(timer);
    node.textContent = "You can try again now.";
    pad.unlock();
  };
  timer = setInterval(tick, 250);
  onTeardown(() => clearInterval(timer));
  tick();
}
