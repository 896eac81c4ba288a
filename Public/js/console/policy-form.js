// The Second Factor Server's wrong-PIN policy on the console: a preset or custom numbers.
import { getJSON, putJSON, showError, flashLabel } from "../api.js";

function describePolicy(p) {
  const waits = (p.penalties || []).map((s, i) => (s > 0 ? `${s} s after ${i + 1}` : null)).filter(Boolean);
  return `In force: blocked at failure ${p.maxAttempts}` + (waits.length ? `; waits ${waits.join(", ")}` : "; no waits");
}

/** "0, 0, 60" -> [0, 0, 60]; anything but whole seconds is the server's to refuse, by name. */
function parsePenalties(text) {
  const parts = text.split(/[\s,;]+/).filter((t) => t !== "");
  return parts.map((t) => (/^\d+$/.test(t) ? Number(t) : NaN));
}

export function initPolicyForm() {
  const byId = (id) => document.getElementById(id);
  const form = byId("policy-form");
  const preset = byId("policy-preset");
  const max = byId("policy-max-attempts");
  const penalties = byId("policy-penalties");
  const current = byId("policy-current");
  const errorBox = byId("policy-error");
  const save = byId("policy-save");
  let presets = {};

  function showPolicy(p) {
    presets = p.presets || {};
    preset.value = p.preset || "custom";
    max.value = String(p.maxAttempts);
    penalties.value = (p.penalties || []).join(", ");
    current.textContent = describePolicy(p);
    form.dataset.preset = p.preset || "custom";
    syncFields();
  }

  /** A preset's numbers are shown but fixed; Custom makes them editable. */
  function syncFields() {
    const chosen = presets[preset.value];
    const custom = !chosen;
    if (chosen) {
      max.value = String(chosen.maxAttempts);
      penalties.value = chosen.penalties.join(", ");
    }
    max.readOnly = !custom;
    penalties.readOnly = !custom;
  }

  preset.addEventListener("change", syncFields);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let body;
    if (presets[preset.value]) {
      body = { preset: preset.value };
    } else {
      const waits = parsePenalties(penalties.value);
      if (waits.some(Number.isNaN)) {
        showError(errorBox, { code: "INVALID_FIELD", message: "Waits are whole seconds, separated by commas." });
        penalties.focus();
        return;
      }
      body = { maxAttempts: Number(max.value), penalties: waits };
    }
    save.disabled = true;
    showError(errorBox, null);
    try {
      showPolicy(await putJSON("/api/backend/second-factor-policy", body));
      flashLabel(save, "Applied");
    } catch (err) {
      showError(errorBox, err);
    } finally {
      save.disabled = false;
    }
  });

  getJSON("/api/backend/second-factor-policy")
    .then(showPolicy)
    .catch((err) => showError(errorBox, err));
}
