// Where the keyboard's focus goes when the phone's screen changes: to the new screen's first
// action, so that a keyboard user need not tab through the page to reach it (the focus would fall
// back to the page's start with the old screen's buttons) — unless the user is busy elsewhere.

const ACTIONS = "button, input, select, textarea";

/** The screen's first enabled button or field in view (in its dialog, when one is open over it). */
function firstAction(screen) {
  const scope = screen.querySelector('[role="dialog"]') || screen;
  return [...scope.querySelectorAll(ACTIONS)].find((e) => !e.disabled && e.getClientRects().length > 0) || null;
}

/**
 * Whether the user is busy outside the screen: in a field (the device controls' boxes), or outside
 * this page's frame altogether (the stage around a framed phone).
 */
function busyElsewhere(screen) {
  if (window.parent !== window && !document.hasFocus()) return true;
  const active = document.activeElement;
  return Boolean(active) && !screen.contains(active) && (active.matches("input, select, textarea") || active.isContentEditable);
}

/** Moves the focus to the screen's first action, without scrolling the page to it. */
export function focusFirstAction(screen) {
  if (busyElsewhere(screen)) return;
  const action = firstAction(screen);
  if (action) action.focus({ preventScroll: true });
}
