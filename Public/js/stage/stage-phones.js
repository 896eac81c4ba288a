// The stage's phones: which phones stand on it (kept in the address as `?phones=id,id`), each
// its own phone page in a frame, put on or taken off with a click, and a new one made in one.
import { el, clear, postJSON, shortId, showError } from "../api.js";

/** `onChange()`: the phones on stage changed. Returns {first(), start(loadPhones)}. */
export function createStagePhones({ onChange }) {
  const byId = (id) => document.getElementById(id);
  const form = byId("stage-phone-form");
  const choice = byId("stage-phone-choice");
  const newButton = byId("stage-new-phone");
  const frames = byId("stage-frames");
  const empty = byId("stage-empty");
  const errorBox = byId("stage-error");

  let onStage = new URLSearchParams(location.search).get("phones")?.split(",").filter(Boolean) ?? [];
  let phones = []; // every phone, newest first
  let loadPhones = null;

  function remember() {
    const url = new URL(location.href);
    if (onStage.length) url.searchParams.set("phones", onStage.join(","));
    else url.searchParams.delete("phones");
    history.replaceState(null, "", url);
  }

  function frameOf(id) {
    const phone = phones.find((p) => String(p.id) === id);
    const frame = el("iframe", { src: `/phones/${encodeURIComponent(id)}?framed`, title: `Phone ${phone ? phone.name : id}` });
    const figure = el("figure", { className: "stage-phone", dataset: { phoneId: id } });
    // the phone page inside shows its device controls and flow log only while they are unfolded
    const showControls = (on) => {
      figure.toggleAttribute("data-controls", on);
      controls.setAttribute("aria-pressed", String(on));
      frame.contentDocument?.body?.toggleAttribute("data-controls", on);
    };
    const controls = el("button", { className: "btn btn-small btn-ghost stage-phone-controls", type: "button", text: "Device controls", title: "Show or hide the phone's device controls and flow log", "aria-pressed": "false" });
    controls.addEventListener("click", () => showControls(!figure.hasAttribute("data-controls")));
    frame.addEventListener("load", () => showControls(figure.hasAttribute("data-controls")));
    const close = el("button", { className: "btn btn-small btn-ghost stage-phone-off", type: "button", text: "Take off", title: "Take this phone off the stage" });
    close.addEventListener("click", () => {
      onStage = onStage.filter((other) => other !== id);
      render();
    });
    figure.append(el("figcaption", {}, el("strong", { text: phone ? phone.name : "Phone" }), " ", el("code", { className: "muted", text: shortId(id) }), controls, close), frame);
    return figure;
  }

  function render() {
    // frames already on stage keep running (and their WebSockets open)
    const shown = new Map([...frames.querySelectorAll(".stage-phone")].map((f) => [f.dataset.phoneId, f]));
    for (const [id, frame] of shown) if (!onStage.includes(id)) frame.remove();
    for (const id of onStage) frames.append(shown.get(id) || frameOf(id));
    empty.hidden = onStage.length > 0;
    clear(choice);
    for (const p of phones) {
      if (!onStage.includes(String(p.id))) choice.append(el("option", { value: String(p.id), text: `${p.name || "(unnamed)"} (${shortId(p.id)})` }));
    }
    // nothing to put on: no empty choice and no dead button beside New phone
    const none = choice.options.length === 0;
    choice.hidden = none;
    form.querySelector("#stage-show-phone").hidden = none;
    remember();
    onChange();
  }

  async function refresh() {
    try {
      phones = await loadPhones();
      render();
    } catch (err) {
      showError(errorBox, err);
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!choice.value) return;
    onStage = [...onStage, choice.value];
    render();
  });
  newButton.addEventListener("click", async () => {
    newButton.disabled = true;
    showError(errorBox, null);
    try {
      const phone = await postJSON("/api/phones", { name: `Stage phone ${phones.length + 1}` });
      onStage = [...onStage, String(phone.id)];
      await refresh();
    } catch (err) {
      showError(errorBox, err);
    } finally {
      newButton.disabled = false;
    }
  });

  return {
    /** The first phone on stage, which the session card sends to unless told otherwise. */
    first: () => onStage[0] || null,
    /** `loadPhones()`: a promise of every phone, newest first. With none named, the newest goes on stage. */
    async start(load) {
      loadPhones = load;
      await refresh();
      if (!onStage.length && phones.length) {
        onStage = [String(phones[0].id)];
        render();
      }
    },
  };
}
