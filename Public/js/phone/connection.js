// The phone's WebSocket to the server: kept open (reconnecting), shown by the status bar's dot.
// A connection that never opens may mean the phone does not exist: the API is asked, and a 404
// stops the socket and is handed to onNotFound.
import { ReconnectingSocket, getJSON } from "../api.js";

/** `handlers`: onMessage(msg), onOpen(), onNotFound(err). Returns {send, restart, isOpen}. */
export function connect(phoneId, indicator, state, { onMessage, onOpen, onNotFound }) {
  let diagnosing = false;

  function showStatus(status) {
    document.body.dataset.connection = status;
    indicator.dataset.state = status;
    const label = status === "open" ? "connected" : status === "connecting" ? "connecting…" : "disconnected, reconnecting…";
    indicator.title = label;
    indicator.setAttribute("aria-label", label);
  }

  function onClose(info) {
    if (info.opened || diagnosing || state.notFound) return;
    diagnosing = true;
    getJSON("/api/phones/" + encodeURIComponent(phoneId))
      .then(() => {})
      .catch((err) => {
        if (err.code === "PHONE_NOT_FOUND" || err.status === 404) {
          socket.stop();
          onNotFound(err);
        }
      })
      .finally(() => {
        diagnosing = false;
      });
  }

  const socket = new ReconnectingSocket("/api/phones/" + encodeURIComponent(phoneId) + "/stream", {
    onMessage,
    onOpen,
    onClose,
    onStatus: showStatus,
  });

  return {
    /** Sends an action; false when the socket is not open. */
    send: (action) => socket.send(action),
    restart: () => socket.restart(),
    get isOpen() {
      return socket.isOpen;
    },
  };
}
