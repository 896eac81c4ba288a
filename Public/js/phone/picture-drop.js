// The camera by hand: a picture of a QR code dropped onto the phone, or pasted while its page
// has the focus, is scanned as "Scan a picture of a QR code…" would scan it.
import { postFile } from "../api.js";

function pictureIn(files) {
  return [...(files || [])].find((file) => file.type.startsWith("image/")) || null;
}

/** `target`: the phone's element; `app`: {phonePath, showStartedFlow, toast}. */
export function acceptPictures(target, app) {
  async function scan(file) {
    target.dataset.scanning = "true";
    try {
      app.showStartedFlow("image", await postFile(app.phonePath("/oob/image"), file));
    } catch (err) {
      app.toast.show(err.code || "ERROR", err.message);
    } finally {
      delete target.dataset.scanning;
    }
  }

  target.addEventListener("dragover", (event) => {
    if (![...event.dataTransfer.items].some((item) => item.kind === "file")) return;
    event.preventDefault(); // allows the drop
    target.dataset.dropping = "true";
  });
  target.addEventListener("dragleave", () => delete target.dataset.dropping);
  target.addEventListener("drop", (event) => {
    delete target.dataset.dropping;
    const file = pictureIn(event.dataTransfer && event.dataTransfer.files);
    if (!file) return;
    event.preventDefault();
    scan(file);
  });
  document.addEventListener("paste", (event) => {
    const file = pictureIn(event.clipboardData && event.clipboardData.files);
    if (!file) return; // text goes where it is pasted
    event.preventDefault();
    scan(file);
  });
}
