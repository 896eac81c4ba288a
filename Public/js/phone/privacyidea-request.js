// The privacyIDEA request on the phone's screen (docs/privacyidea.md), kept in state.privacyIDEA:
// what the WebSocket says of it, what a request that started one answered, and what the server
// holds after a (re)connect (the phone snapshot's `privacyIDEA`); and whether the user went Home
// from it, remembered across reloads.
import { readDismissedRequest, writeDismissedRequest } from "./storage.js";

/** One request: the enrolment of a serial, or a challenge (by its nonce). */
const identity = (r) => [r.kind, r.serial, r.nonce ?? ""].join(":");
/** Where a request stands: what the user went Home from. */
const standing = (r) => JSON.stringify([identity(r), r.state, r.outcome ?? null, r.error ? r.error.code : null]);

/**
 * `context`: state, phoneId, and onChange(source, request), called with each request shown (null:
 * the server holds none any more). Returns {receive, started, snapshot, isShown, dismiss}.
 */
export function createPrivacyIDEARequest({ state, phoneId, onChange }) {
  let dismissed = readDismissedRequest(phoneId);

  function show(source, request) {
    state.privacyIDEA = request;
    state.lastOnScreen = "privacyIDEA";
    onChange(source, request);
  }

  function setDismissed(key) {
    dismissed = key;
    writeDismissedRequest(phoneId, key);
  }

  return {
    /** A WebSocket update: news, so shown even when it stands where the user left one. */
    receive(request) {
      setDismissed(null);
      show("privacyIDEA", request);
    },

    /** What a request answered (a scan, a poll, an opened push): only a request the socket has not shown. */
    started(source, request) {
      if (!state.privacyIDEA || identity(state.privacyIDEA) !== identity(request)) show(source, request);
    },

    /** The request the server holds, from the snapshot sent on connect (null: none). */
    snapshot(request) {
      if (request && state.privacyIDEA && standing(state.privacyIDEA) === standing(request)) return;
      if (request) {
        show("snapshot", request);
      } else if (state.privacyIDEA) {
        // the server no longer holds it (it restarted)
        state.privacyIDEA = null;
        onChange("snapshot", null);
      }
    },

    /** Whether the screen has it to show: there is one, and the user did not go Home from it. */
    isShown: () => Boolean(state.privacyIDEA) && standing(state.privacyIDEA) !== dismissed,

    /** "Home" on a finished request: the one on screen, or the one given. */
    dismiss(request = state.privacyIDEA) {
      if (request) setDismissed(standing(request));
    },
  };
}
