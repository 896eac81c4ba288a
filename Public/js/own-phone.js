// "Use your phone" on the index page and the stage: the address of a simulated phone's page as a
// QR code for a real phone, with the access key, and the certificate authority that phone
// installs to trust the page (serve --tls). Read when the section is opened.
import { el, getJSON, clear, showError } from "./api.js";

const section = document.getElementById("own-phone");
const choice = document.getElementById("own-phone-choice");
const errorBox = document.getElementById("own-phone-error");

async function loadPhones() {
  try {
    const { phones } = await getJSON("/api/phones");
    const chosen = choice.value;
    clear(choice);
    for (const phone of phones) choice.appendChild(el("option", { value: phone.id, text: phone.name }));
    if (phones.some((phone) => phone.id === chosen)) choice.value = chosen;
    showError(errorBox, phones.length ? null : { code: "NO_PHONES", message: "Create a phone first." });
    await showLink();
  } catch (err) {
    showError(errorBox, err);
  }
}

async function showLink() {
  const id = choice.value;
  document.getElementById("own-phone-link").hidden = !id;
  document.getElementById("own-phone-trust").hidden = true;
  if (!id) return;
  const path = "/api/phones/" + encodeURIComponent(id) + "/link";
  const link = await getJSON(path);
  document.getElementById("own-phone-qr").src = path + "/qr.svg";
  const url = document.getElementById("own-phone-url");
  url.href = link.url;
  url.textContent = link.url;
  document.getElementById("own-phone-plain").hidden = link.secure;
  document.getElementById("own-phone-loopback").hidden = !link.loopbackOnly;
  document.getElementById("own-phone-trust").hidden = !link.certificateAuthority;
}

section.addEventListener("toggle", () => section.open && loadPhones());
choice.addEventListener("change", () => showLink().catch((err) => showError(errorBox, err)));
