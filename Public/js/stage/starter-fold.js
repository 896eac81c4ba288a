// The stage's session starter, folded to one line once it has started a session: the type, the
// user and the type's own text stay; "All options" unfolds the rest.
import { el } from "../api.js";

/** `section`: the starter's card. Returns {fold()}. */
export function createStarterFold(section) {
  const toggle = el("button", { className: "btn btn-ghost", type: "button", id: "starter-options", "aria-expanded": "true", text: "Fewer options" });
  section.querySelector(".form-actions").append(toggle);

  function show(folded) {
    section.toggleAttribute("data-folded", folded);
    toggle.setAttribute("aria-expanded", String(!folded));
    toggle.textContent = folded ? "All options" : "Fewer options";
  }
  toggle.addEventListener("click", () => show(!section.hasAttribute("data-folded")));

  return { fold: () => show(true) };
}
