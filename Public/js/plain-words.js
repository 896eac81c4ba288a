// What the audience reads: a code of the SDK or the backend in plain words, the code itself
// behind a "Details" toggle for QA (api.js codeDetails). The phone's screens and the console's
// session card read the same table, so a code says the same on both.

/** A code's plain words: the phone's error titles and the card's failures. */
export const PLAIN_WORDS = {
  USER_CANCELED: "Cancelled",
  PIN_BLOCKED: "PIN blocked after too many wrong tries",
  PIN_LOCKED: "PIN locked after too many wrong tries",
  SESSION_EXPIRED: "Request expired",
  TOKEN_EXPIRED: "Request expired",
  USER_NOT_ENROLLED: "No account for this user",
  ACCOUNT_NOT_FOUND: "No such account",
  NETWORK_ERROR: "Can't reach the server",
  SERVER_CONNECTION_ERROR: "Can't reach the server",
  SERVER_TIMEOUT: "The server did not answer in time",
  PUSH_CHALLENGE_FORGED: "This request is not signed by privacyIDEA: refused",
};

/** A backend session's status as a person says it. */
export const STATUS_WORDS = {
  pending: "waiting",
  redeemed: "opened on the phone",
  confirmed: "confirmed",
  verified: "verified",
  enrolled: "enrolled",
  loggedin: "logged in",
  signed: "signed",
  completed: "completed",
  failed: "failed",
  canceled: "cancelled",
  expired: "expired",
  refused: "refused",
};

/** The plain words for `code`, or `fallback` when the table has none. */
export function plainWords(code, fallback) {
  return PLAIN_WORDS[code] ?? fallback;
}
