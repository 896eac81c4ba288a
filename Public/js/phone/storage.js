// What this tab remembers about its phone across reloads (sessionStorage): the final flow and the
// final privacyIDEA request the user went Home from, and the notifications the banner no longer
// announces. Storage may be unavailable: then it is remembered in memory only, by the caller's state.

const dismissedKey = (phoneId) => "authphone.dismissedFlow." + phoneId;
const dismissedRequestKey = (phoneId) => "authphone.dismissedPrivacyIDEA." + phoneId;
const seenPushesKey = (phoneId) => "authphone.seenPushes." + phoneId;

function read(key) {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keeps `value`, or forgets the key for none. */
function write(key, value) {
  try {
    if (value) sessionStorage.setItem(key, value);
    else sessionStorage.removeItem(key);
  } catch {
    // storage unavailable: kept in memory only
  }
}

export const readDismissedFlow = (phoneId) => read(dismissedKey(phoneId));
export const writeDismissedFlow = (phoneId, id) => write(dismissedKey(phoneId), id);
export const readDismissedRequest = (phoneId) => read(dismissedRequestKey(phoneId));
export const writeDismissedRequest = (phoneId, key) => write(dismissedRequestKey(phoneId), key);

export function readSeenPushes(phoneId) {
  try {
    const list = JSON.parse(read(seenPushesKey(phoneId)) || "[]");
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

export function writeSeenPushes(phoneId, ids) {
  write(seenPushesKey(phoneId), JSON.stringify([...ids]));
}
