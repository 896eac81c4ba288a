// Faults on demand, from the console: make the network fail on purpose (backend, push service, SMS
// gateway or one phone), and the list of those in force, kept current while the page is looked at.
import { api, getJSON, postJSON, el, clear, shortId, formatDateTime, showError } from "../api.js";

/** `loadPhones()`: resolves to the phones, newest first (for a fault on one phone). */
export function initFaultsForm(loadPhones) {
  const byId = (id) => document.getElementById(id);
  const form = byId("fault-form");
  const target = byId("fault-target");
  const phoneField = byId("fault-phone-field");
  const phoneSelect = byId("fault-phone");
  const kind = byId("fault-kind");
  const list = byId("faults");
  const empty = byId("faults-empty");
  const errorBox = byId("fault-error");
  const numberOf = (id) => {
    const v = byId(id).value.trim();
    return v === "" ? undefined : Number(v);
  };

  function syncFields() {
    const phone = target.value === "phone";
    phoneField.hidden = !phone;
    phoneSelect.disabled = !phone;
    if (phone) {
      loadPhones().then((phones) => {
        const chosen = phoneSelect.value;
        clear(phoneSelect);
        for (const p of phones) phoneSelect.append(el("option", { value: String(p.id), text: `${p.name || "(unnamed)"} (${shortId(p.id)})` }));
        if ([...phoneSelect.options].some((o) => o.value === chosen)) phoneSelect.value = chosen;
      });
    }
    for (const param of form.querySelectorAll(".fault-param")) param.hidden = !param.dataset.kind.split(" ").includes(kind.value);
  }

  // Redrawn only when the faults change, so a row (and its Remove button) is not swapped out
  // under a click by the two-second refresh.
  let shown = null;
  function render(faults) {
    const key = JSON.stringify(faults);
    if (key === shown) return;
    shown = key;
    clear(list);
    empty.hidden = faults.length > 0;
    for (const f of faults) {
      const remove = el("button", { type: "button", className: "btn btn-small fault-remove", text: "Remove" });
      remove.addEventListener("click", async () => {
        try {
          await api("/api/faults/" + encodeURIComponent(f.id), { method: "DELETE" });
        } catch (err) {
          showError(errorBox, err);
        }
        load();
      });
      list.append(
        el(
          "li",
          { className: "fault-row", dataset: { faultId: String(f.id), kind: String(f.kind) } },
          el("span", { className: "fault-text", text: f.description + (f.phoneId ? ` (phone ${shortId(f.phoneId)})` : "") }),
          el("span", { className: "muted", text: "until " + formatDateTime(f.expiresAt) }),
          remove,
        ),
      );
    }
  }

  async function load() {
    try {
      const data = await getJSON("/api/faults");
      render(Array.isArray(data && data.faults) ? data.faults : []);
    } catch (err) {
      showError(errorBox, err);
    }
  }

  target.addEventListener("change", syncFields);
  kind.addEventListener("change", syncFields);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { target: target.value, kind: kind.value, count: numberOf("fault-count"), seconds: numberOf("fault-seconds") };
    if (body.target === "phone") body.phoneId = phoneSelect.value;
    if (body.kind === "status") Object.assign(body, { status: numberOf("fault-status"), retryAfter: numberOf("fault-retry-after") });
    if (body.kind === "latency") Object.assign(body, { minimumMs: numberOf("fault-min-ms"), maximumMs: numberOf("fault-max-ms") });
    if (body.kind === "delayPush" || body.kind === "delayText") body.delaySeconds = numberOf("fault-delay");
    showError(errorBox, null);
    try {
      await postJSON("/api/faults", body);
    } catch (err) {
      showError(errorBox, err);
    }
    load();
  });
  byId("faults-clear").addEventListener("click", async () => {
    await api("/api/faults", { method: "DELETE" }).catch((err) => showError(errorBox, err));
    load();
  });
  syncFields();
  load();
  // faults clear themselves: keep the list current while the page is looked at
  setInterval(() => {
    if (document.visibilityState === "visible") load();
  }, 2000);
}
