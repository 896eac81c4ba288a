// The phone's inbox: pushes waiting to be opened, shown by the banner over the screen and as a
// list on the home screen.
//
// The stream replays the inbox on connect, then sends each new push (the same id may come twice)
// and each push opened. The page removes what it cleared itself, and re-reads the inbox (sync)
// after a reconnect and when the tab becomes visible again.
import { api, getJSON, postJSON, el, clear, toDate } from "../api.js";
import { inboxContent } from "./inbox-list.js";
import { createPushBanner } from "./push-banner.js";
import { writeSeenPushes } from "./storage.js";

/**
 * `bannerParts`: the banner's elements. `context`: state, phoneId, phonePath(suffix), toast,
 * showStartedFlow(source, answer), onNewPush() (a push the banner announces arrived).
 * Returns {add, opened, receive, sync, render, section}.
 */
export function createInbox(bannerParts, { state, phoneId, phonePath, toast, showStartedFlow, onNewPush }) {
  const inboxPath = () => phonePath("/inbox");
  const renderBanner = createPushBanner(bannerParts, state, {
    open,
    dismiss: () => {
      markAllSeen();
      renderBanner(newestFirst());
    },
  });
  let renderTimer = null;
  let syncing = false;
  let syncAgain = false;
  let shownSection = null; // the home screen's list, while it is on the screen
  let shownContent = null; // what it shows (its key)

  function add(message) {
    const id = typeof message.id === "string" ? message.id : "";
    if (!id || state.gonePushes.has(id) || state.inbox.has(id)) return;
    state.inboxSeq += 1;
    state.inbox.set(id, { message, seq: state.inboxSeq });
    scheduleRender();
    // told at once: what the screen shows now is older than this push
    if (!state.seenPushes.has(id)) onNewPush();
  }

  /**
   * A push the user pasted, as the server put it in the inbox: it arrives like any other (the
   * banner announces it), or is opened at once, as the user chose.
   */
  async function receive(message, openAtOnce) {
    add(message);
    if (openAtOnce && state.inbox.has(message.id)) await open(message.id);
  }

  function remove(ids) {
    for (const id of ids) {
      state.inbox.delete(id);
      state.gonePushes.add(id);
      state.seenPushes.delete(id);
    }
    // the set only guards against late duplicates: keep it small
    if (state.gonePushes.size > 500) state.gonePushes = new Set([...state.gonePushes].slice(-250));
    writeSeenPushes(phoneId, state.seenPushes);
    scheduleRender();
  }

  /** The banner stops announcing every message waiting now; they stay in the inbox. */
  function markAllSeen() {
    for (const id of state.inbox.keys()) state.seenPushes.add(id);
    writeSeenPushes(phoneId, state.seenPushes);
  }

  /** Re-reads the inbox; drops local messages the server no longer has. */
  async function sync() {
    if (state.notFound) return;
    if (syncing) {
      syncAgain = true;
      return;
    }
    syncing = true;
    const seqAtRequest = state.inboxSeq;
    try {
      const data = await getJSON(inboxPath());
      const list = Array.isArray(data && data.messages) ? data.messages : [];
      const held = new Set(list.map((m) => m && m.id));
      // a message that arrived after the request was sent may be missing from the answer: keep it
      const stale = [...state.inbox].filter(([id, item]) => item.seq <= seqAtRequest && !held.has(id)).map(([id]) => id);
      if (stale.length) remove(stale);
      for (const m of list) if (m && typeof m === "object") add(m);
      // only ids still waiting are worth remembering
      const before = state.seenPushes.size;
      for (const id of state.seenPushes) if (!held.has(id) && !state.inbox.has(id)) state.seenPushes.delete(id);
      if (state.seenPushes.size !== before) writeSeenPushes(phoneId, state.seenPushes);
    } catch {
      // the next reconnect or visibility change tries again
    } finally {
      syncing = false;
      if (syncAgain) {
        syncAgain = false;
        sync();
      }
    }
  }

  function receivedTime(item) {
    const d = toDate(item.message.receivedAt);
    return d ? d.getTime() : 0;
  }

  /** Waiting messages, newest first. */
  function newestFirst() {
    return [...state.inbox.values()].sort((a, b) => receivedTime(b) - receivedTime(a) || b.seq - a.seq);
  }

  /** Batches the re-render: the inbox replay after a connect comes as one frame per message. */
  function scheduleRender() {
    if (renderTimer !== null) return;
    renderTimer = setTimeout(() => {
      renderTimer = null;
      render();
    }, 0);
  }

  function render() {
    renderBanner(newestFirst());
    // the home screen's list is updated in place (the rest of the screen, the text box included,
    // stays), and only when it changed (a screen drawn since holds it already, maybe focused)
    if (shownSection && shownSection.isConnected && contentKey() !== shownContent) {
      clear(shownSection);
      shownSection.append(...sectionContent());
      shownSection.hidden = state.inbox.size === 0;
    }
  }

  /** The inbox on the home screen, shown while it has notifications. */
  function section() {
    shownSection = el("section", { id: "inbox-section", className: "home-section inbox-section", hidden: state.inbox.size === 0 }, ...sectionContent());
    return shownSection;
  }

  function sectionContent() {
    shownContent = contentKey();
    return inboxContent(newestFirst(), { opening: state.openingPush, open, clearAll });
  }

  function contentKey() {
    return JSON.stringify([newestFirst().map((item) => item.message.id), state.openingPush]);
  }

  async function open(id) {
    if (state.openingPush !== null) return;
    if (!state.inbox.has(id)) return;
    state.openingPush = id;
    render();
    try {
      const answer = await postJSON(inboxPath() + "/" + encodeURIComponent(id) + "/open", {});
      state.openingPush = null;
      // the user acted on the notifications: the banner stops announcing the others
      remove([id]);
      markAllSeen();
      render();
      toast.hide();
      showStartedFlow("push", answer);
    } catch (err) {
      state.openingPush = null;
      if (err.code === "MESSAGE_NOT_FOUND") remove([id]);
      render();
      toast.show(err.code, err.message);
    }
  }

  async function clearAll() {
    const ids = [...state.inbox.keys()];
    const clearButton = document.getElementById("inbox-clear");
    if (clearButton) clearButton.disabled = true;
    try {
      await api(inboxPath(), { method: "DELETE" });
      remove(ids);
    } catch (err) {
      toast.show(err.code, err.message);
      if (clearButton && clearButton.isConnected) clearButton.disabled = false;
    }
  }

  /** The server took a push out of the inbox as it was opened (here, elsewhere, or by the phone itself). */
  const opened = (id) => remove([id]);

  return { add, opened, receive, sync, render, section };
}
