// What the push composer sends, without the page: the FCM v1 request a form's state makes, the
// `curl` and `authphone push` lines for it, a session's payload as a push's data map, and FCM's
// answer read back (its error, and the rule the server names in its refusal).

/** Path of the FCM v1 send route for a project. */
export const sendPath = (project) => `/v1/projects/${encodeURIComponent(project)}/messages:send`;

/** The target fields an FCM message may carry (and `fid`, which a send may name too). */
export const TARGET_FIELDS = ["token", "fid", "topic", "condition"];

/** A session's QR text (base64url JSON) as the payload object `{nma_data, …}`; null when it is not one. */
export function payloadOf(qrText) {
  try {
    const b64 = String(qrText).replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(b64 + "===".slice((b64.length + 3) % 4)), (c) => c.charCodeAt(0));
    const payload = JSON.parse(new TextDecoder().decode(bytes));
    return payload && typeof payload.nma_data === "object" ? payload : null;
  } catch {
    return null;
  }
}

/** The data map a backend pushes for a payload: `nma_data` travels as JSON text. */
export function pushDataFor(payload) {
  return {
    nma_data: JSON.stringify(payload.nma_data),
    nma_data_content_type: String(payload.nma_data_content_type),
    nma_data_version: String(payload.nma_data_version),
  };
}

/**
 * The send requests a composed message makes: one per phone token (a multicast is one send per
 * token, as the Admin SDK's sendEachForMulticast does), or one when no phone is chosen. Extra
 * target fields are added as typed, so a message with two targets can be tried.
 * `draft`: {tokens: [..], targets: [{field, value}], message: {…without targets}, validateOnly}.
 */
export function sendRequests(draft) {
  const extra = {};
  for (const t of draft.targets || []) if (t.value !== "") extra[t.field] = t.value;
  const tokens = draft.tokens && draft.tokens.length ? draft.tokens : [null];
  return tokens.map((token) => {
    const message = { ...(token === null ? {} : { token }), ...extra, ...draft.message };
    const body = { message };
    if (draft.validateOnly) body.validate_only = true;
    return body;
  });
}

const shellQuote = (text) => "'" + String(text).replace(/'/g, "'\\''") + "'";

/** A `curl` line that posts the request as an outside sender would (its bearer from the environment). */
export function curlLine(origin, project, body, { bearer = false } = {}) {
  const auth = bearer ? ' -H "Authorization: Bearer $AUTHPHONE_PUSH_TOKEN"' : "";
  return `curl -sS -X POST ${shellQuote(origin + sendPath(project))} -H 'Content-Type: application/json'${auth} -d ${shellQuote(JSON.stringify(body))}`;
}

/** An `authphone push` line for the same request; null when it names no token (the command sends to one). */
export function cliLine(origin, project, body) {
  const token = body.message && body.message.token;
  if (typeof token !== "string") return null;
  const flags = [`--server ${shellQuote(origin)}`, `--project ${shellQuote(project)}`, `--token ${shellQuote(token)}`];
  if (body.validate_only) flags.push("--validate-only");
  const { token: _, ...message } = body.message;
  return `echo ${shellQuote(JSON.stringify({ message }))} | authphone push ${flags.join(" ")}`;
}

/**
 * FCM's answer as the composer shows it: {ok, name} or {ok: false, code, status, errorCode, message,
 * rule}; `rule` is the text of the broken rule the server's refusal names (google.rpc.BadRequest).
 */
export function readAnswer(status, text) {
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: shown as text
  }
  if (status >= 200 && status < 300 && json && typeof json.name === "string") return { ok: true, status, name: json.name };
  const error = (json && json.error) || {};
  const details = Array.isArray(error.details) ? error.details : [];
  const fcm = details.find((d) => d && typeof d.errorCode === "string");
  const violations = details.flatMap((d) => (d && Array.isArray(d.fieldViolations) ? d.fieldViolations : []));
  return {
    ok: false,
    status,
    code: error.code ?? status,
    errorStatus: error.status ?? "",
    // the doors answer in this server's own shape ({"code": "ACCESS_KEY_REQUIRED", …}) before FCM's route does
    errorCode: fcm ? fcm.errorCode : typeof error.code === "string" ? error.code : error.status ?? `HTTP_${status}`,
    message: error.message ?? text,
    rule: violations.map((v) => v.description).join(" ") || null,
  };
}
