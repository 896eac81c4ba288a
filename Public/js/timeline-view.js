// A timeline of the exchanges between the three parts (phone, backend, push service) as a
// sequence: one lane each, one arrow per exchange, newest last; a click on an arrow shows its
// redacted bodies. It follows the server's timeline stream live, and offers the timeline as
// JSON and as a HAR file. The console's session card and the phone's page each mount one.
import { ReconnectingSocket, getJSON, el, clear, formatTime, shortId } from "./api.js";
import { plainWords } from "./plain-words.js";

const LANES = ["phone", "backend", "push"];
const LANE_NAMES = { phone: "Phone", backend: "Backend", push: "Push service", privacyIDEA: "privacyIDEA" };
/** The lane a part's arrows end on: a privacyIDEA server stands in the backend's. */
const laneOf = (part) => LANES.indexOf(part === "privacyIDEA" ? "backend" : part);

/** The URL's last path segment, enough to tell the exchanges apart on an arrow ("…/verify"). */
function shortPath(url) {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not a URL: shown as it is
  }
  const parts = path.split("/").filter(Boolean);
  return parts.length > 1 ? "…/" + parts[parts.length - 1] : path;
}

function hopRow(hop) {
  const from = laneOf(hop.from);
  const to = laneOf(hop.to);
  const ok = hop.status !== null && hop.status !== undefined && hop.status < 400;
  const status = hop.status ?? "—";
  const notes = [
    hop.automaticRule ? `automatic (rule ${shortId(hop.automaticRule)})` : null,
    hop.attempt > 1 ? `retry ${hop.attempt - 1}` : null,
    hop.fault ? `fault: ${hop.fault}` : null,
    hop.error && !hop.fault ? hop.error : null,
  ].filter(Boolean);
  // under the arrow an error in words ("SERVER_CONNECTION_ERROR: …" as "Can't reach the server"); the exchange's details keep it whole
  const shownNotes = notes.map((note) => (note === hop.error ? plainWords(note.split(":")[0], "failed") : note));
  const arrow = el(
    "button",
    {
      type: "button",
      className: "tl-arrow" + (to < from ? " tl-left" : ""),
      title: `${LANE_NAMES[hop.from]} → ${LANE_NAMES[hop.to]}: ${hop.method} ${hop.url}`,
      "aria-expanded": "false",
    },
    el("span", { className: "tl-label" }, el("code", { text: `${hop.method} ${shortPath(hop.url)}` }), " ", el("span", { className: "tl-status", text: String(status) }), ` · ${Math.round(hop.durationMs * 10) / 10} ms`),
  );
  const details = el(
    "div",
    { className: "tl-details", hidden: true },
    el("p", { className: "tl-meta muted", text: `${formatTime(hop.at)} · ${LANE_NAMES[hop.from]} → ${LANE_NAMES[hop.to]} · attempt ${hop.attempt}${notes.length ? " · " + notes.join(" · ") : ""}` }),
    el("p", { className: "tl-body-label", text: "Request" }),
    el("pre", { className: "tl-body", text: hop.request || "(none)" }),
    el("p", { className: "tl-body-label", text: "Response" }),
    el("pre", { className: "tl-body", text: hop.response || (hop.status === null || hop.status === undefined ? "(no answer)" : "(none)") }),
  );
  // from one lane's middle to the other's, on a grid of two columns a lane; set through the
  // CSSOM: the page's policy allows no style attributes
  arrow.style.gridColumn = `${2 * Math.min(from, to) + 2} / ${2 * Math.max(from, to) + 2}`;
  arrow.addEventListener("click", () => {
    details.hidden = !details.hidden;
    arrow.setAttribute("aria-expanded", String(!details.hidden));
  });
  return el(
    "li",
    { className: "tl-hop", dataset: { hopId: String(hop.id), from: hop.from, to: hop.to, ok: String(ok), fault: hop.fault ? "true" : "false" } },
    el("div", { className: "tl-lanes" }, arrow),
    notes.length ? el("p", { className: "tl-notes", text: shownNotes.join(" · ") }) : null,
    details,
  );
}

/**
 * Mounts a timeline in `container`. Returns {show({url, matches(hop), name} or null)}: the
 * timeline at `url` (JSON; `?format=har` downloads it as HAR), read again whenever the stream
 * brings an exchange `matches` accepts.
 */
export function createTimelineView(container) {
  const head = el("div", { className: "tl-head" }, ...LANES.map((lane) => el("span", { className: "tl-lane-name", text: LANE_NAMES[lane] })));
  const list = el("ol", { className: "tl-list" });
  const empty = el("p", { className: "empty tl-empty", text: "No exchanges yet." });
  const jsonLink = el("a", { className: "btn btn-small tl-download-json", text: "Download JSON" });
  const harLink = el("a", { className: "btn btn-small tl-download-har", text: "Download HAR" });
  const error = el("div", { className: "error", role: "alert", hidden: true });
  clear(container);
  container.append(el("div", { className: "card-head" }, el("h3", { text: "Timeline" }), el("div", { className: "row-actions" }, jsonLink, harLink)), head, list, empty, error);

  let shown = null; // {url, matches, name}
  let reading = null;
  let again = false;

  async function read() {
    if (!shown) return;
    if (reading) {
      again = true; // one more read once this one is done
      return;
    }
    const source = shown;
    reading = getJSON(source.url);
    try {
      const answer = await reading;
      if (source !== shown) return;
      const hops = Array.isArray(answer && answer.hops) ? answer.hops : [];
      // rows already drawn are moved, not redrawn, so an opened one stays open
      const drawn = new Map([...list.children].map((row) => [row.dataset.hopId, row]));
      const rows = hops.map((hop) => drawn.get(String(hop.id)) || hopRow(hop));
      list.replaceChildren(...rows);
      empty.hidden = hops.length > 0;
      container.dataset.count = String(hops.length);
      error.hidden = true;
    } catch (err) {
      error.textContent = `${err.code || "ERROR"}: ${err.message}`;
      error.hidden = false;
    } finally {
      reading = null;
      if (again) {
        again = false;
        read();
      }
    }
  }

  new ReconnectingSocket("/api/timeline/stream", {
    onOpen: read, // catch up after a reconnect
    onMessage: (msg) => {
      if (msg.type === "hop" && msg.hop && shown && shown.matches(msg.hop)) read();
    },
  });

  return {
    show(source) {
      if (shown && source && shown.url === source.url) return;
      shown = source;
      clear(list);
      container.hidden = !source;
      if (!source) return;
      jsonLink.href = source.url;
      jsonLink.download = `${source.name}.json`;
      harLink.href = source.url + "?format=har";
      harLink.download = `${source.name}.har`;
      read();
    },
  };
}
