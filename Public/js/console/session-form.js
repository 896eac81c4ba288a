// The console's "Start a session" form: type, user, the fields each type takes, and for push
// delivery the phone to send to.
import { getJSON, postJSON, el, clear, shortId, showError } from "../api.js";

/** The backend's refusals that say the user has no account to answer with: the card's outcome, not a form error. */
const NO_ACCOUNT = new Set(["USER_NOT_ENROLLED", "ACCOUNT_NOT_FOUND"]);

/**
 * `onStarted(session)`: the server's answer; `onRefused(request, error)`: the backend will not
 * start it, as the user has no account; `preferredPhoneId()`: the phone a push goes to until
 * another is chosen (the one on stage), or null. Returns {loadPhones}: the phones, newest first (re-read).
 */
export function createSessionForm({ onStarted, onRefused, preferredPhoneId = () => null }) {
  const byId = (id) => document.getElementById(id);
  const form = byId("session-form");
  const typeSelect = byId("session-type");
  const userInput = byId("session-user");
  const displayNameInput = byId("session-display-name");
  const displayNameField = byId("display-name-field");
  const transactionField = byId("transaction-field");
  const transactionInput = byId("session-transaction");
  const accountField = byId("account-field");
  const accountInput = byId("session-account");
  const deliverySelect = byId("session-delivery");
  const pushPhoneField = byId("push-phone-field");
  const pushPhoneSelect = byId("session-push-phone");
  const pushPhoneHint = byId("push-phone-hint");
  const skipConfirmationField = byId("skip-confirmation-field");
  const skipConfirmationSelect = byId("session-skip-confirmation");
  const skipSecondFactorField = byId("skip-second-factor-field");
  const skipSecondFactorSelect = byId("session-skip-second-factor");
  const announceInput = byId("session-announce");
  const announceLogoInput = byId("session-announce-logo");
  const startButton = byId("start-session");
  const formError = byId("session-error");

  let phones = []; // Phone, newest first
  let phonesLoading = null;
  let pushPhonePicked = false; // chosen by hand: kept over the preferred phone

  function syncTypeFields() {
    const type = typeSelect.value;
    const show = (field, input, on) => {
      field.hidden = !on;
      input.disabled = !on;
    };
    show(displayNameField, displayNameInput, type === "enrol");
    show(transactionField, transactionInput, type === "transaction");
    show(accountField, accountInput, type !== "enrol");
    // seed 001: the configuration may skip these steps, per session or by the server flags' defaults
    show(skipConfirmationField, skipConfirmationSelect, type === "login" || type === "transaction");
    show(skipSecondFactorField, skipSecondFactorSelect, type === "login");
  }

  function syncDeliveryFields() {
    const push = deliverySelect.value === "push";
    pushPhoneField.hidden = !push;
    pushPhoneSelect.disabled = !push;
    if (push) loadPhones();
    syncPushPhoneHint();
  }

  function syncPushPhoneHint() {
    const enrol = typeSelect.value === "enrol";
    const all = pushPhoneSelect.value === "";
    let text = "";
    if (!phones.length) text = "No phones yet: create one on the Phones page.";
    else if (enrol && all) text = "An enrol push goes to one phone: choose it.";
    else if (all) text = "The push goes to every phone the user enrolled on.";
    pushPhoneHint.textContent = text;
    pushPhoneHint.hidden = !text;
  }

  function renderPhoneOptions() {
    const chosen = pushPhoneSelect.value;
    clear(pushPhoneSelect);
    pushPhoneSelect.append(el("option", { value: "", text: "All phones of this user (login only)" }));
    for (const p of phones) {
      if (typeof p.fcmToken !== "string" || !p.fcmToken) continue;
      pushPhoneSelect.append(el("option", { value: p.fcmToken, dataset: { phoneId: String(p.id) }, text: `${p.name || "(unnamed)"} (${shortId(p.id)})` }));
    }
    // keep the choice while that phone is still listed; none made yet, the preferred phone
    const preferred = phones.find((p) => String(p.id) === preferredPhoneId())?.fcmToken;
    const wanted = pushPhonePicked || !preferred ? chosen : preferred;
    pushPhoneSelect.value = [...pushPhoneSelect.options].some((o) => o.value === wanted) ? wanted : "";
    syncPushPhoneHint();
  }

  /** Reads the phones (again); when push is chosen and when the page comes back into view. */
  function loadPhones() {
    if (phonesLoading) return phonesLoading;
    phonesLoading = getJSON("/api/phones")
      .then((data) => {
        const list = Array.isArray(data && data.phones) ? data.phones.slice() : [];
        const time = (p) => {
          const t = new Date(p.createdAt).getTime();
          return Number.isNaN(t) ? 0 : t;
        };
        phones = list.sort((a, b) => time(b) - time(a));
        renderPhoneOptions();
      })
      .catch((err) => {
        pushPhoneHint.textContent = `Could not list the phones: ${err.code} ${err.message}`;
        pushPhoneHint.hidden = false;
      })
      .finally(() => {
        phonesLoading = null;
      })
      .then(() => phones);
    return phonesLoading;
  }

  typeSelect.addEventListener("change", syncTypeFields);
  syncTypeFields();
  deliverySelect.addEventListener("change", syncDeliveryFields);
  typeSelect.addEventListener("change", syncPushPhoneHint);
  pushPhoneSelect.addEventListener("change", () => {
    pushPhonePicked = true;
    syncPushPhoneHint();
  });
  // phones are created in other tabs: refresh the list when this one is looked at again
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && deliverySelect.value === "push") loadPhones();
  });
  syncDeliveryFields();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const type = typeSelect.value;
    const userId = userInput.value.trim();
    if (!userId) {
      showError(formError, { code: "USER_REQUIRED", message: "Enter a user id." });
      userInput.focus();
      return;
    }
    const body = { type, userId };
    const displayName = displayNameInput.value.trim();
    if (type === "enrol" && displayName) body.displayName = displayName;
    if (type === "transaction") {
      if (!transactionInput.value.trim()) {
        showError(formError, { code: "TRANSACTION_REQUIRED", message: "Enter the transaction text the user is to sign." });
        transactionInput.focus();
        return;
      }
      // sent as typed: the phone signs these exact characters
      body.transaction = transactionInput.value;
    }
    // the phone's announceInfo for this session (seed 001): "Key: value" lines and a logo
    const lines = announceInput.value.split("\n").filter((line) => line.trim());
    if (lines.length) {
      const entries = lines.map((line) => {
        const [key, value = ""] = line.split(/:(.*)/s);
        return [key.trim(), value.trim()];
      });
      const bad = entries.findIndex(([key, value]) => !key || !value);
      if (bad >= 0) {
        // the line as typed: a line "Key:" read back through the split would show "Key::"
        showError(formError, { code: "ANNOUNCE_INFO_LINE", message: `Write each announced line as "Key: value" (not "${lines[bad].trim()}").` });
        announceInput.focus();
        return;
      }
      body.announceInfo = Object.fromEntries(entries);
    }
    const logo = announceLogoInput.files && announceLogoInput.files[0];
    if (logo) body.announceLogo = await dataURL(logo);
    const accountId = accountInput.value.trim();
    if (type !== "enrol" && accountId) body.accountId = accountId;
    if (!skipConfirmationSelect.disabled && skipConfirmationSelect.value) body.skipConfirmation = skipConfirmationSelect.value === "true";
    if (!skipSecondFactorSelect.disabled && skipSecondFactorSelect.value) body.skipSecondFactor = skipSecondFactorSelect.value === "true";
    if (deliverySelect.value === "push") {
      body.delivery = "push";
      const token = pushPhoneSelect.value;
      if (token) body.pushToken = token;
      else if (type === "enrol") {
        showError(formError, { code: "PHONE_REQUIRED", message: "An enrol push goes to one phone: choose it." });
        pushPhoneSelect.focus();
        return;
      }
    }

    startButton.disabled = true;
    showError(formError, null);
    try {
      onStarted(await postJSON("/api/backend/sessions", body));
    } catch (err) {
      if (NO_ACCOUNT.has(err.code)) onRefused(body, err);
      else showError(formError, err);
    } finally {
      startButton.disabled = false;
    }
  });

  return { loadPhones };
}

/** A picture file as a data URL; the server checks its type and size. */
function dataURL(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
