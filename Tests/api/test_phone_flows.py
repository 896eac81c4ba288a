"""The live walk's second factors: the console's wrong-PIN policy, the phone's own flows on its
screen (biometrics added and removed, the PIN changed both ways, a key upgrade, the reset that
removes all accounts), and a new PIN checked against the policy at its first entry.

Environment: as client.py says.
"""

import json

from client import NO_PHONE, PIN, enrol_phone, new_phone, new_session, screen_of, setting_a_pin, uniq
from document import FINISHED

NEW_PIN = "531975"


def test_walk_second_factor_policy(api):
    """The console changes the wrong-PIN policy; refusals change nothing. Ends on the default."""
    _, policy = api.call("getSecondFactorPolicy", "nextAuth", expect=200)
    assert policy["preset"] == "nextAuth" and policy["presets"]["nevis"] == {"maxAttempts": 5, "penalties": [0, 0, 60, 180]}
    try:
        _, policy = api.call("setSecondFactorPolicy", "nevis", expect=200)
        assert policy["preset"] == "nevis" and policy["penalties"] == [0, 0, 60, 180]
        _, policy = api.call("setSecondFactorPolicy", "custom", expect=200)
        assert "preset" not in policy and policy["maxAttempts"] == 5 and policy["penalties"] == [0, 30, 0, 300]
        for refused in ("tooManyPenalties", "presetAndNumbers"):
            api.call("setSecondFactorPolicy", refused, expect=400)
        api.call("setSecondFactorPolicy", body={"maxAttempts": "5"}, expect=400)
        _, unchanged = api.call("getSecondFactorPolicy", expect=200)
        assert unchanged == policy
    finally:
        api.call("setSecondFactorPolicy", body={"preset": "nextAuth"}, expect=200)
    FINISHED.add("policy")


def test_walk_backend_administration(api):
    """The console's view of the backend: its visual hash is the one an enrolling phone shows,
    and the administrator unblocks a user's PIN (a user with no account is refused)."""
    _, server = api.call("getBackendServer", "server", expect=200)
    comparing = new_phone(api, "Comparing phone")
    screen = screen_of(api, comparing)
    api.call("startOutOfBand", path={"id": comparing["id"]}, body={"qr": new_session(api, "enrol", uniq("comparing"))["qrText"]}, expect=202)
    shown = screen.flow("WAIT_FOR_INPUT", "CONFIRM")["session"]["server"]
    screen.close()
    assert shown["visualHash"] == server["visualHash"], (shown, server)
    user = uniq("administered")
    enrol_phone(api, new_phone(api, "Administered phone"), user)
    _, unblocked = api.call("unblockPin", "unblocked", merge={"userId": user}, expect=200)
    assert unblocked == {"userId": user, "unblockedDevices": 0}
    api.call("unblockPin", "notEnrolled", expect=404)


def test_walk_phone_second_factors(api):
    """The phone's own flows (biometrics added and removed, the PIN changed both ways), its sensor and
    settings, a key upgrade, and the reset that removes all accounts."""
    # Settings and the sensor, on a phone without accounts.
    fresh = new_phone(api, "Nevis phone")
    _, changed = api.call("updatePhoneSettings", "nevisPinChange", path={"id": fresh["id"]}, expect=200)
    assert changed["settings"]["pinChangeStyle"] == "nevis" and changed["settings"]["maxNumberSecondFactorWithoutPIN"] == 3
    api.call("updatePhoneSettings", "limitOutOfRange", path={"id": fresh["id"]}, expect=400)
    api.call("startPhoneFlow", "notEnrolled", path={"id": fresh["id"]}, expect=409)
    _, more = api.call("addBiometricFeature", "anotherFingerprint", path={"id": fresh["id"]}, expect=200)
    assert more["biometrics"]["enrolledFeatures"] == 2
    _, none = api.call("removeBiometricFeatures", "noFeatures", path={"id": fresh["id"]}, expect=200)
    assert none["biometrics"]["enrolledFeatures"] == 0
    api.call("updatePhoneSettings", path={"id": fresh["id"]}, body={"biometricSensor": False}, expect=200)
    api.call("addBiometricFeature", "noSensor", path={"id": fresh["id"]}, expect=409)
    api.call("addBiometricFeature", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)
    api.call("removeBiometricFeatures", "phoneNotFound", path={"id": NO_PHONE}, expect=404)

    # An enrolled phone and the flows it starts itself.
    phone = new_phone(api, "Second factor phone")
    user = uniq("sofia")
    account = enrol_phone(api, phone, user)
    path = {"id": phone["id"]}
    api.call("updatePhoneSettings", "pinLengthWithPin", path=path, expect=409)
    for refused, status in (("serverFlow", 400), ("unknownType", 400), ("noBiometricKey", 409)):
        api.call("startPhoneFlow", refused, path=path, expect=status)
    api.call("startPhoneFlow", "phoneNotFound", path={"id": NO_PHONE}, body={"type": "CHANGE_PIN"}, expect=404)
    screen = screen_of(api, phone)

    # ADD_BIOMETRICS: the PIN, then the sensor (no match first).
    _, started = api.call("startPhoneFlow", path=path, body={"type": "ADD_BIOMETRICS"}, expect=202)
    assert started["flow"]["currentInteraction"]["secondFactorInfo"]["allowedSecondFactorTypes"] == ["PIN"]
    api.call("startPhoneFlow", "flowActive", path=path, expect=409)
    api.call("removeAllAccounts", "flowActive", path=path, expect=409)
    screen.send({"action": "inputSecondFactor", "biometrics": "match"})
    assert screen.until(lambda m: m["type"] == "error", "a refusal")["error"]["code"] == "FACTOR_NOT_OFFERED"
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    flow = screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    assert flow["currentInteraction"]["secondFactorInfo"] == {
        "allowedSecondFactorTypes": ["BIOMETRICS"], "requiredSecondFactorTypes": ["BIOMETRICS"], "showBiometrics": True}
    screen.send({"action": "inputSecondFactor", "biometrics": "noMatch"})
    assert screen.until(lambda m: m["type"] == "error", "a refusal")["error"]["code"] == "BIOMETRIC_NOT_RECOGNISED"
    screen.send({"action": "inputSecondFactor", "biometrics": "match"})
    assert screen.flow("DONE")["type"] == "ADD_BIOMETRICS"
    _, detail = api.call("getPhone", path=path, expect=200)
    assert detail["biometrics"]["hasEnabledBiometrics"] is True and "lastPinAt" in detail["biometrics"]

    # CHANGE_PIN the nextAuth way, verified by the biometric.
    _, started = api.call("startPhoneFlow", "changePin", path=path, expect=202)
    assert started["flow"]["currentInteraction"]["secondFactorInfo"]["showBiometrics"] is True
    screen.send({"action": "inputSecondFactor", "biometrics": "match"})
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": NEW_PIN})
    assert screen.flow("DONE")["type"] == "CHANGE_PIN"

    # CHANGE_PIN the Nevis way: the old and the new PIN together.
    api.call("updatePhoneSettings", path=path, body={"pinChangeStyle": "nevis"}, expect=200)
    api.call("startPhoneFlow", path=path, body={"type": "CHANGE_PIN"}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
    for message, code in (({"pin": PIN}, "MISSING_FIELD"), ({"oldPin": NEW_PIN, "pin": NEW_PIN}, "OLD_PIN_EQUALS_NEW_PIN")):
        screen.send({"action": "inputSecondFactor", **message})
        assert screen.until(lambda m: m["type"] == "error", "a refusal")["error"]["code"] == code
    screen.send({"action": "inputSecondFactor", "oldPin": NEW_PIN, "pin": PIN})
    assert screen.flow("DONE")["type"] == "CHANGE_PIN"

    # REMOVE_BIOMETRICS with the (changed back) PIN.
    api.call("startPhoneFlow", path=path, body={"type": "REMOVE_BIOMETRICS"}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "REMOVE_BIOMETRICS"
    assert api.call("getPhone", path=path, expect=200)[1]["biometrics"]["hasEnabledBiometrics"] is False

    # A key upgrade from the console: no user input at all.
    _, upgrade = api.call("createSession", "upgrade", merge={"userId": user}, expect=201)
    _, started = api.call("startOutOfBand", "upgradeQr", path=path, merge={"qr": upgrade["qrText"]}, expect=202)
    assert started["flow"]["state"] == "DONE"
    _, status = api.call("getSession", path={"id": upgrade["id"]}, expect=200)
    assert status["status"] == "completed" and status["accountId"] == account
    api.call("createSession", "managementType", expect=400)
    api.call("createSession", "upgradeWithoutAccount", merge={"userId": uniq("nobody")}, expect=404)
    api.call("createSession", "loginWithoutAccount", merge={"userId": uniq("nobody")}, expect=404)
    # the upgraded key still logs in
    login = new_session(api, "login", user)
    api.call("startOutOfBand", path=path, body={"qr": login["qrText"]}, expect=202)
    screen.flow("WAIT_FOR_INPUT", "CONFIRM")
    screen.send({"action": "confirmSession"})
    screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    assert screen.flow("DONE")["type"] == "LOGIN"
    screen.close()

    # Removing all accounts resets the phone.
    _, reset = api.call("removeAllAccounts", "reset", path=path, expect=200)
    assert reset["accounts"] == [] and reset["hasPin"] is False and reset["deviceId"] != phone["deviceId"]
    api.call("removeAllAccounts", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    FINISHED.add("second factors")


def test_walk_pin_check(api):
    """A new PIN checked against the policy at its first entry, while the flow sets one."""
    phone, screen = setting_a_pin(api, "PIN check phone")
    path = {"id": phone["id"]}
    try:
        _, refused = api.call("checkNewPin", "tooCommon", path=path, expect=400)
        assert "123456" not in json.dumps(refused)
        api.call("checkNewPin", path=path, body={"pin": "739184"}, expect=204)
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")
        api.call("checkNewPin", "notSettingAPin", path=path, expect=409)
    finally:
        screen.close()
    FINISHED.add("pin check")
