// The flow log beside the phone: every flow update, session change, retried operation, OTP
// account change and privacyIDEA request change this screen received, newest first; downloadable
// as JSON. Its entries are kept in state.log.
import { el, clear, shortId, formatTime } from "../api.js";

/** Text with line-break opportunities after underscores (SET_SECOND_FACTOR wraps at words). */
function breakable(text) {
  const parts = String(text).split(/(?<=_)/);
  const nodes = [];
  parts.forEach((part, i) => {
    if (i > 0) nodes.push(el("wbr"));
    nodes.push(part);
  });
  return nodes;
}

/** `parts`: the table's body, its empty-state text, the download and clear buttons. */
export function createFlowLog({ body, empty, downloadButton, clearButton }, { state, phoneId }) {
  function add(entry, row) {
    state.log.push(entry);
    empty.hidden = true;
    body.insertBefore(row, body.firstChild);
  }

  function flow(source, flow) {
    const entry = { receivedAt: new Date().toISOString(), source, flow };
    const ci = flow.currentInteraction;
    const prev = flow.previousInteractionResult;
    const err = flow.error;
    const flowCell = el(
      "td",
      {},
      el("span", { className: "flow-type" }, breakable(flow.type || "?")),
      " ",
      el("code", { className: "muted", text: shortId(flow.id), title: String(flow.id ?? "") }),
      source !== "flowUpdate" ? [" ", el("span", { className: "tag", text: source })] : null,
      flow.automatic ? el("span", { className: "tag tag-automatic", text: `automatic (rule ${shortId(flow.automatic.rule)})`, title: String(flow.automatic.rule) }) : null,
    );
    add(
      entry,
      el(
        "tr",
        { dataset: { state: String(flow.state || "") } },
        el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
        flowCell,
        el("td", {}, el("span", { className: "badge state-" + String(flow.state || "").toLowerCase() }, breakable(flow.state || ""))),
        el("td", {}, breakable((ci && ci.type) || "—")),
        el("td", { className: prev && prev.type && prev.type !== "SUCCESS" ? "warn-text" : "" }, breakable((prev && prev.type) || "—")),
        el("td", { className: err ? "error-text" : "" }, breakable(err ? String(err.code || "ERROR") + (err.sdkCode != null ? ` (${err.sdkCode})` : "") : "—")),
      ),
    );
  }

  /** The session lifecycle (docs/behaviour.md#offline-otp): STARTING (OTP on offer, connection errors), READY, STOPPED. */
  function session(session) {
    const entry = { receivedAt: new Date().toISOString(), source: "session", session };
    const error = session.error;
    add(
      entry,
      el(
        "tr",
        { className: "session-row", dataset: { state: String(session.state || "") } },
        el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
        el("td", {}, el("span", { className: "flow-type", text: "SESSION" }), " ", el("span", { className: "tag", text: session.otpAvailable ? "OTP available" : session.otp ? "OTP shown" : "no OTP" })),
        el("td", {}, el("span", { className: "badge" }, breakable(String(session.state || "")))),
        el("td", { text: `attempt ${session.attempts}` }),
        el("td", {}, breakable(session.stopReason || "—")),
        el("td", { className: error ? "error-text" : "" }, breakable(error ? String(error.code) + (error.sdkCode != null ? ` (${error.sdkCode})` : "") : "—")),
      ),
    );
  }

  /** The retried DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes), one row per progress report. */
  function operation(progress) {
    const attempts = Array.isArray(progress.attempts) ? progress.attempts : [];
    const last = attempts[attempts.length - 1];
    const entry = { receivedAt: new Date().toISOString(), source: "operation", operation: progress };
    add(
      entry,
      el(
        "tr",
        { className: "operation-row", dataset: { state: String(progress.state || "") } },
        el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
        el("td", {}, el("span", { className: "flow-type", text: "DEVICE_INFORMATION" }), " ", el("span", { className: "tag", text: "retry" })),
        el("td", {}, el("span", { className: "badge", text: String(progress.state || "").toUpperCase() })),
        el("td", { text: `attempt ${attempts.length} of ${progress.maxAttempts}` }),
        el("td", { className: last && last.outcome !== "success" ? "warn-text" : "" }, breakable(last ? last.outcome : "—")),
        el("td", { className: progress.error ? "error-text" : "" }, breakable(progress.error ? String(progress.error.code) : "—")),
      ),
    );
  }

  /** An OTP account imported, moved to its next code (HOTP) or deleted: the account, never its key or a code. */
  function otpAccount(change) {
    const account = change.account || {};
    const entry = { receivedAt: new Date().toISOString(), source: "otpAccount", otpAccount: change };
    add(
      entry,
      el(
        "tr",
        { className: "otp-row", dataset: { change: String(change.change || "") } },
        el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
        el("td", {}, el("span", { className: "flow-type", text: "OTP_ACCOUNT" }), " ", el("span", { className: "tag", text: String(account.kind || "") })),
        el("td", {}, el("span", { className: "badge", text: String(change.change || "").toUpperCase() })),
        el("td", { className: "otp-account-name", text: account.issuer ? `${account.issuer}: ${account.label}` : String(account.label || "") }),
        el("td", { text: account.kind === "hotp" ? `counter ${account.counter}` : `every ${account.period} s` }),
        el("td", { text: "—" }),
      ),
    );
  }

  /** A privacyIDEA enrolment or challenge where it stands (docs/privacyidea.md): its token, outcome or error. */
  function privacyIDEA(source, request) {
    const entry = { receivedAt: new Date().toISOString(), source, privacyIDEA: request };
    const error = request.error;
    add(
      entry,
      el(
        "tr",
        { className: "privacyidea-row", dataset: { kind: String(request.kind || ""), state: String(request.state || "") } },
        el("td", { className: "nowrap", text: formatTime(entry.receivedAt) }),
        el(
          "td",
          {},
          el("span", { className: "flow-type", text: "PRIVACYIDEA" }),
          " ",
          el("span", { className: "tag", text: String(request.kind || "").toLowerCase() }),
          source !== "privacyIDEA" ? el("span", { className: "tag", text: source }) : null,
        ),
        el("td", {}, el("span", { className: "badge state-" + String(request.state || "").toLowerCase() }, breakable(request.state || ""))),
        el("td", {}, el("code", { className: "privacyidea-serial", text: String(request.serial || "") })),
        el("td", { className: request.outcome && request.outcome !== "ENROLLED" && request.outcome !== "ACCEPTED" ? "warn-text" : "" }, breakable(request.outcome || "—")),
        el("td", { className: error ? "error-text" : "" }, breakable(error ? String(error.code || "ERROR") : "—")),
      ),
    );
  }

  downloadButton.addEventListener("click", () => {
    const data = JSON.stringify({ phoneId, exportedAt: new Date().toISOString(), entries: state.log }, null, 2);
    const blob = new Blob([data], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const a = el("a", { href: url, download: `authphone-flows-${shortId(phoneId)}-${stamp}.json`, className: "offscreen" });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  clearButton.addEventListener("click", () => {
    state.log = [];
    clear(body);
    empty.hidden = false;
  });

  return { flow, session, operation, otpAccount, privacyIDEA };
}
