// The stage: the console's session starter and live session card beside one or more phones,
// for a demo. The console's parts are mounted as they are (console/live-sessions.js); each
// phone is its own page in a frame, with its own live screen. The phones on stage are in the
// address (`?phones=id,id`), so a stage can be bookmarked.
import { mountLiveSessions } from "./console/live-sessions.js";
import { createStagePhones } from "./stage/stage-phones.js";
import { createStarterFold } from "./stage/starter-fold.js";

const starter = createStarterFold(document.getElementById("session-starter"));
const phones = createStagePhones({ onChange: () => live.toPhone.refresh() });
const live = mountLiveSessions({
  preferredPhoneId: phones.first,
  onShown: starter.fold,
  streamBadge: document.getElementById("stream-status"),
  errorBox: document.getElementById("session-error"),
});
phones.start(live.loadPhones);
