"""The phone's side of privacyIDEA's push tokens as the API tests drive it: a challenge polled or
pushed onto the screen, the phone's answer through the document's examples, its token list."""

from client import wait_for


def polled_challenge(api, phone, serial, example="challenge"):
    """The token's challenge polled onto the screen; with `example` None, for what no example shows
    (eduMFA's challenges)."""
    explicit = {"body": {}} if example is None else {}
    shown = api.call("pollPushToken", example, path={"id": phone["id"], "serial": serial}, **explicit, expect=200)[1]["privacyIDEA"]
    assert shown and (shown["kind"], shown["state"], shown["serial"]) == ("CHALLENGE", "WAIT_FOR_INPUT", serial), shown
    return shown


def pushed_challenge(api, phone, serial):
    """The challenge privacyIDEA's Firebase provider pushed through AuthPhone's FCM endpoint, once the
    phone shows it (the phone takes a privacyIDEA push as it arrives, as privacyIDEA's app does)."""
    def on_screen():
        shown = api.call("getPrivacyIDEARequest", path={"id": phone["id"]}, expect=200)[1]["privacyIDEA"]
        return shown if shown and shown["kind"] == "CHALLENGE" and shown["state"] == "WAIT_FOR_INPUT" else None
    try:
        shown = wait_for(on_screen, "a pushed challenge on the phone")
    except AssertionError:
        raise AssertionError(f"no pushed challenge reached the phone; its inbox: {inbox_of(api, phone)}") from None
    assert shown["serial"] == serial, shown
    return shown


def inbox_of(api, phone):
    """The pushes waiting in the phone's inbox."""
    return api.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"]


def answer(api, phone, example, **merge):
    """The phone's answer: the document's request example `example`, with `merge` merged into it."""
    return api.call("answerPrivacyIDEA", example, path={"id": phone["id"]}, merge=merge or None, expect=200)[1]["privacyIDEA"]


def tokens_of(api, phone, example=None):
    return api.call("listPushTokens", example, path={"id": phone["id"]}, expect=200)[1]["tokens"]


def answer_named(api, phone, **body):
    """The phone's answer with the body given, for what no example shows: other open challenges
    listed (`waiting`), eduMFA's and tiqr's challenges."""
    return api.call("answerPrivacyIDEA", path={"id": phone["id"]}, body=body, expect=200)[1]["privacyIDEA"]


def presence_answer(check):
    """The option privacyIDEA's login page shows the user (its reply's `presence_answer`)."""
    for challenge in [check.detail, *check.detail.get("multi_challenge", [])]:
        if challenge.get("presence_answer"):
            return challenge["presence_answer"]
    raise AssertionError(f"privacyIDEA's reply names no presence answer: {check.detail}")


def enrolled_identity(api, privacyidea, phone, user):
    """privacyIDEA's tiqr token for `user` (privacyidea.enable_tiqr() first), enrolled by the phone
    from its QR text: the service's metadata, then the phone's secret. Its serial."""
    _, detail = privacyidea.admin.call("POST", "/token/init", json={"type": "tiqr", "user": user})
    serial, code = detail["serial"], detail["tiqrenroll"]["value"]
    path = {"id": phone["id"]}
    asked = api.call("startOutOfBand", path=path, body={"qr": code}, expect=202)[1]["privacyIDEA"]
    assert (asked["kind"], asked["state"], asked["serial"]) == ("TIQR_ENROLMENT", "WAIT_FOR_INPUT", serial), asked
    done = api.call("answerPrivacyIDEA", "acceptServer", path=path, expect=200)[1]["privacyIDEA"]
    assert (done["state"], done.get("outcome")) == ("DONE", "ENROLLED"), done
    return serial


def tiqr_login(privacyidea, user):
    """A login at privacyIDEA for `user`: its check and the tiqrauth code the login page shows."""
    check = privacyidea.admin.validate_check(user, "")
    assert check.authentication == "CHALLENGE", check
    code = next(c["attributes"]["value"] for c in check.detail["multi_challenge"] if c["type"] == "tiqr")
    return check, code
