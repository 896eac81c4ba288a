// Shared helpers for the AuthPhone pages: JSON API calls, WebSocket URLs, a
// reconnecting socket and a tiny DOM builder. Server data is only ever put into
// the page as text (textContent / attributes), never parsed as markup.

/** An error answered by the API (`{"error": {"code", "message"}}`) or a transport failure. */
export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
  }
}

/**
 * Calls the JSON API. POST bodies are sent as JSON with `Content-Type: application/json`.
 * Resolves to the parsed JSON answer (or null for an empty body); rejects with an ApiError.
 */
export async function api(path, { method = "GET", body, file } = {}) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (file !== undefined) {
    // a picture is sent as it is, with its own type
    init.headers["Content-Type"] = file.type && file.type.startsWith("image/") ? file.type : "image/png";
    init.body = file;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError("NETWORK_ERROR", "Could not reach the server (" + (e && e.message ? e.message : e) + ")");
  }
  const text = await response.text();
  let data = null;
  if (text.length > 0) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined; // not JSON
    }
  }
  if (!response.ok) {
    if (data && typeof data === "object" && data.error && typeof data.error === "object") {
      throw new ApiError(
        String(data.error.code ?? "HTTP_" + response.status),
        String(data.error.message ?? response.statusText),
        response.status,
      );
    }
    throw new ApiError("HTTP_" + response.status, response.statusText || "Request failed", response.status);
  }
  if (data === undefined) {
    throw new ApiError("BAD_RESPONSE", "The server answered with something that is not JSON", response.status);
  }
  return data;
}

export const getJSON = (path) => api(path);
export const postJSON = (path, body) => api(path, { method: "POST", body: body ?? {} });
export const putJSON = (path, body) => api(path, { method: "PUT", body: body ?? {} });
export const postFile = (path, file) => api(path, { method: "POST", file });

/** Absolute ws:// or wss:// URL for a path on this site. */
export function wsURL(path) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return proto + "//" + location.host + path;
}

/**
 * A WebSocket that reconnects with exponential backoff (0.5 s doubling to 10 s, with jitter).
 * Callbacks: onMessage(object), onOpen(), onClose(info), onStatus("connecting" | "open" | "closed").
 * Frames that are not JSON objects are ignored.
 */
export class ReconnectingSocket {
  constructor(path, { onMessage, onOpen, onClose, onStatus, minDelay = 500, maxDelay = 10000 } = {}) {
    this.url = wsURL(path);
    this.onMessage = onMessage || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onClose = onClose || (() => {});
    this.onStatus = onStatus || (() => {});
    this.minDelay = minDelay;
    this.maxDelay = maxDelay;
    this.delay = minDelay;
    this.ws = null;
    this.timer = null;
    this.stopped = false;
    this.attempt = 0;
    this.connect();
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  connect() {
    if (this.stopped) return;
    this.timer = null;
    this.attempt += 1;
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.addEventListener("open", () => {
      opened = true;
      this.delay = this.minDelay;
      this.onStatus("open");
      this.onOpen();
    });
    ws.addEventListener("message", (event) => {
      if (typeof event.data !== "string") return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && typeof msg === "object") this.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.onStatus("closed");
      this.onClose({ code: event.code, reason: event.reason, opened, attempt: this.attempt });
      this.scheduleReconnect();
    });
    // "error" is always followed by "close"; nothing to do here.
  }

  scheduleReconnect() {
    if (this.stopped || this.timer !== null) return;
    const jitter = 0.8 + Math.random() * 0.4;
    const wait = Math.round(this.delay * jitter);
    this.delay = Math.min(this.delay * 2, this.maxDelay);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  /** Sends an object as JSON. Returns false when the socket is not open. */
  send(obj) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** Reconnects at once (the server subscribes the new connection afresh). */
  restart() {
    if (this.ws) this.ws.close(); // the close event reconnects
  }

  /** Stops for good (no reconnect). */
  stop() {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
    this.onStatus("closed");
  }
}

/**
 * Builds an element. attrs: {className, text, dataset: {...}, on: {event: fn}, any other attribute}.
 * Children may be nodes, strings (added as text) or null/false (skipped).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

/** Removes all children of a node. */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** First 8 characters of an id, for display. */
export function shortId(id) {
  const s = String(id ?? "");
  return s.length > 8 ? s.slice(0, 8) : s;
}

function toDate(value) {
  if (value === null || value === undefined || value === "") return null;
  const d = typeof value === "number" ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "14:03:22" for a date-time (ISO text, epoch seconds/millis or Date). */
export function formatTime(value) {
  const d = value instanceof Date ? value : toDate(value);
  if (!d) return value ? String(value) : "";
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

/** "2024-05-01 14:03" style date and time. */
export function formatDateTime(value) {
  const d = value instanceof Date ? value : toDate(value);
  if (!d) return value ? String(value) : "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export { toDate };

/** Shows an error (ApiError or {code, message}) in a `.error` container, or hides it when err is null. */
export function showError(container, err) {
  if (!container) return;
  clear(container);
  if (!err) {
    container.hidden = true;
    return;
  }
  const code = err.code || "ERROR";
  const message = err.message || String(err);
  // the server's words; its code one click away
  container.append(el("span", { className: "error-message", text: message }), " ", codeDetails(code));
  container.dataset.code = code;
  container.hidden = false;
}

/** The codes behind a plain-words message, in a "Details" toggle for QA: each part a code (shown as code) or a node. */
export function codeDetails(...parts) {
  const shown = parts.filter((p) => p !== null && p !== undefined && p !== "");
  if (!shown.length) return null;
  return el("details", { className: "code-details" }, el("summary", { text: "Details" }), ...shown.map((p) => (p instanceof Node ? p : el("code", { className: "error-code", text: String(p) }))));
}

/** Copies text to the clipboard; falls back to a hidden textarea where the Clipboard API is missing. */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall through
    }
  }
  const ta = el("textarea", { className: "offscreen", readonly: true });
  ta.value = text;
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Makes a button copy `value()` and say whether it could. */
export function copyOnClick(button, value) {
  button.addEventListener("click", async () => flashLabel(button, (await copyText(value())) ? "Copied" : "Copy failed"));
  return button;
}

/** Briefly changes a button's label (e.g. "Copied"). */
export function flashLabel(button, label, ms = 1200) {
  const original = button.dataset.label || button.textContent;
  button.dataset.label = original;
  button.textContent = label;
  clearTimeout(button._flashTimer);
  button._flashTimer = setTimeout(() => {
    button.textContent = original;
  }, ms);
}

/** Only http(s) and authphone: links are used as hrefs. */
export function safeHref(url) {
  const s = String(url ?? "");
  if (/^(https?:\/\/|authphone:\/\/)/i.test(s)) return s;
  if (s.startsWith("/") && !s.startsWith("//")) return s;
  return null;
}
