// The session card's visual hash: beside an enrolment that waits for its phone, the colours and
// fingerprint of the backend that the phone asks its user to compare with the website.
import { clear, el, getJSON } from "../api.js";
import { visualHashView } from "../visual-hash.js";
import { STATUS_RANK } from "./session-labels.js";

/** Returns {show(session)}. The backend's hash is read once, when the first enrolment shows. */
export function createSessionVisualHash() {
  const box = document.getElementById("session-visual-hash");
  let server = null; // a promise of the backend's identity

  return {
    show(s) {
      const shown = s.type === "enrol" && (STATUS_RANK[s.status] ?? 0) < 3; // until it has ended
      box.hidden = !shown;
      if (!shown || box.dataset.sessionId === String(s.id)) return;
      box.dataset.sessionId = String(s.id);
      server ??= getJSON("/api/backend/server");
      server.then(
        (identity) => {
          clear(box);
          box.append(
            el("p", { className: "field-label", text: "The phone asks to compare these colours and this fingerprint" }),
            visualHashView(identity.visualHash, "session-visual-hash-grid"),
          );
        },
        (err) => {
          server = null; // read again with the next session
          clear(box);
          box.append(el("p", { className: "error", text: `The backend's visual hash could not be read: ${err.message}` }));
        },
      );
    },
  };
}
