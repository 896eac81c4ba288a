// The toast over the phone's screen: an error code and its message, gone after 7 s or a tap.
import { el, clear } from "../api.js";

export function createToast(box) {
  let timer = null;

  function hide() {
    clearTimeout(timer);
    box.hidden = true;
  }

  function show(code, message) {
    clear(box);
    box.append(el("strong", { className: "error-code", text: code || "ERROR" }), el("span", { text: message || "" }));
    box.dataset.code = code || "ERROR";
    box.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(hide, 7000);
  }

  box.addEventListener("click", hide);
  return { show, hide };
}
