// The console's table of recent sessions, newest first; a row shows its session in the card.
import { el, clear, shortId, formatDateTime } from "../api.js";
import { dispatchCode, dispatchInfo, loggedinText, statusBadge } from "./session-labels.js";

const MAX_ROWS = 200;

function createdTime(s) {
  const t = new Date(s.createdAt).getTime();
  return Number.isNaN(t) ? 0 : t;
}

function deliveryCell(s) {
  if (!s.delivery) return el("td", { className: "muted", text: "—" });
  const sub =
    s.delivery === "push" && s.dispatch
      ? el("span", { className: "cell-sub dispatch-" + dispatchInfo(s.dispatch).kind, text: dispatchCode(s.dispatch), title: String(s.dispatch) })
      : null;
  return el("td", { className: "delivery-cell", dataset: { delivery: String(s.delivery) } }, el("span", { className: "cell-main", text: s.delivery === "push" ? "push" : String(s.delivery) }), sub);
}

/** `onShow(id)`: a row was chosen. Returns {render(sessions, shownId)}. */
export function createSessionsTable(onShow) {
  const body = document.querySelector("#sessions tbody");
  const empty = document.getElementById("sessions-empty");

  function render(sessions, shownId) {
    clear(body);
    const list = [...sessions.values()].sort((a, b) => createdTime(b) - createdTime(a)).slice(0, MAX_ROWS);
    empty.hidden = list.length > 0;
    for (const s of list) {
      const row = el(
        "tr",
        {
          className: "session-row" + (s.id === shownId ? " selected" : ""),
          dataset: { sessionId: String(s.id), status: String(s.status || "") },
          tabindex: "0",
          title: "Show this session",
        },
        el("td", {}, el("code", { text: shortId(s.id), title: String(s.id) })),
        // second: in view at a phone's width, where the table scrolls sideways
        el("td", { className: "session-status-cell" }, statusBadge(s.status)),
        el("td", { text: s.type || "" }),
        el("td", {}, el("span", { className: "cell-main", text: s.userId || "" }), s.displayName ? el("span", { className: "cell-sub muted", text: s.displayName }) : null),
        deliveryCell(s),
        el("td", { className: "nowrap", text: formatDateTime(s.createdAt) }),
        el("td", {}, s.accountId ? el("code", { text: shortId(s.accountId), title: String(s.accountId) }) : "—"),
        el("td", { className: "loggedin-cell" }, loggedinText(s.loggedin), s.otplogin ? el("span", { className: "tag", text: "OTP" }) : null),
      );
      row.addEventListener("click", () => onShow(s.id));
      row.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          onShow(s.id);
        }
      });
      body.appendChild(row);
    }
  }

  return { render };
}
