// A backend's visual hash as a person compares it: 16 colours and a fingerprint. The phone's
// enrolment screen and the console's session card draw it alike, so the two can be compared.
import { el } from "./api.js";

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** `visualHash`: {colors, fingerprint}; `id`: the grid's id (the fingerprint's is `${id}-fingerprint`). */
export function visualHashView(visualHash, id) {
  const vh = visualHash || {};
  const colors = Array.isArray(vh.colors) ? vh.colors.slice(0, 16) : [];
  const grid = el("div", { id, className: "visual-hash", role: "img", "aria-label": "Visual hash of the server key" });
  for (let i = 0; i < 16; i++) {
    const cell = el("span", { className: "vh-cell" });
    const c = colors[i];
    if (typeof c === "string" && HEX_COLOR.test(c)) {
      cell.style.backgroundColor = c;
      cell.dataset.color = c;
    }
    grid.appendChild(cell);
  }
  return el("div", { className: "visual-hash-box" }, grid, el("p", { id: `${id}-fingerprint`, className: "fingerprint", text: vh.fingerprint || "" }));
}
