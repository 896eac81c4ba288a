// The toast over the phone's screen: an error in plain words where the code has them (the code
// itself in data-code and the tooltip, for QA), and its message; gone after 7 s or a tap.
import { el, clear } from "../api.js";
import { plainWords } from "../plain-words.js";

export function createToast(box) {
  let timer = null;

  function hide() {
    clearTimeout(timer);
    box.hidden = true;
  }

  function show(code, message) {
    clear(box);
    const shownCode = code || "ERROR";
    box.append(el("strong", { className: "error-code", text: plainWords(shownCode, shownCode) }), el("span", { text: message || "" }));
    box.dataset.code = shownCode;
    box.title = shownCode;
    box.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(hide, 7000);
  }

  box.addEventListener("click", hide);
  return { show, hide };
}
