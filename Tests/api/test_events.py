"""A script's phone without a WebSocket: the screen's actions over HTTP
(`POST /api/phones/{id}/actions`).

Environment: as client.py says.
"""

from client import NO_PHONE, new_phone, new_session, uniq


def test_actions_enrol_a_phone_over_http(api):
    """An enrolment taken step by step by the route, each answer the flow it left; refusals change nothing."""
    phone = new_phone(api, "Actions phone")
    path = {"id": phone["id"]}
    _, idle = api.call("takePhoneAction", "nothingWaiting", path=path, expect=409)
    assert idle["error"]["code"] == "NO_ACTIVE_FLOW"
    api.call("takePhoneAction", path={"id": NO_PHONE}, body={"action": "dance"}, expect=404)
    session = new_session(api, "enrol", uniq("actions"))
    api.call("startOutOfBand", path=path, body={"qr": session["qrText"]}, expect=202)
    for refused in ("unknownAction", "unknownField"):
        api.call("takePhoneAction", refused, path=path, expect=400)
    _, waiting = api.call("takePhoneAction", "confirmEnrolment", path=path, expect=200)
    assert waiting["flow"]["currentInteraction"]["type"] == "SET_SECOND_FACTOR"
    _, done = api.call("takePhoneAction", "setPin", path=path, expect=200)
    assert done["flow"]["state"] == "DONE" and done["flow"]["id"] == waiting["flow"]["id"]
    assert api.call("getSession", path={"id": session["id"]}, expect=200)[1]["status"] == "enrolled"
