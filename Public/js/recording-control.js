// The Record control the stage, the console and the phone page share (docs/recording.md): a walk
// is recorded by the server itself, from the routes the pages already call, so a page only starts
// and stops it, names it, lists what was recorded, hands out its JSON scenario and its pytest
// file, and deletes it. A walk may be started elsewhere (another page, `authphone record`, a
// script): the control asks the server again every few seconds while the page is looked at, and
// at once when it is looked at again. Self-contained: a page mounts it with what it needs.
import { el, clear, showError } from "./api.js";

/** A recording's name as a file name: what a file system refuses, or hides, left out. */
export function scenarioFileName(name) {
  // eslint-disable-next-line no-control-regex
  const cleaned = String(name ?? "").replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "-").replace(/^[.\s-]+|[.\s-]+$/g, "");
  return (cleaned || "recorded walk") + ".json";
}

const stepsText = (n) => (n === 1 ? "1 step" : `${n} steps`);

/**
 * Mounts the control into `container` (its start/stop bar). `deps`:
 *  - api(path, {method, body}): the JSON API (api.js's `api`);
 *  - list: the element the recordings are listed in (default: `container`, below the bar);
 *  - errorBox: the `.error` box refusals are shown in (default: one of the control's own);
 *  - onStopped(summary): told when this page stopped a walk (the stage opens its list);
 *  - every: milliseconds between refreshes while a walk is recorded (default 2000), and twice
 *    that while none is.
 * Elements carry `data-recording` for tests: record, name, live, status, stop, list, empty, and
 * on each row (`data-recording-id`) json, pytest, rename, delete. Returns {refresh(), unmount()}.
 */
export function mountRecordingControl(container, { api, list = container, errorBox = null, onStopped = () => {}, every = 2000 }) {
  const name = el("input", { type: "text", maxlength: "100", placeholder: "Name (optional)", "aria-label": "Name of the walk to record", dataset: { recording: "name" } });
  const record = el("button", { type: "submit", className: "btn btn-small btn-record", dataset: { recording: "record" }, title: "Record what is done from now on, on every page and by scripts, as a walk to replay" }, el("span", { className: "recording-dot", "aria-hidden": "true" }), "Record");
  const startForm = el("form", { className: "recording-start", autocomplete: "off" }, name, record);
  const status = el("span", { className: "recording-status", role: "status", dataset: { recording: "status" } });
  const stop = el("button", { type: "button", className: "btn btn-small", dataset: { recording: "stop" }, text: "Stop" });
  const live = el("div", { className: "recording-live", hidden: true, dataset: { recording: "live" } }, el("span", { className: "recording-dot", "aria-hidden": "true" }), status, stop);
  const errors = errorBox || el("div", { className: "error", role: "alert", hidden: true, dataset: { recording: "error" } });
  const rows = el("ul", { className: "recording-list", dataset: { recording: "list" } });
  const empty = el("p", { className: "empty", dataset: { recording: "empty" }, text: "No walk recorded yet." });
  container.classList.add("recording-control");
  container.append(el("div", { className: "recording-bar" }, startForm, live));
  if (!errorBox) container.append(errors);
  list.append(rows, empty);

  let recordings = [];
  let current = null; // the walk being recorded, wherever it was started
  let editing = null; // the id whose name is being changed: its row is not redrawn under the typing
  let armed = null; // the id whose Delete asks for a second click
  let shown = null;
  let timer = null;
  let changes = 0; // this page's own changes: a look at the server begun before one is out of date
  let lookFailure = null; // the code of a failed look shown, which the next good look takes away

  const path = (id, suffix = "") => "/api/recordings/" + encodeURIComponent(id) + suffix;

  async function attempt(button, work) {
    if (button) button.disabled = true;
    showError(errors, null);
    changes += 1;
    try {
      await work();
      changes += 1;
    } catch (err) {
      showError(errors, err);
    } finally {
      if (button) button.disabled = false;
    }
    await refresh();
  }

  startForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = name.value.trim();
    attempt(record, async () => {
      current = await api("/api/recordings", { method: "POST", body: chosen ? { name: chosen } : {} });
      name.value = "";
      draw();
    });
  });

  stop.addEventListener("click", () => {
    if (!current) return;
    const id = current.id;
    attempt(stop, async () => {
      const stopped = await api(path(id, "/stop"), { method: "POST", body: {} }); // the doors want a JSON request, the route no fields
      current = null;
      recordings = recordings.map((r) => (r.id === id ? stopped : r));
      draw();
      onStopped(stopped);
    });
  });

  function row(r) {
    const jsonLink = el("a", { className: "btn btn-small", href: path(r.id, "?format=json"), download: scenarioFileName(r.name), dataset: { recording: "json" }, title: "The scenario, for authphone replay", text: "JSON" });
    const pytestLink = el("a", { className: "btn btn-small", href: path(r.id, "?format=pytest"), download: "", dataset: { recording: "pytest" }, title: "A pytest file that walks it again on a server of its own", text: "pytest" });
    const remove = el("button", { type: "button", className: "btn btn-small btn-danger", dataset: armed === r.id ? { recording: "delete", armed: "true" } : { recording: "delete" }, text: armed === r.id ? "Delete for good" : "Delete" });
    remove.addEventListener("click", () => {
      if (armed !== r.id) {
        armed = r.id;
        draw();
        return;
      }
      armed = null;
      attempt(null, () => api(path(r.id), { method: "DELETE" }));
    });
    const facts = [stepsText(r.steps), r.clock === "manual" ? "manual clock" : null, r.full ? "full" : null].filter(Boolean).join(" · ");
    return el(
      "li",
      { className: "recording-row", dataset: { recordingId: r.id, state: r.state } },
      editing === r.id ? renameForm(r) : nameLine(r),
      el("span", { className: "muted recording-facts", dataset: { recording: "facts" }, title: r.clock === "manual" ? "Its replay needs serve --clock manual" : undefined, text: facts }),
      el("span", { className: "row-actions" }, jsonLink, pytestLink, remove),
    );
  }

  function nameLine(r) {
    const rename = el("button", { type: "button", className: "btn btn-small btn-ghost", dataset: { recording: "rename" }, "aria-label": `Rename ${r.name}`, text: "Rename" });
    rename.addEventListener("click", () => {
      editing = r.id;
      armed = null;
      draw();
      const input = list.querySelector(`[data-recording-id="${CSS.escape(r.id)}"] [data-recording="new-name"]`);
      if (input) {
        input.focus();
        input.select();
      }
    });
    return el("span", { className: "recording-name" }, el("strong", { dataset: { recording: "row-name" }, text: r.name }), rename);
  }

  function renameForm(r) {
    const input = el("input", { type: "text", maxlength: "100", value: r.name, "aria-label": "New name of the walk", dataset: { recording: "new-name" } });
    const save = el("button", { type: "submit", className: "btn btn-small btn-primary", dataset: { recording: "save-name" }, text: "Save" });
    const cancel = el("button", { type: "button", className: "btn btn-small btn-ghost", text: "Cancel" });
    const form = el("form", { className: "recording-rename", autocomplete: "off" }, input, save, cancel);
    const done = () => {
      editing = null;
      draw();
    };
    cancel.addEventListener("click", done);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") done();
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      attempt(save, async () => {
        const renamed = await api(path(r.id), { method: "PATCH", body: { name: input.value } });
        recordings = recordings.map((x) => (x.id === r.id ? renamed : x));
        editing = null;
        draw();
      });
    });
    return form;
  }

  /** Draws the bar and the list; the list only when what it shows changed (a click is not lost). */
  function draw() {
    container.dataset.recordingState = current ? "recording" : "idle";
    startForm.hidden = Boolean(current);
    live.hidden = !current;
    if (current) {
      status.textContent = `Recording “${current.name}”… ${stepsText(current.steps)}` + (current.full ? " (full: no more are taken)" : "");
      status.dataset.steps = String(current.steps);
    }
    const stopped = recordings.filter((r) => r.state !== "recording").reverse(); // newest first
    const key = JSON.stringify([stopped, editing, armed]);
    if (key === shown) return;
    shown = key;
    clear(rows);
    for (const r of stopped) rows.append(row(r));
    empty.hidden = stopped.length > 0;
  }

  async function refresh() {
    const since = changes;
    try {
      const answer = await api("/api/recordings");
      if (since !== changes) return; // a newer look follows the change
      // (on a box the page shares, only if it still shows that failure)
      if (lookFailure && !errors.hidden && errors.dataset.code === lookFailure) showError(errors, null);
      lookFailure = null;
      recordings = Array.isArray(answer && answer.recordings) ? answer.recordings : [];
      current = recordings.find((r) => r.state === "recording") || null;
      if (editing && !recordings.some((r) => r.id === editing)) editing = null;
      draw();
    } catch (err) {
      showError(errors, err);
      lookFailure = errors.dataset.code;
    } finally {
      schedule();
    }
  }

  // cheap: one small GET every few seconds, and none while the page is hidden
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (document.visibilityState === "visible") refresh();
      else schedule();
    }, current ? every : every * 2);
  }
  const again = () => {
    if (document.visibilityState === "visible") refresh();
  };
  document.addEventListener("visibilitychange", again);
  window.addEventListener("focus", again);

  draw();
  refresh();
  return {
    refresh,
    unmount() {
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", again);
      window.removeEventListener("focus", again);
    },
  };
}
