// Index page: list the phones, create a new one, delete one.
import { api, getJSON, postJSON, el, clear, shortId, formatDateTime, showError } from "./api.js";
import { confirmButton } from "./phone/controls.js";

const list = document.getElementById("phones");
const empty = document.getElementById("phones-empty");
const listError = document.getElementById("phones-error");
const form = document.getElementById("new-phone-form");
const nameInput = document.getElementById("new-phone-name");
const createButton = document.getElementById("create-phone");
const formError = document.getElementById("new-phone-error");
const refreshButton = document.getElementById("refresh-phones");

function phonePath(id) {
  return "/phones/" + encodeURIComponent(id);
}

// What the shared buttons report a failure to when their own box is gone.
const listView = { toast: { show: (code, message) => showError(listError, { code, message }) } };

function deleteButton(phone) {
  return confirmButton(listView, "delete-phone-" + phone.id, "Delete", "Tap again: delete this phone", listError, async () => {
    await api("/api/phones/" + encodeURIComponent(phone.id), { method: "DELETE" });
    await loadPhones();
  });
}

function renderPhones(phones) {
  clear(list);
  empty.hidden = phones.length > 0;
  for (const phone of phones) {
    const device = phone.deviceId ? shortId(phone.deviceId) : "";
    list.appendChild(
      el(
        "li",
        { className: "phone-item", dataset: { phoneId: String(phone.id) } },
        el(
          "a",
          { className: "phone-link", href: phonePath(phone.id) },
          el("span", { className: "phone-icon", "aria-hidden": "true" }),
          el(
            "span",
            { className: "phone-item-main" },
            el("span", { className: "phone-name", text: phone.name || "(unnamed)" }),
            el("span", { className: "phone-sub muted" }, device ? "device " : "", device ? el("code", { text: device, title: String(phone.deviceId) }) : ""),
          ),
          el("span", { className: "phone-created muted small", text: formatDateTime(phone.createdAt) }),
          el("span", { className: "chevron", "aria-hidden": "true", text: "›" }),
        ),
        deleteButton(phone),
      ),
    );
  }
}

async function loadPhones() {
  try {
    const data = await getJSON("/api/phones");
    const phones = Array.isArray(data && data.phones) ? data.phones.slice() : [];
    const time = (p) => {
      const t = new Date(p.createdAt).getTime();
      return Number.isNaN(t) ? 0 : t;
    };
    phones.sort((a, b) => time(b) - time(a)); // newest first
    showError(listError, null);
    renderPhones(phones);
  } catch (err) {
    showError(listError, err);
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = nameInput.value.trim();
  if (!name) {
    showError(formError, { code: "NAME_REQUIRED", message: "Give the phone a name." });
    nameInput.focus();
    return;
  }
  createButton.disabled = true;
  showError(formError, null);
  try {
    const phone = await postJSON("/api/phones", { name });
    location.assign(phonePath(phone.id));
  } catch (err) {
    showError(formError, err);
    createButton.disabled = false;
  }
});

refreshButton.addEventListener("click", loadPhones);

loadPhones();
