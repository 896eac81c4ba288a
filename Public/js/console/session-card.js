// The console's card of the session shown: its details, what came of its push, its QR code, deep
// link and account (with copy buttons; folded once the session has ended, when nothing is left to
// scan); the parts it is given (the outcome, the OTP form, the phone to send it to) each show
// their own section of it.
import { el, clear, codeDetails, shortId, formatDateTime, copyOnClick, flashLabel, safeHref } from "../api.js";
import { plainWords } from "../plain-words.js";
import { DELIVERY_LABELS, STATUS_RANK, dispatchCode, dispatchInfo, loggedinText, setBadge } from "./session-labels.js";

function metaRow(dl, label, value) {
  if (value === null || value === undefined || value === "") return;
  dl.append(el("dt", { text: label }), el("dd", {}, value instanceof Node ? value : String(value)));
}

/** A failure's code in words, the code itself behind Details. */
function failureWords(code) {
  return el("span", { className: "failure-words" }, plainWords(code, "See the details"), " ", codeDetails(code));
}

/**
 * `parts`: [{show(session)}]; `outcome`: {refused(text)}, the part that shows a start the
 * backend turned down. Returns {render(session or null), refuse(request, error)}.
 */
export function createSessionCard(parts, outcome) {
  const byId = (id) => document.getElementById(id);
  const card = byId("session-card");
  const cardId = byId("session-id");
  const cardLink = byId("session-link");
  const cardStatus = byId("session-status");
  const cardMeta = byId("session-meta");
  const cardDispatch = byId("session-dispatch");
  const qrImg = byId("session-qr");
  const qrText = byId("session-qr-text");
  const deepLink = byId("session-deep-link");
  const copyQrButton = byId("copy-qr-text");
  const copyLinkButton = byId("copy-deep-link");
  const svgLink = byId("download-qr-svg");
  const pngButton = byId("download-qr-png");
  const codes = byId("session-codes");
  const account = byId("session-card-account");

  copyOnClick(copyQrButton, () => qrText.value);
  copyOnClick(copyLinkButton, () => deepLink.textContent || "");

  // the QR code as a PNG: the SVG drawn on a canvas, pixels kept sharp
  pngButton.addEventListener("click", () => {
    const size = 4 * (qrImg.naturalWidth || 220);
    const canvas = el("canvas", { width: size, height: size });
    const context = canvas.getContext("2d");
    context.imageSmoothingEnabled = false;
    context.fillStyle = "#fff";
    context.fillRect(0, 0, size, size);
    context.drawImage(qrImg, 0, 0, size, size);
    canvas.toBlob((blob) => {
      if (!blob) return flashLabel(pngButton, "Failed");
      const url = URL.createObjectURL(blob);
      el("a", { href: url, download: `session-${card.dataset.sessionId}-qr.png` }).click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    }, "image/png");
  });

  function renderDispatch(s) {
    clear(cardDispatch);
    if (s.delivery !== "push") {
      cardDispatch.hidden = true;
      delete cardDispatch.dataset.dispatch;
      return;
    }
    const raw = s.dispatch === null || s.dispatch === undefined ? "" : String(s.dispatch);
    const info = raw ? dispatchInfo(raw, s.pushRetryAt, (STATUS_RANK[s.status] ?? 0) >= STATUS_RANK.redeemed) : { kind: "warn", text: "Not sent." };
    cardDispatch.dataset.dispatch = raw;
    cardDispatch.dataset.kind = info.kind;
    cardDispatch.append(
      el("span", { className: "dispatch-label", text: "Push" }),
      el("span", { className: "dispatch-text", text: info.text }),
      raw ? codeDetails(el("code", { className: "dispatch-code", text: dispatchCode(raw), title: raw })) : null,
    );
    cardDispatch.hidden = false;
  }

  /** A session the backend would not start (a user with no account): said at once, as its outcome. */
  function refuse(request, error) {
    card.hidden = false;
    card.dataset.refused = "true";
    card.dataset.sessionId = "";
    card.dataset.type = String(request.type || "");
    cardId.textContent = "not started";
    cardId.removeAttribute("title");
    cardLink.removeAttribute("href");
    setBadge(cardStatus, "refused");
    clear(cardMeta);
    metaRow(cardMeta, "Type", request.type);
    metaRow(cardMeta, "User", request.userId);
    metaRow(cardMeta, "Refusal", failureWords(String(error.code || "ERROR")));
    outcome.refused(`No account: ${error.message || error.code}`);
  }

  function render(s) {
    if (!s) {
      card.hidden = true;
      return;
    }
    card.hidden = false;
    delete card.dataset.refused;
    card.dataset.sessionId = String(s.id);
    card.dataset.type = String(s.type || "");
    cardId.textContent = shortId(s.id);
    cardId.title = String(s.id);
    cardLink.href = "/console/sessions/" + encodeURIComponent(s.id);
    setBadge(cardStatus, s.status);

    clear(cardMeta);
    metaRow(cardMeta, "Type", s.type);
    metaRow(cardMeta, "User", s.userId);
    metaRow(cardMeta, "Display name", s.displayName);
    metaRow(cardMeta, "Delivery", s.delivery ? DELIVERY_LABELS[s.delivery] || s.delivery : null);
    metaRow(cardMeta, "Created", formatDateTime(s.createdAt));
    metaRow(cardMeta, "Expires", formatDateTime(s.expiresAt));
    metaRow(cardMeta, "Logged in", s.loggedin === undefined ? null : loggedinText(s.loggedin));
    metaRow(cardMeta, "OTP login", s.otplogin ? "yes" : null);
    metaRow(cardMeta, "Transaction", s.transaction ? el("span", { id: "session-transaction-text", className: "pre-text", text: s.transaction }) : null);
    metaRow(cardMeta, "Signed", s.transaction ? (s.transactionSigned ? "yes, by the account key" : "not yet") : null);
    metaRow(cardMeta, "User input", s.userInput ? el("span", { id: "session-user-input", className: "pre-text", text: s.userInput }) : null);
    metaRow(cardMeta, "Failure", s.failure ? failureWords(typeof s.failure === "string" ? s.failure : JSON.stringify(s.failure)) : null);
    renderDispatch(s);
    for (const part of parts) part.show(s);
    foldCodes(s);

    const src = safeHref(s.qrImageUrl);
    if (src && qrImg.getAttribute("src") !== src) qrImg.src = src;
    if (!src) qrImg.removeAttribute("src");
    if (src) svgLink.href = src;
    else svgLink.removeAttribute("href");
    svgLink.download = `session-${s.id}-qr.svg`;
    if (qrText.value !== (s.qrText || "")) qrText.value = s.qrText || "";

    const link = s.deepLink || "";
    deepLink.textContent = link;
    const href = safeHref(link);
    if (href) deepLink.href = href;
    else deepLink.removeAttribute("href");
  }

  /** Folded as the session ends, open for a new one; in between the user's choice stands. */
  function foldCodes(s) {
    const ended = String((STATUS_RANK[s.status] ?? 0) >= 3);
    if (codes.dataset.sessionId !== String(s.id) || codes.dataset.ended !== ended) codes.open = ended !== "true";
    codes.dataset.sessionId = String(s.id);
    codes.dataset.ended = ended;
    account.textContent = s.accountId ? String(s.accountId) : "";
    account.parentElement.hidden = !s.accountId;
  }

  return { render, refuse };
}
