// The stage: the console's session starter and live session card beside one or more phones,
// for a demo. The console's parts are mounted as they are (console/live-sessions.js, the faults
// form); each phone is its own page in a frame, with its own live screen. The phones on stage
// are in the address (`?phones=id,id`), so a stage can be bookmarked.
import { api } from "./api.js";
import { initFaultsForm } from "./console/faults-form.js";
import { mountLiveSessions } from "./console/live-sessions.js";
import { mountRecordingControl } from "./recording-control.js";
import { createStagePhones } from "./stage/stage-phones.js";
import { createStageTools } from "./stage/stage-tools.js";
import { createStarterFold } from "./stage/starter-fold.js";

const starter = createStarterFold(document.getElementById("session-starter"));
const phones = createStagePhones({ onChange: () => live.toPhone.refresh() });
const tools = createStageTools({
  userId: () => document.getElementById("session-user").value.trim(),
  // the stage as new: its address names only the new phone
  restart: (phone) => location.replace(`/stage?phones=${encodeURIComponent(phone.id)}`),
});
const live = mountLiveSessions({
  preferredPhoneId: phones.first,
  onShown: (id) => {
    starter.fold(id);
    tools.sessionShown();
  },
  streamBadge: document.getElementById("stream-status"),
  errorBox: document.getElementById("session-error"),
});
phones.start(live.loadPhones);
initFaultsForm(live.loadPhones);
// the walk recorded from the bar; once stopped, its menu shows what there is to download
const recordingsMenu = document.getElementById("stage-recordings");
mountRecordingControl(document.getElementById("stage-recording"), {
  api,
  list: document.getElementById("stage-recording-list"),
  errorBox: document.getElementById("stage-error"),
  onStopped: () => {
    recordingsMenu.open = true;
  },
});
// the bar's menu opens your own phone's section (which reads the phones as it opens)
const ownPhoneMenu = document.getElementById("stage-own-phone");
ownPhoneMenu.addEventListener("toggle", () => {
  if (ownPhoneMenu.open) document.getElementById("own-phone").open = true;
});

