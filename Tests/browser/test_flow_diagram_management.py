"""The flow diagram through the flows a phone starts itself: PIN change (both ways), adding and
removing biometrics, the headless upgrade, and a flow seen without its plan (the harness:
flow_diagram.py)."""

from flow_diagram import BIOMETRICS_ONLY, PIN_ONLY, PIN_OR_BIOMETRICS, Flow, check, page, pending_ends, show, site  # noqa: F401 (fixtures)


def test_change_pin(page):
    f = Flow("CHANGE_PIN")
    view = show(page, f.ask("VERIFY_SECOND_FACTOR", PIN_OR_BIOMETRICS))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting", SET_SECOND_FACTOR="pending"))
    assert view["variant"] is None
    show(page, f.give("BIOMETRICS"))
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="waiting"))
    show(page, f.give("PIN"))
    check(show(page, f.done()), VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_change_pin_nevis_style(page):
    f = Flow("CHANGE_PIN", "Nevis style")
    view = show(page, f.ask("SET_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(SET_SECOND_FACTOR="waiting"))
    assert view["variant"] == "Nevis style"
    show(page, f.give("PIN"))
    # a wrong old PIN asks for both again: the loop is on the SET node
    view = show(page, f.fail("PIN_FAIL"))
    check(view, **pending_ends(SET_SECOND_FACTOR="waiting"))
    assert view["retries"] == [["SET_SECOND_FACTOR", "↻ PIN_FAIL ×1"]]
    show(page, f.give("PIN"))
    check(show(page, f.done()), SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_add_biometrics(page):
    f = Flow("ADD_BIOMETRICS")
    view = show(page, f.ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting", SET_SECOND_FACTOR="pending"))
    assert "BIOMETRICS" in view["details"]["SET_SECOND_FACTOR"]
    show(page, f.give("PIN"))
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", BIOMETRICS_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="waiting"))
    show(page, f.give("BIOMETRICS"))
    check(show(page, f.done()), VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_add_biometrics_legacy_order(page):
    f = Flow("ADD_BIOMETRICS", "legacyBioAddFlow")
    view = show(page, f.ask("SET_SECOND_FACTOR", BIOMETRICS_ONLY))
    check(view, **pending_ends(SET_SECOND_FACTOR="waiting", VERIFY_SECOND_FACTOR="pending"))
    assert view["variant"] == "legacyBioAddFlow"
    show(page, f.give("BIOMETRICS"))
    view = show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(SET_SECOND_FACTOR="completed", VERIFY_SECOND_FACTOR="waiting"))
    show(page, f.give("PIN"))
    check(show(page, f.done()), SET_SECOND_FACTOR="completed", VERIFY_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_a_flow_without_a_plan_shows_what_it_has_shown(page):
    """The diagram knows no plans of its own: without one it draws the interactions seen."""
    f = Flow("LOGIN", plan=False)
    check(show(page, f.ask("CONFIRM")), **pending_ends(CONFIRM="waiting"))
    show(page, f.give("CONFIRM"))
    view = show(page, f.succeed_then_ask("VERIFY_SECOND_FACTOR", PIN_ONLY))
    check(view, **pending_ends(CONFIRM="completed", VERIFY_SECOND_FACTOR="waiting"))


def test_add_biometrics_seen_from_the_middle_keeps_the_usual_order(page):
    """A page opened at SET_SECOND_FACTOR draws the plan it is sent, VERIFY first."""
    f = Flow("ADD_BIOMETRICS")
    f.ask("VERIFY_SECOND_FACTOR", PIN_ONLY)
    f.give("PIN")
    view = show(page, f.succeed_then_ask("SET_SECOND_FACTOR", BIOMETRICS_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="completed", SET_SECOND_FACTOR="waiting"))
    assert view["variant"] is None


def test_remove_biometrics_after_biometrics_removed(page):
    f = Flow("REMOVE_BIOMETRICS")
    view = show(page, f.ask("VERIFY_SECOND_FACTOR", PIN_OR_BIOMETRICS))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting"))
    check(show(page, f.give("BIOMETRICS")), **pending_ends(VERIFY_SECOND_FACTOR="processing"))
    # the key is gone: asked again, now with the PIN only
    view = show(page, f.fail("BIOMETRICS_REMOVED", PIN_ONLY))
    check(view, **pending_ends(VERIFY_SECOND_FACTOR="waiting"))
    assert view["retries"] == [["VERIFY_SECOND_FACTOR", "↻ BIOMETRICS_REMOVED ×1"]]
    assert "VERIFY_SECOND_FACTOR · PIN" in view["details"]["VERIFY_SECOND_FACTOR"]
    assert "BIOMETRICS waiting" not in view["details"]["VERIFY_SECOND_FACTOR"]
    show(page, f.give("PIN"))
    check(show(page, f.done()), VERIFY_SECOND_FACTOR="completed", DONE="done", ERROR="pending")


def test_headless_upgrade(page):
    f = Flow("HEADLESS_UPGRADE")
    view = show(page, f._update())
    check(view, **pending_ends(PROCESSING="processing"))
    assert view["state"] == "PROCESSING"
    check(show(page, f.done()), PROCESSING="completed", DONE="done", ERROR="pending")
