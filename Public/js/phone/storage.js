// What this tab remembers about its phone across reloads (sessionStorage): the final flow the
// user went Home from, and the notifications the banner no longer announces. Storage may be
// unavailable: then it is remembered in memory only, by the caller's state.

const dismissedKey = (phoneId) => "authphone.dismissedFlow." + phoneId;
const seenPushesKey = (phoneId) => "authphone.seenPushes." + phoneId;

export function readDismissedFlow(phoneId) {
  try {
    return sessionStorage.getItem(dismissedKey(phoneId));
  } catch {
    return null;
  }
}

export function writeDismissedFlow(phoneId, id) {
  try {
    if (id) sessionStorage.setItem(dismissedKey(phoneId), id);
    else sessionStorage.removeItem(dismissedKey(phoneId));
  } catch {
    // storage unavailable: kept in memory only
  }
}

export function readSeenPushes(phoneId) {
  try {
    const list = JSON.parse(sessionStorage.getItem(seenPushesKey(phoneId)) || "[]");
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

export function writeSeenPushes(phoneId, ids) {
  try {
    sessionStorage.setItem(seenPushesKey(phoneId), JSON.stringify([...ids]));
  } catch {
    // storage unavailable: kept in memory only
  }
}
