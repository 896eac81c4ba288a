// The push log card: every message the push service received, from anyone, newest first, with
// what became of it; filtered by phone and outcome, cleared on demand, kept current while the
// page is looked at. Self-contained: a page mounts it with what it needs.
import { el, clear, formatDateTime, shortId, showError } from "../api.js";

/** What each outcome means, for the reader. */
const OUTCOME_TEXT = {
  banner: "delivered to the banner",
  inbox: "waiting in the inbox",
  opened: "opened",
  validated: "checked only (validate_only)",
  dropped: "dropped by a fault",
  delayed: "delayed by a fault",
};

/**
 * Mounts the log into `container`. `deps`:
 *  - api(path, {method}): the JSON API;
 *  - loadPhones(): resolves to the phones ({id, name, fcmToken}), to name targets and link them;
 *  - sessionFor(payloadToken): the session id whose payload the message carried, or null;
 *  - showSession(id): shows that session (the link's action);
 *  - every: milliseconds between refreshes while the page is visible (default 1500).
 * Returns {refresh()}.
 */
export function mountPushLog(container, { api, loadPhones, sessionFor = () => null, showSession = () => {}, every = 1500 }) {
  const phoneFilter = el("select", { dataset: { log: "phone" } }, el("option", { value: "", text: "All phones and targets" }));
  const outcomeFilter = el("select", { dataset: { log: "outcome" } }, el("option", { value: "", text: "Every outcome" }));
  const clearButton = el("button", { type: "button", className: "btn btn-small", dataset: { log: "clear" }, text: "Clear the log" });
  const errorBox = el("div", { className: "error", role: "alert", hidden: true });
  const bound = el("span", { className: "hint" });
  const body = el("tbody");
  const empty = el("p", { className: "empty", text: "No messages yet." });
  container.append(
    el("h2", { text: "Push log" }),
    el("div", { className: "inline-form" }, el("label", { className: "field" }, el("span", { className: "field-label", text: "Phone" }), phoneFilter), el("label", { className: "field" }, el("span", { className: "field-label", text: "Outcome" }), outcomeFilter), el("div", { className: "form-actions" }, clearButton)),
    bound,
    errorBox,
    el("div", { className: "table-wrap" }, el("table", { className: "table push-log" }, el("thead", {}, el("tr", {}, ...["Received", "Sender", "Target", "Outcome", "Session", "Message"].map((h) => el("th", { text: h })))), body)),
    empty,
  );

  let phones = [];
  // a sender names a phone by its token, or (the Admin SDKs now) by its Firebase installation id
  const phoneOf = (target) => phones.find((p) => p.fcmToken === target || p.fid === target);

  function targetCell(entry) {
    const phone = phoneOf(entry.target);
    if (phone) return el("td", {}, el("a", { href: `/phones/${encodeURIComponent(phone.id)}`, target: "_blank", className: "log-phone", dataset: { phoneId: String(phone.id) }, text: phone.name || shortId(phone.id) }));
    return el("td", {}, entry.target ? el("code", { text: shortId(entry.target) + "…", title: entry.target }) : el("span", { className: "muted", text: "none" }));
  }

  function sessionCell(entry) {
    const id = entry.payloadToken ? sessionFor(entry.payloadToken) : null;
    if (!id) return el("td", { className: "muted", text: entry.payloadToken ? "a session payload" : "—" });
    const link = el("a", { href: "#", className: "log-session", dataset: { sessionId: id }, text: shortId(id) });
    link.addEventListener("click", (e) => {
      e.preventDefault();
      showSession(id);
    });
    return el("td", {}, link);
  }

  /** A message by what its notification says (its title, or privacyIDEA's in its data); by its id without one. */
  function messageCell(entry) {
    let shown = entry.request;
    let title = null;
    try {
      const request = JSON.parse(entry.request);
      shown = JSON.stringify(request, null, 2);
      const message = (request && request.message) || {};
      title = [message.notification && message.notification.title, message.data && message.data.title].find((t) => typeof t === "string" && t.trim()) ?? null;
    } catch {
      // shown as received
    }
    const id = entry.name ? shortId(entry.name.split("/").pop()) : null;
    return el(
      "td",
      {},
      el(
        "details",
        {},
        el("summary", { text: title ?? id ?? (entry.error || "refused"), title: id ?? "" }),
        entry.error ? el("p", { className: "log-error", text: entry.error }) : null,
        el("pre", { className: "log-request", text: shown + (entry.truncated ? "\n… (truncated)" : "") }),
      ),
    );
  }

  /** What a row shows that can change after it is drawn: its outcome, its phone, its session. */
  function shownState(entry) {
    return JSON.stringify([entry.outcome, phoneOf(entry.target)?.name ?? null, entry.payloadToken ? sessionFor(entry.payloadToken) : null]);
  }

  function row(entry) {
    const refused = !(entry.outcome in OUTCOME_TEXT);
    return el(
      "tr",
      { className: "log-row", dataset: { messageId: entry.id, outcome: entry.outcome, target: entry.target || "", shown: shownState(entry) } },
      el("td", { className: "nowrap", text: formatDateTime(entry.receivedAt) }),
      el("td", {}, el("code", { text: entry.sender })),
      targetCell(entry),
      el("td", {}, el("span", { className: "badge log-outcome " + (refused ? "status-failed" : "status-confirmed"), text: OUTCOME_TEXT[entry.outcome] || entry.outcome, title: entry.outcome })),
      sessionCell(entry),
      messageCell(entry),
    );
  }

  /** Rows already drawn stay as they are (a message opened to read stays open); a row whose
   * outcome, phone or session changed is drawn again, opened if it was. */
  function render(entries) {
    const drawn = new Map([...body.children].map((r) => [r.dataset.messageId, r]));
    const rows = entries.map((entry) => {
      const old = drawn.get(String(entry.id));
      if (old && old.dataset.shown === shownState(entry)) return old;
      const fresh = row(entry);
      if (old?.querySelector("details")?.open) fresh.querySelector("details").open = true;
      return fresh;
    });
    body.replaceChildren(...rows);
    empty.hidden = entries.length > 0;
  }

  function renderFilters(outcomes) {
    const chosenPhone = phoneFilter.value;
    while (phoneFilter.options.length > 1) phoneFilter.remove(1);
    for (const p of phones) phoneFilter.append(el("option", { value: String(p.id), text: p.name || shortId(p.id) }));
    phoneFilter.value = [...phoneFilter.options].some((o) => o.value === chosenPhone) ? chosenPhone : "";
    if (outcomeFilter.options.length === 1) for (const o of outcomes) outcomeFilter.append(el("option", { value: o, text: OUTCOME_TEXT[o] || o }));
  }

  let loading = null;
  async function refresh() {
    if (loading) return loading;
    const query = new URLSearchParams();
    if (phoneFilter.value) query.set("phone", phoneFilter.value);
    if (outcomeFilter.value) query.set("outcome", outcomeFilter.value);
    loading = Promise.all([api("/api/push/messages" + (query.size ? "?" + query : "")), loadPhones()])
      .then(([log, list]) => {
        phones = list;
        renderFilters(log.outcomes);
        bound.textContent = `Keeps the newest ${log.limit} messages.`;
        render(log.messages);
        showError(errorBox, null);
        container.dataset.ready = "true";
      })
      .catch((err) => showError(errorBox, err))
      .finally(() => {
        loading = null;
      });
    return loading;
  }

  phoneFilter.addEventListener("change", refresh);
  outcomeFilter.addEventListener("change", refresh);
  clearButton.addEventListener("click", async () => {
    try {
      await api("/api/push/messages", { method: "DELETE" });
    } catch (err) {
      showError(errorBox, err);
    }
    refresh();
  });
  refresh();
  setInterval(() => {
    if (document.visibilityState === "visible") refresh();
  }, every);
  return { refresh };
}
