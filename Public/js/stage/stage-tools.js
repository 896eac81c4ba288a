// The stage's recovery tools, so a demo goes on without leaving the stage: the administrator's
// unblocking of a user's PIN, a reset of the whole demo, (mounted by the page) the faults, and on
// a server with a manual clock (docs/recording.md) a minute on instead of waiting.
import { ApiError, formatDateTime, getJSON, postJSON, showError } from "../api.js";

/**
 * `userId()`: the user the presenter is showing (the starter's). `restart(phone)`: the demo
 * starts again with this one new phone on stage. Returns {sessionShown()}: the next session on
 * the card, after which a tool's note ("The PIN of … is unblocked") has said what it had to.
 */
export function createStageTools({ userId, restart }) {
  const byId = (id) => document.getElementById(id);
  const unblock = byId("stage-unblock");
  const reset = byId("stage-reset");
  const clock = byId("stage-clock");
  const note = byId("stage-note");
  const errorBox = byId("stage-error");

  async function run(button, work) {
    button.disabled = true;
    showError(errorBox, null);
    note.textContent = "";
    try {
      note.textContent = await work();
    } catch (err) {
      showError(errorBox, err);
    } finally {
      button.disabled = false;
    }
  }

  unblock.addEventListener("click", () =>
    run(unblock, async () => {
      const user = userId();
      if (!user) throw new ApiError("USER_REQUIRED", "Enter the user whose PIN to unblock in Start a session.");
      const answer = await postJSON("/api/backend/unblock-pin", { userId: user });
      return answer.unblockedDevices ? `The PIN of ${user} is unblocked: the phone can use it again.` : `The PIN of ${user} was not blocked.`;
    }),
  );

  // a second click resets: everything on stage goes
  reset.addEventListener("click", () => {
    if (reset.dataset.armed !== "true") {
      reset.dataset.armed = "true";
      reset.textContent = "Click again: erase everything";
      return;
    }
    run(reset, async () => {
      await postJSON("/api/reset");
      restart(await postJSON("/api/phones", { name: "Stage phone" }));
      return "";
    });
  });

  // only a server started with --clock manual moves its time
  getJSON("/api/clock")
    .then((state) => {
      clock.dataset.mode = state.mode;
      clock.hidden = state.mode !== "manual";
    })
    .catch((err) => showError(errorBox, err));
  clock.addEventListener("click", () =>
    run(clock, async () => {
      const moved = await postJSON("/api/clock", { advanceSeconds: 60 });
      return `The server's clock is a minute on: ${formatDateTime(moved.now)}.`;
    }),
  );

  return {
    sessionShown() {
      note.textContent = "";
    },
  };
}
