// The phone's Messages app (docs/sms.md): the texts the SMS gateway delivered to the phone's
// number, newest first, on the home screen; the newest raises a banner over the screen for a
// few seconds. A text that carries a one-time code offers "Copy code", as phones do with
// security codes. The list follows the screen's textMessage messages.
import { api, getJSON, el, clear } from "../api.js";
import { confirmButton } from "./controls.js";
import { timeNode } from "./time.js";

/** How many texts the home screen lists; the server keeps more (`GET …/messages`). */
const SHOWN = 20;
/** How long a text's banner stays, in milliseconds. */
const BANNER_TIME = 8000;

/** Puts `text` on the clipboard; a page the browser denies the clipboard API copies through a selection. */
async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const field = el("textarea", { className: "offscreen", readOnly: true });
    field.value = text;
    document.body.append(field);
    field.select();
    document.execCommand("copy");
    field.remove();
  }
}

/** A "Copy code" button that says "Copied" once it did. */
function copyButton(id, code) {
  const button = el("button", { id, type: "button", className: "btn btn-small copy-code", dataset: { code }, text: "Copy code" });
  button.addEventListener("click", async (event) => {
    event.stopPropagation();
    await copy(code);
    button.textContent = "Copied";
    button.dataset.copied = "true";
  });
  return button;
}

/**
 * `context`: phonePath(suffix), toast. `banner`: the text banner's node over the screen. Built
 * once, so the list outlives the home screen's redraws. Returns {sync, receive, section}: sync()
 * reads the texts again (after a connect), receive(text) applies a textMessage message, section()
 * is the home screen's part.
 */
export function createMessages({ phonePath, toast }, banner) {
  let texts = [];
  let bannerTimer = null;
  const view = { toast };
  const list = el("ul", { id: "messages", className: "account-list message-list" });
  const errorBox = el("div", { id: "messages-error", className: "error", role: "alert", hidden: true });
  const clearButton = confirmButton(view, "messages-clear", "Clear", "Tap again: clear", errorBox, () =>
    api(phonePath("/messages"), { method: "DELETE" }).then(() => {
      texts = [];
      render();
    }),
  );
  // shown once it holds a text
  const node = el(
    "section",
    { id: "messages-section", className: "home-section", hidden: true },
    el("div", { className: "section-head" }, el("h2", { className: "section-title", text: "Messages" }), clearButton),
    list,
    errorBox,
  );

  function row(text) {
    return el(
      "li",
      { className: "account message", dataset: { messageId: String(text.id), code: text.code || "" } },
      el(
        "span",
        { className: "account-main" },
        el("span", { className: "account-name message-from", text: text.from }, " ", timeNode("message-time", text.receivedAt)),
        el("span", { className: "message-text", text: text.text }),
      ),
      text.code ? el("span", { className: "row-actions" }, copyButton("copy-code-" + text.id, text.code)) : null,
    );
  }

  function render() {
    clear(list);
    for (const text of texts.slice(0, SHOWN)) list.append(row(text));
    node.hidden = texts.length === 0;
  }

  function showBanner(text) {
    clear(banner);
    banner.append(
      el(
        "div",
        { className: "push-banner-main" },
        el("span", { className: "push-app" }, el("span", { className: "push-app-icon messages-icon", "aria-hidden": "true" }), el("span", { className: "push-app-name", text: "Messages" }), timeNode("push-time", text.receivedAt)),
        el("span", { id: "text-banner-from", className: "push-title", text: text.from }),
        el("span", { id: "text-banner-text", className: "push-body", text: text.text }),
      ),
      text.code ? copyButton("text-banner-copy", text.code) : null,
    );
    banner.dataset.messageId = text.id;
    banner.hidden = false;
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => {
      banner.hidden = true;
    }, BANNER_TIME);
  }

  banner.addEventListener("click", () => {
    clearTimeout(bannerTimer);
    banner.hidden = true;
  });

  async function sync() {
    try {
      const answer = await getJSON(phonePath("/messages"));
      texts = Array.isArray(answer && answer.messages) ? answer.messages : [];
      render();
    } catch {
      // the next connect reads the list again
    }
  }

  /** A textMessage message: a new text, at the top, with its banner. */
  function receive(text) {
    if (!text || typeof text.id !== "string" || texts.some((t) => t.id === text.id)) return;
    texts = [text, ...texts];
    render();
    showBanner(text);
  }

  render();
  return { sync, receive, section: () => node };
}
