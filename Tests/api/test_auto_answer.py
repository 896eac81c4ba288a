"""Auto-answer rules (docs/scripting.md#auto-answer-rules): a push login through the demo backend
that ends logged in with nobody at the phone, marked automatic on the timeline; a decline; and
refusals (an unknown field, an unknown phone, a PIN of the wrong shape, a wrong PIN) that change
nothing, not even the backend's view of the PIN.

Environment: as client.py says.
"""

from client import NO_PHONE, PIN, enrol_phone, new_phone, new_session, uniq, wait_for


def session_ended(api, session):
    """The session's final status, once it has one."""
    def final():
        status = api.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"]
        return status if status not in ("pending", "redeemed", "confirmed", "verified") else None
    return wait_for(final, f"the end of the session {session['id']}")


def test_rules_answer_push_logins_and_refusals_change_nothing(api):
    phone = new_phone(api, "Auto-answer phone")
    user = uniq("auto")
    enrol_phone(api, phone, user)
    path = {"id": phone["id"]}
    api.call("updatePhoneSettings", path=path, body={"openPushesAtOnce": True}, expect=200)

    # Refusals: nothing is added, and no PIN reaches the backend (the phone's timeline is as it was).
    before = api.call("getPhoneTimeline", path=path, expect=200)[1]["hops"]
    for example in ("unknownField", "pinWrongShape", "pinWrong"):
        api.call("addAutoAnswerRule", example, path=path, expect=400)
    api.call("addAutoAnswerRule", "phoneNotFound", path={"id": NO_PHONE}, body={"answer": "confirm"}, expect=404)
    assert api.call("listAutoAnswerRules", path=path, expect=200)[1] == {"rules": []}
    assert api.call("getPhoneTimeline", path=path, expect=200)[1]["hops"] == before

    # A push login answered by the rule: the session ends logged in without anyone touching the phone.
    response, rule = api.call("addAutoAnswerRule", "confirmWithPin", path=path, merge={"user": user}, expect=201)
    assert PIN not in response.text and rule["user"] == user
    api.call("listAutoAnswerRules", "oneRule", path=path, expect=200)
    login = new_session(api, "login", user, delivery="push")
    assert session_ended(api, login) == "loggedin"
    hops = api.call("getSessionTimeline", path={"id": login["id"]}, expect=200)[1]["hops"]
    marked = [hop["url"].rsplit("/", 1)[-1] for hop in hops if hop.get("automaticRule") == rule["id"]]
    assert marked == ["confirm", "verify"], hops
    assert PIN not in str(hops)
    # a count of one: used up
    assert api.call("listAutoAnswerRules", path=path, expect=200)[1] == {"rules": []}

    # A decline rule cancels the next push login; deleting it and clearing leave none.
    _, decline = api.call("addAutoAnswerRule", path=path, body={"user": user, "answer": "decline"}, expect=201)
    assert session_ended(api, new_session(api, "login", user, delivery="push")) == "canceled"
    api.call("deleteAutoAnswerRule", path={**path, "rule": decline["id"]}, expect=204)
    api.call("deleteAutoAnswerRule", "ruleNotFound", path={**path, "rule": decline["id"]}, expect=404)
    api.call("addAutoAnswerRule", path=path, body={"answer": "decline", "count": 2}, expect=201)
    api.call("clearAutoAnswerRules", path=path, expect=204)
    assert api.call("listAutoAnswerRules", path=path, expect=200)[1] == {"rules": []}
