// The phone's real camera: "Scan" shows the rear camera's preview and reads a few frames a
// second, with the browser's BarcodeDetector where it has one and else by sending a small frame
// to the server's own QR decoder; the first code starts its operation, as pasting it would, and
// the camera stops. A page that may not use a camera says why and leaves the paste box.
import { el, postFile, postJSON, showError } from "../api.js";

/** Frames a second looked at, and the width a frame is shrunk to before it is sent. */
const FRAME_INTERVAL_MS = 300;
const SENT_FRAME_WIDTH = 640;

/** Why there is no camera, said for a person; each ends by pointing at the paste box. */
const PASTE_INSTEAD = " Paste the QR text below instead.";
const REFUSALS = {
  CAMERA_INSECURE: "The camera works only on a secure page: open this phone over HTTPS (authphone serve --tls).",
  CAMERA_REFUSED: "The camera was refused: allow it for this site in the browser's settings.",
  NO_CAMERA: "This device has no camera the page can use.",
};

/**
 * `view`: phonePath(suffix), showStartedFlow(source, answer); `paste`: the paste box, offered when
 * there is no camera; `bodyOf(text)`: a code's text as `POST …/oob` takes it. Returns the nodes.
 */
export function cameraScanner(view, errorBox, paste, bodyOf) {
  const button = el("button", { id: "camera-scan", type: "button", className: "btn btn-block", text: "Scan with the camera" });
  const video = el("video", { id: "camera-preview", className: "camera-preview", autoplay: true, muted: true, playsinline: true });
  video.muted = true; // a muted video may play without a tap
  const status = el("p", { id: "camera-status", className: "hint", role: "status" });
  const stop = el("button", { id: "camera-stop", type: "button", className: "btn btn-small", text: "Stop" });
  const panel = el("div", { id: "camera-panel", className: "camera-panel", hidden: true }, video, status, stop);
  let scan = null;

  function refuse(code, detail) {
    showError(errorBox, { code, message: REFUSALS[code] + (detail ? ` (${detail})` : "") + PASTE_INSTEAD });
    paste.focus();
  }

  async function start() {
    showError(errorBox, null);
    if (!window.isSecureContext) return refuse("CAMERA_INSECURE");
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return refuse("NO_CAMERA");
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" } }, audio: false });
    } catch (err) {
      const refused = err && (err.name === "NotAllowedError" || err.name === "SecurityError");
      return refuse(refused ? "CAMERA_REFUSED" : "NO_CAMERA", err && err.message);
    }
    video.srcObject = stream;
    panel.hidden = false;
    button.disabled = true;
    status.textContent = "Point the camera at the QR code.";
    scan = { stream, timer: null, detector: await barcodeDetector() };
    await video.play().catch(() => {});
    look(scan);
  }

  function end() {
    if (!scan) return;
    clearTimeout(scan.timer);
    scan.stream.getTracks().forEach((track) => track.stop());
    scan = null;
    video.srcObject = null;
    panel.hidden = true;
    button.disabled = false;
  }

  /** One frame, then the next after a pause, until a code starts an operation or the scan ends. */
  async function look(current) {
    if (scan !== current) return;
    try {
      const answer = await read(current);
      if (answer && scan === current) {
        end();
        view.showStartedFlow("camera", answer);
        return;
      }
    } catch (err) {
      // a code was found but is no AuthPhone code (or its operation cannot start): say so and stop
      end();
      showError(errorBox, err);
      return;
    }
    if (scan === current) current.timer = setTimeout(() => look(current), FRAME_INTERVAL_MS);
  }

  /** The operation a frame's code started, or null when the frame holds no code. */
  async function read(current) {
    if (video.readyState < 2 || !video.videoWidth) return null;
    if (current.detector) {
      const codes = await current.detector.detect(video);
      return codes.length ? postJSON(view.phonePath("/oob"), bodyOf(codes[0].rawValue)) : null;
    }
    // a frame without a code answers 204 (null here), no error: a camera sends many
    return postFile(view.phonePath("/oob/image?frame"), await frame());
  }

  function frame() {
    const scale = Math.min(1, SENT_FRAME_WIDTH / video.videoWidth);
    const canvas = el("canvas", { width: String(Math.round(video.videoWidth * scale)), height: String(Math.round(video.videoHeight * scale)) });
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
  }

  button.addEventListener("click", start);
  stop.addEventListener("click", end);
  // a hidden page gives the camera back
  document.addEventListener("visibilitychange", () => document.hidden && end());
  return [button, panel];
}

/** The browser's own QR reader, where it has one that reads QR codes. */
async function barcodeDetector() {
  if (!("BarcodeDetector" in window)) return null;
  try {
    const formats = await window.BarcodeDetector.getSupportedFormats();
    return formats.includes("qr_code") ? new window.BarcodeDetector({ formats: ["qr_code"] }) : null;
  } catch {
    return null;
  }
}
