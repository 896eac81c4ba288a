// The current flow as a diagram of its steps, shown beside the phone screen: the interactions its
// plan goes through, the one it is on, those it passed, and how often a second factor was asked
// again. The plan comes with every FlowUpdate (the server's flow machine owns it); the diagram
// keeps a little memory per flow id for what the updates do not repeat (factors offered, retries).
// Before a scanned session's flow there is its start (docs/protocol.md, SessionStart): the
// diagram shows that phase, the phone's retries and the OTP on offer, and the flow that follows
// begins with it, done.
import { el, clear } from "./api.js";

/** The step of a flow that has no interaction at all (HEADLESS_UPGRADE): the server's work. */
const PROCESSING_STEP = "PROCESSING";

const step = (type, factors = []) => ({ type, factors });

const STATUS_TEXT = {
  pending: "pending",
  waiting: "waiting for input",
  processing: "processing",
  completed: "completed",
  done: "done",
  error: "error",
};

/** The flow's plan as the server sends it; a flow without one shows what it has shown. */
function planOf(flow, seen) {
  const steps =
    Array.isArray(flow.plan) && flow.plan.length > 0
      ? flow.plan.map((s) => step(String(s.interaction), (Array.isArray(s.factors) ? s.factors : []).map(String)))
      : seen.map((t) => step(t));
  return { variant: flow.planVariant ? String(flow.planVariant) : null, steps };
}

function newMemory(id, started) {
  return {
    id,
    started, // the scanned session this flow started from (its STARTING phase), or null
    seen: [], // interaction types in the order the flow showed them
    lastStep: null, // the step the flow was last on (to tell where an ERROR stopped it)
    lastUpdate: "", // the last update as JSON: a repeated update is not a new retry
    factors: new Map(), // interaction type -> second factors its secondFactorInfo offered
    retries: new Map(), // interaction type -> Map(result type -> times asked again)
  };
}

/** The second factors an interaction offers: those allowed, else those required. */
function factorsOf(info) {
  const allowed = Array.isArray(info.allowedSecondFactorTypes) ? info.allowedSecondFactorTypes : [];
  const required = Array.isArray(info.requiredSecondFactorTypes) ? info.requiredSecondFactorTypes : [];
  return (allowed.length > 0 ? allowed : required).map(String);
}

/** Text with line-break opportunities after underscores (SET_SECOND_FACTOR wraps at words). */
function breakable(text) {
  const nodes = [];
  String(text)
    .split(/(?<=_)/)
    .forEach((part, i) => {
      if (i > 0) nodes.push(el("wbr"));
      nodes.push(part);
    });
  return nodes;
}

/** The session's start as a node: the phone's tries at the server and the OTP on offer. */
function startNode(session, status, statusText) {
  const attempts = Number(session.attempts) || 0;
  const failure = String((session.error && session.error.code) || "SERVER_CONNECTION_ERROR");
  return node({
    name: "STARTING",
    status,
    detail: session.otpAvailable ? "OTP offered" : "",
    statusText,
    retries: attempts > 0 && session.connectionError !== false ? new Map([[failure, attempts]]) : null,
  });
}

export class FlowDiagram {
  /** What the updates of the current flow told so far (see newMemory); null before any flow. */
  #memory = null;
  /** The scanned session still before its flow (STARTING or READY_FOR_USER_INTERACTION), or null. */
  #starting = null;

  /** container: an empty element; the diagram owns its content. */
  constructor(container) {
    this.container = container;
    container.classList.add("flow-diagram");
    this.update(null);
  }

  /** Draws a FlowUpdate's flow (the whole flow object), or the empty state for null. */
  update(flow) {
    const box = this.container;
    clear(box);
    if (!flow || typeof flow !== "object") {
      delete box.dataset.flowType;
      delete box.dataset.flowState;
      box.append(el("p", { className: "empty fd-empty", text: "No flow yet" }));
      return;
    }
    const memory = this.#remember(flow);
    const type = String(flow.type ?? "");
    const flowState = String(flow.state ?? "");
    const plan = planOf(flow, memory.seen);
    box.dataset.flowType = type;
    box.dataset.flowState = flowState;
    box.append(
      el(
        "div",
        { className: "fd-head" },
        el("h3", { className: "fd-title" }, breakable(type || "Flow")),
        plan.variant ? el("span", { className: "tag fd-variant", text: plan.variant }) : null,
        el("span", { className: "badge fd-state state-" + flowState.toLowerCase(), text: flowState }),
      ),
      el(
        "ol",
        { className: "fd-steps", role: "list", "aria-label": `Steps of the ${type} flow` },
        this.#nodes(flow, plan, memory),
      ),
    );
  }

  /**
   * Draws a scanned session before its flow (a SessionStart): while it is STARTING, its phase in
   * place of the last flow; once STOPPED, how it ended. READY_FOR_USER_INTERACTION draws nothing:
   * its flow's first update follows, and begins with the start, done.
   */
  session(session) {
    if (!session || typeof session !== "object") return;
    const state = String(session.state ?? "");
    this.#starting = state === "STOPPED" ? null : session;
    if (state === "READY_FOR_USER_INTERACTION") return;
    const box = this.container;
    clear(box);
    box.dataset.flowType = "SESSION";
    box.dataset.flowState = state;
    const stopped = state === "STOPPED";
    const waiting = session.connectionError ? "retrying" : "connecting";
    const flow = node({ name: "FLOW", status: "pending", end: true, detail: "the request arrives" });
    const end = node({ name: "STOPPED", status: stopped ? "done" : "pending", end: true, detail: stopped ? String(session.stopReason || "") : "" });
    box.append(
      el(
        "div",
        { className: "fd-head" },
        el("h3", { className: "fd-title", text: "Scanned session" }),
        el("span", { className: "badge fd-state state-" + state.toLowerCase(), text: state }),
      ),
      el(
        "ol",
        { className: "fd-steps", role: "list", "aria-label": "Steps of the scanned session" },
        item(false, startNode(session, stopped ? "completed" : "processing", stopped ? STATUS_TEXT.completed : waiting)),
        item(true, el("ul", { className: "fd-ends", role: "list", "aria-label": "Ends" }, el("li", { role: "listitem" }, flow), el("li", { role: "listitem" }, end))),
      ),
    );
  }

  /** Notes what this update tells about its flow: interactions seen, factors offered, retries. */
  #remember(flow) {
    if (!this.#memory || this.#memory.id !== flow.id) {
      // a flow's first update after its session's start begins with that start
      this.#memory = newMemory(flow.id, this.#starting);
      this.#starting = null;
    }
    const memory = this.#memory;
    const json = JSON.stringify(flow);
    const repeated = json === memory.lastUpdate;
    memory.lastUpdate = json;

    const note = (type) => {
      if (type && !memory.seen.includes(String(type))) memory.seen.push(String(type));
    };
    const current = flow.currentInteraction;
    const previous = flow.previousInteractionResult;
    // the previous result came before the current interaction (tells the order after a reload)
    if (previous) note(previous.interactionType);
    if (current && current.type) {
      note(current.type);
      memory.lastStep = String(current.type);
      if (current.secondFactorInfo) memory.factors.set(String(current.type), factorsOf(current.secondFactorInfo));
    } else if (flow.state === "PROCESSING") {
      memory.lastStep = PROCESSING_STEP;
    }
    // Asked again after a failed attempt: count it once per new update, not per repeat of it.
    if (!repeated && flow.state === "WAIT_FOR_INPUT" && previous && previous.type && previous.type !== "SUCCESS") {
      const interaction = String(previous.interactionType ?? (current && current.type));
      const result = String(previous.type);
      const counts = memory.retries.get(interaction) || new Map();
      counts.set(result, (counts.get(result) || 0) + 1);
      memory.retries.set(interaction, counts);
    }
    return memory;
  }

  /** The list items: one per step of the plan, then the two ends, DONE above ERROR. */
  #nodes(flow, plan, memory) {
    const { completed, at } = progress(flow, plan, memory);
    const state = flow.state;
    const current = flow.currentInteraction;
    const items = plan.steps.map((s, i) => {
      let status = "pending";
      if (i < completed) status = "completed";
      else if (i === at && state === "WAIT_FOR_INPUT") status = "waiting";
      else if (i === at && state === "PROCESSING") status = "processing";
      const stopped = i === at && state === "ERROR";
      const given = status === "processing" && current && Array.isArray(current.inputTypes) ? current.inputTypes : [];
      const box = node({
        name: s.type,
        status,
        detail: s.type === PROCESSING_STEP ? "account key upgrade" : (memory.factors.get(s.type) || s.factors).join(" or "),
        statusText: stopped ? "stopped here" : given.length > 0 ? `${STATUS_TEXT[status]} · ${given.join(" + ")}` : STATUS_TEXT[status],
        stopped,
        retries: memory.retries.get(s.type),
      });
      return item(i > 0, box);
    });
    const error = flow.error && typeof flow.error === "object" ? flow.error : null;
    const done = node({ name: "DONE", status: state === "DONE" ? "done" : "pending", end: true });
    const failed = node({
      name: "ERROR",
      status: state === "ERROR" ? "error" : "pending",
      end: true,
      detail: state === "ERROR" ? String((error && error.code) || "ERROR") : "",
      title: error && error.message ? String(error.message) : null,
    });
    // Any step may end in ERROR: the ends sit in one column, as the branches of the last arrow.
    const ends = el(
      "ul",
      { className: "fd-ends", role: "list", "aria-label": "Ends" },
      el("li", { role: "listitem" }, done),
      el("li", { role: "listitem" }, failed),
    );
    items.push(item(plan.steps.length > 0, ends));
    if (memory.started) {
      items[0] = item(true, items[0].lastChild);
      items.unshift(item(false, startNode(memory.started, "completed", STATUS_TEXT.completed)));
    }
    return items;
  }
}

/**
 * How far the flow got: `completed` steps passed, and `at` the index of the step it is on (for
 * ERROR: the step it stopped at; -1 when there is none or it is not known).
 */
function progress(flow, plan, memory) {
  const types = plan.steps.map((s) => s.type);
  const current = flow.currentInteraction;
  switch (flow.state) {
    case "WAIT_FOR_INPUT":
    case "PROCESSING": {
      const at = types.indexOf(current && current.type ? String(current.type) : PROCESSING_STEP);
      return { completed: Math.max(at, 0), at };
    }
    case "DONE":
      return { completed: types.length, at: -1 };
    case "ERROR": {
      const previous = flow.previousInteractionResult;
      const last = memory.lastStep ?? (previous && previous.interactionType ? String(previous.interactionType) : null);
      const i = last === null ? -1 : types.indexOf(last);
      if (i < 0) return { completed: 0, at: -1 };
      // an ERROR right after a step succeeded (e.g. nothing left to verify with) stopped the next one
      const passed = previous && previous.type === "SUCCESS" && previous.interactionType === last;
      const completed = passed ? i + 1 : i;
      return { completed, at: completed < types.length ? completed : -1 };
    }
    default:
      return { completed: 0, at: -1 };
  }
}

const CURRENT = new Set(["waiting", "processing", "done", "error"]);

/** One entry of the row, after an arrow from the entry before it. */
function item(arrow, content) {
  return el(
    "li",
    { className: "fd-item", role: "listitem" },
    arrow ? el("span", { className: "fd-arrow", "aria-hidden": "true", text: "→" }) : null,
    content,
  );
}

function node({ name, status, detail = "", statusText = STATUS_TEXT[status], stopped = false, retries, end = false, title }) {
  const badges = [];
  for (const [result, count] of retries || []) {
    badges.push(
      el("span", {
        className: "fd-retry",
        dataset: { result, count: String(count) },
        title: `asked again after ${result} (${count}×)`,
        text: `↻ ${result} ×${count}`,
      }),
    );
  }
  return el(
    "div",
    {
      className: "fd-node" + (end ? " fd-end" : "") + (stopped ? " fd-stopped" : ""),
      dataset: { node: name, status },
      "aria-current": CURRENT.has(status) ? "step" : null,
      title,
    },
    el("span", { className: "fd-label" }, breakable(name)),
    detail ? el("span", { className: "fd-detail" }, el("span", { className: "visually-hidden", text: " · " }), detail) : null,
    el("span", { className: "fd-status", text: statusText }),
    badges.length > 0 ? el("span", { className: "fd-retries" }, badges) : null,
  );
}
