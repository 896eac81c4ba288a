// The push composer card: compose any FCM v1 message (targets, notification, data map, Android
// and APNs blocks, validate_only), start from a template, see the exact request, send it through
// the FCM endpoint as an outside sender would, and read FCM's answer. Self-contained: a page
// mounts it with what it needs (the console does; a stage page can too).
import { el, clear, copyText, flashLabel } from "../api.js";
import { TARGET_FIELDS, cliLine, curlLine, payloadOf, pushDataFor, readAnswer, sendPath, sendRequests } from "./push-request.js";

const SESSION_TEMPLATES = {
  login: { title: "Log in?", body: (user) => `Confirm the login of ${user} on this phone.` },
  enrol: { title: "Add an account?", body: (user) => `Enrol ${user} on this phone.` },
  transaction: { title: "Confirm a transaction", body: (user) => `A transaction for ${user} waits for you.` },
};

/**
 * Mounts the composer into `container`. `deps`:
 *  - api(path, {method, body}): the JSON API (sessions, phones);
 *  - fetch: the browser's fetch, for the raw FCM send (its answer is shown as FCM gives it);
 *  - loadPhones(): resolves to the phones ({id, name, fcmToken});
 *  - origin: this server's base URL (for the curl and authphone lines);
 *  - project(): resolves to the FCM project the push service serves;
 *  - drafts: {load(), save(state)} keeping the templates and the last message on the server;
 *  - onSent(): after each send (the push log refreshes).
 */
export function mountPushComposer(container, { api, fetch, loadPhones, origin, project, drafts, onSent = () => {} }) {
  const field = (label, input, hint) => el("label", { className: "field" }, el("span", { className: "field-label", text: label }), input, hint ? el("span", { className: "hint", text: hint }) : null);
  const input = (name, attrs = {}) => el("input", { type: "text", spellcheck: "false", dataset: { composer: name }, ...attrs });
  const area = (name, rows, placeholder) => el("textarea", { rows, spellcheck: "false", placeholder, dataset: { composer: name } });

  const phonesBox = el("div", { className: "composer-phones", dataset: { composer: "phones" } });
  const targetRows = el("div", { className: "composer-rows", dataset: { composer: "targets" } });
  const dataRows = el("div", { className: "composer-rows", dataset: { composer: "data-rows" } });
  const dataJSON = area("data-json", 5, '{"key": "value"}');
  const dataMode = el("select", { dataset: { composer: "data-mode" } }, el("option", { value: "rows", text: "Key/value rows" }), el("option", { value: "json", text: "Raw JSON" }));
  const [title, body, image] = ["title", "body", "image"].map((n) => input(n));
  const android = area("android", 2, '{"priority": "HIGH"}');
  const apns = area("apns", 2, '{"headers": {"apns-priority": "10"}}');
  const validateOnly = el("input", { type: "checkbox", dataset: { composer: "validate-only" } });
  const bearer = input("bearer", { type: "password", autocomplete: "off", placeholder: "only if the server was started with --push-token" });
  const templateSelect = el(
    "select",
    { dataset: { composer: "template" } },
    el("option", { value: "login", text: "A live login session for this user" }),
    el("option", { value: "enrol", text: "A live enrol session for this user" }),
    el("option", { value: "transaction", text: "A live transaction session for this user" }),
    el("option", { value: "empty", text: "An empty message" }),
    el("option", { value: "last", text: "The last message sent" }),
  );
  const templateUser = input("template-user", { placeholder: "alice" });
  const savedGroup = el("optgroup", { label: "Saved on the server" });
  templateSelect.append(savedGroup);
  const templateName = input("template-name", { placeholder: "my message" });
  const preview = el("pre", { className: "composer-preview", dataset: { composer: "preview" } });
  const lines = el("div", { className: "composer-lines" });
  const results = el("ol", { className: "composer-results", dataset: { composer: "results" } });
  const problem = el("div", { className: "error", role: "alert", hidden: true, dataset: { composer: "problem" } });
  const sendButton = el("button", { type: "submit", className: "btn btn-primary", dataset: { composer: "send" }, text: "Send" });
  const form = el(
    "form",
    { className: "stack-form composer-form", autocomplete: "off" },
    el("div", { className: "inline-form" }, field("Template", templateSelect), field("User", templateUser), el("div", { className: "form-actions" }, el("button", { type: "button", className: "btn", dataset: { composer: "use-template" }, text: "Use template", on: { click: () => applyTemplate(templateSelect.value, templateUser.value.trim()) } }))),
    el("fieldset", {}, el("legend", { text: "Send to" }), phonesBox, el("span", { className: "hint", text: "Several phones: one send each (a multicast). Extra target fields go into every message as typed." }), targetRows, el("button", { type: "button", className: "btn btn-small", dataset: { composer: "add-target" }, text: "Add a target field", on: { click: () => addTarget("topic", "") } })),
    el("fieldset", {}, el("legend", { text: "Notification" }), el("div", { className: "inline-form" }, field("Title", title), field("Body", body), field("Image URL", image))),
    el("fieldset", {}, el("legend", { text: "Data" }), field("Edit as", dataMode), dataRows, el("button", { type: "button", className: "btn btn-small", dataset: { composer: "add-data" }, text: "Add a row", on: { click: () => addData("", "") } }), dataJSON),
    el("fieldset", {}, el("legend", { text: "Platform blocks (JSON, optional)" }), el("div", { className: "inline-form" }, field("android", android), field("apns", apns))),
    el("label", { className: "setting" }, validateOnly, el("span", { text: "validate_only: check the message, deliver nothing" })),
    field("Bearer token", bearer),
    el("div", { className: "form-actions composer-send" }, sendButton),
    el("div", { className: "inline-form" }, field("Save this message as a template", templateName), el("div", { className: "form-actions" }, el("button", { type: "button", className: "btn", dataset: { composer: "save-template" }, text: "Save template", on: { click: saveTemplate } }))),
  );
  container.append(
    el("h2", { text: "Push composer" }),
    el("div", { className: "composer-layout" }, el("div", {}, form, problem), el("div", { className: "composer-output" }, el("h3", { text: "Request" }), preview, lines, el("h3", { text: "Answers" }), results)),
  );

  let phones = [];
  let state = { templates: {}, last: null }; // what the server keeps for this console

  function row(box, kind, first, second, removeLabel) {
    const remove = el("button", { type: "button", className: "btn btn-small btn-ghost", text: removeLabel });
    const node = el("div", { className: "composer-row", dataset: { row: kind } }, first, second, remove);
    remove.addEventListener("click", () => {
      node.remove();
      render();
    });
    box.append(node);
    return node;
  }

  function addTarget(fieldName, value) {
    const select = el("select", {}, ...TARGET_FIELDS.map((f) => el("option", { value: f, text: f })));
    select.value = fieldName;
    const text = input("target-value", { value, placeholder: "value" });
    row(targetRows, "target", select, text, "Remove");
  }

  function addData(key, value) {
    row(dataRows, "data", input("data-key", { value: key, placeholder: "key" }), input("data-value", { value, placeholder: "value" }), "Remove");
  }

  function rowsOf(box) {
    return [...box.querySelectorAll(".composer-row")].map((r) => [...r.querySelectorAll("input, select")].map((i) => i.value));
  }

  const optionalJSON = (text, name) => {
    if (!text.trim()) return undefined;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new Error(`${name} is not JSON: ${e.message}`);
    }
  };

  /** The form as a draft: what `sendRequests` turns into requests, and what is kept as "last". */
  function draft() {
    const message = {};
    const notification = Object.fromEntries([["title", title.value], ["body", body.value], ["image", image.value]].filter(([, v]) => v !== ""));
    if (Object.keys(notification).length) message.notification = notification;
    const data = dataMode.value === "json" ? optionalJSON(dataJSON.value, "The data map") : Object.fromEntries(rowsOf(dataRows).filter(([k]) => k !== ""));
    if (data !== undefined && (dataMode.value === "json" || Object.keys(data).length)) message.data = data;
    const androidBlock = optionalJSON(android.value, "The android block");
    if (androidBlock !== undefined) message.android = androidBlock;
    const apnsBlock = optionalJSON(apns.value, "The apns block");
    if (apnsBlock !== undefined) message.apns = apnsBlock;
    const chosen = [...phonesBox.querySelectorAll("input:checked")].map((c) => c.value);
    return { tokens: chosen, targets: rowsOf(targetRows).map(([f, value]) => ({ field: f, value })), message, validateOnly: validateOnly.checked };
  }

  /** Fills the form from a draft (a template or the last message). */
  function fill(d) {
    for (const c of phonesBox.querySelectorAll("input")) c.checked = (d.tokens || []).includes(c.value);
    clear(targetRows);
    for (const t of d.targets || []) addTarget(t.field, t.value);
    const m = d.message || {};
    const n = m.notification || {};
    title.value = n.title ?? "";
    body.value = n.body ?? "";
    image.value = n.image ?? "";
    const data = m.data ?? {};
    const stringsOnly = typeof data === "object" && !Array.isArray(data) && Object.values(data).every((v) => typeof v === "string");
    dataMode.value = stringsOnly ? "rows" : "json";
    clear(dataRows);
    if (stringsOnly) for (const [k, v] of Object.entries(data)) addData(k, v);
    dataJSON.value = JSON.stringify(data, null, 2);
    showDataMode();
    android.value = m.android ? JSON.stringify(m.android) : "";
    apns.value = m.apns ? JSON.stringify(m.apns) : "";
    validateOnly.checked = !!d.validateOnly;
    render();
  }

  /** The push tokens of the phones holding an account of `user`: a template's target when none is ticked. */
  async function phonesOfUser(user) {
    const details = await Promise.all(phones.map((p) => api(`/api/phones/${encodeURIComponent(p.id)}`)));
    return details.filter((d) => (d.accounts || []).some((a) => a.userId === user)).map((d) => d.fcmToken);
  }

  async function applyTemplate(name, user) {
    showProblem(null);
    const tokens = draft().tokens;
    if (name === "empty") return fill({ tokens, message: {} });
    if (name === "last") return state.last ? fill(state.last) : showProblem("No message was sent from this console yet.");
    if (name.startsWith("saved:")) return fill(state.templates[name.slice(6)] || {});
    if (!user) return showProblem("Enter the user the session is for.");
    try {
      // the composer, not the backend, pushes it: the session says so
      const request = { type: name, userId: user, delivery: "external" };
      if (name === "transaction") request.transaction = "Pay 10.00 EUR to ACME Ltd";
      const session = await api("/api/backend/sessions", { method: "POST", body: request });
      const payload = payloadOf(session.qrText);
      const texts = SESSION_TEMPLATES[name];
      const to = tokens.length ? tokens : await phonesOfUser(user);
      fill({ tokens: to, message: { notification: { title: texts.title, body: texts.body(user) }, data: pushDataFor(payload) } });
      container.dataset.sessionId = String(session.id);
    } catch (err) {
      showProblem(`${err.code || "ERROR"}: ${err.message}`);
    }
  }

  function renderSaved() {
    clear(savedGroup);
    for (const name of Object.keys(state.templates).sort()) savedGroup.append(el("option", { value: "saved:" + name, text: name }));
  }

  async function saveTemplate() {
    const name = templateName.value.trim();
    if (!name) return showProblem("Name the template.");
    try {
      const kept = { ...state, templates: { ...state.templates, [name]: draft() } };
      state = await drafts.save(kept);
      renderSaved();
      templateSelect.value = "saved:" + name;
    } catch (err) {
      showProblem(`The template was not saved: ${err.code || ""} ${err.message}`);
    }
  }

  function showProblem(text) {
    problem.textContent = text || "";
    problem.hidden = !text;
  }

  let currentProject = "";
  function render() {
    clear(lines);
    let requests;
    try {
      requests = sendRequests(draft());
      showProblem(null);
    } catch (e) {
      preview.textContent = "";
      return showProblem(e.message);
    }
    const head = `POST ${sendPath(currentProject)}\nContent-Type: application/json${bearer.value ? "\nAuthorization: Bearer …" : ""}\n\n`;
    preview.textContent = requests.map((r) => head + JSON.stringify(r, null, 2)).join("\n\n");
    for (const r of requests) {
      for (const [label, line] of [["curl", curlLine(origin, currentProject, r, { bearer: !!bearer.value })], ["authphone push", cliLine(origin, currentProject, r)]]) {
        if (!line) continue;
        const copy = el("button", { type: "button", className: "btn btn-small", text: `Copy ${label}` });
        copy.addEventListener("click", async () => flashLabel(copy, (await copyText(line)) ? "Copied" : "Copy failed"));
        lines.append(el("div", { className: "composer-line", dataset: { line: label } }, el("code", { text: line }), copy));
      }
    }
  }

  function showAnswer(answer) {
    const item = answer.ok
      ? el("li", { className: "composer-answer ok", dataset: { outcome: "ok" } }, el("strong", { text: `${answer.status} ` }), el("code", { text: answer.name }))
      : el(
          "li",
          { className: "composer-answer refused", dataset: { outcome: answer.errorCode } },
          // FCM's status and its error code are often the same word: said once
          el("strong", { text: [answer.code, answer.errorStatus, answer.errorCode].filter((part, i, all) => part !== "" && all.indexOf(part) === i).join(" ") }),
          " ",
          el("span", { text: answer.message }),
          answer.rule ? el("p", { className: "hint composer-rule", text: `Rule: ${answer.rule}` }) : null,
        );
    results.prepend(item);
  }

  form.addEventListener("input", render);
  form.addEventListener("change", (e) => {
    if (e.target === dataMode) switchDataMode();
    render();
  });

  /** Carries the map across when the editor changes, so switching loses nothing. */
  function switchDataMode() {
    try {
      if (dataMode.value === "json") dataJSON.value = JSON.stringify(Object.fromEntries(rowsOf(dataRows).filter(([k]) => k !== "")), null, 2);
      else {
        const data = optionalJSON(dataJSON.value, "The data map") || {};
        clear(dataRows);
        for (const [k, v] of Object.entries(data)) addData(k, typeof v === "string" ? v : JSON.stringify(v));
      }
    } catch (e) {
      dataMode.value = "json"; // stay where the text can be mended
      showProblem(e.message);
    }
    showDataMode();
  }

  function showDataMode() {
    const json = dataMode.value === "json";
    dataRows.hidden = json;
    form.querySelector('[data-composer="add-data"]').hidden = json;
    dataJSON.hidden = !json;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let current;
    try {
      current = draft();
    } catch (e) {
      return showProblem(e.message);
    }
    sendButton.disabled = true;
    try {
      for (const request of sendRequests(current)) {
        const headers = { "Content-Type": "application/json" };
        if (bearer.value) headers.Authorization = `Bearer ${bearer.value}`;
        let answer;
        try {
          const response = await fetch(sendPath(currentProject), { method: "POST", headers, body: JSON.stringify(request), credentials: "same-origin" });
          answer = readAnswer(response.status, await response.text());
        } catch (e) {
          answer = { ok: false, code: 0, errorStatus: "", errorCode: "NETWORK_ERROR", message: String(e && e.message ? e.message : e), rule: null };
        }
        showAnswer(answer);
      }
      state = { ...state, last: current };
      drafts.save(state).catch((err) => showProblem(`The last message was not kept: ${err.message}`));
    } finally {
      sendButton.disabled = false;
      onSent();
    }
  });

  function renderPhones() {
    const chosen = new Set([...phonesBox.querySelectorAll("input:checked")].map((c) => c.value));
    clear(phonesBox);
    if (!phones.length) phonesBox.append(el("span", { className: "hint", text: "No phones yet: create one on the Phones page." }));
    for (const p of phones) {
      const box = el("input", { type: "checkbox", value: p.fcmToken, dataset: { phoneId: String(p.id) } });
      box.checked = chosen.has(p.fcmToken);
      phonesBox.append(el("label", { className: "setting" }, box, el("span", { text: p.name || "(unnamed)" })));
    }
  }

  showDataMode();
  Promise.all([loadPhones(), project(), drafts.load()]).then(([list, name, kept]) => {
    phones = list;
    currentProject = name;
    state = { templates: {}, last: null, ...kept };
    renderSaved();
    renderPhones();
    render();
    container.dataset.ready = "true";
  }, (err) => showProblem(`The composer could not start: ${err.code || ""} ${err.message}`));

  // phones are made in other tabs: list them again when this one is looked at again
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") loadPhones().then((list) => ((phones = list), renderPhones()));
  });
}
