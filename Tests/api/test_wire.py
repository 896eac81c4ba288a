"""The live walk on the phone wire, as a device of the test's own (device.py) speaks it: an
enrolment, logins (a wrong PIN first), a transaction, an abandon and the pull fallback; then the
management flows, a key rotation, device information and account removal.

Environment: as client.py says.
"""

import secrets

from client import NO_SESSION, new_phone, new_session, payload_of, uniq
from device import Device, utc_now
from document import FINISHED, OPS


def test_walk_phone_wire(api):
    """A device of the test's own: enrol, log in (a wrong PIN first) and abandon, on the wire."""
    device = Device(api)
    user = uniq("frank")
    enrol = new_session(api, "enrol", user, displayName="Frank")
    device.redeem(enrol, "enrol")
    token = payload_of(enrol["qrText"])["nma_data"]["token"]
    api.call("redeemToken", "enrolQrUsed", merge=device.redeeming(token), expect=410)
    api.call("enrolAccount", "beforeConfirm", path={"id": enrol["id"]}, merge={"deviceId": device.id}, expect=409)
    api.call("confirmSession", "wrongDevice", path={"id": enrol["id"]}, expect=403)
    device.confirm(enrol["id"], "enrol")
    api.call("enrolAccount", "badSignature", path={"id": enrol["id"]}, merge={"deviceId": device.id}, expect=403)
    api.call("enrolAccount", "badKey", path={"id": enrol["id"]}, expect=400)
    account = device.enrol(enrol["id"])
    assert api.call("getSession", path={"id": enrol["id"]}, expect=200)[1]["status"] == "enrolled"

    login = new_session(api, "login", user)
    device.redeem(login, "login")
    api.call("confirmSession", "loginWithoutAccount", path={"id": login["id"]},
             merge={"deviceId": device.id, "deviceSignature": device.confirming(login["id"])}, expect=400)
    device.confirm(login["id"], "login", account=account)
    assert device.verify(login["id"], account, "wrongPin", right=False)["result"] == "rejected"
    assert device.verify(login["id"], account, "rightPin")["result"] == "accepted"
    api.call("verifyPin", "afterLogin", path={"id": login["id"]},
             merge={"deviceId": device.id, "accountId": account}, expect=409)
    _, status = api.call("getSession", path={"id": login["id"]}, expect=200)
    assert status["status"] == "loggedin" and status["loggedin"] is True and status["accountId"] == account

    # A transaction: altered text refused, the shown text signed, then the PIN.
    text = "Pay 120.00 EUR to ACME Ltd"
    transaction = new_session(api, "transaction", user, transaction=text)
    device.redeem(transaction, "transaction")
    device.confirm(transaction["id"], "login", account=account)
    device.confirm_transaction(transaction["id"], account, "Pay 920.00 EUR to ACME Ltd", "transactionAltered", expect=403)
    device.confirm_transaction(transaction["id"], account, text)
    assert device.verify(transaction["id"], account, "rightPin")["result"] == "accepted"
    _, status = api.call("getSession", path={"id": transaction["id"]}, expect=200)
    assert status["status"] == "signed" and status["transactionSigned"] is True and status["loggedin"] is False

    # Only the device itself: a stranger with its (public) id and a key of its own is refused.
    cancelled = new_session(api, "login", user)
    stranger = Device(api)
    cancelled_token = payload_of(cancelled["qrText"])["nma_data"]["token"]
    api.call("redeemToken", "otherDeviceKey", merge=stranger.redeeming(cancelled_token, device.id), expect=403)
    api.call("redeemToken", "badDeviceSignature", expect=403,
             merge=stranger.redeeming(cancelled_token, device.id) | {"devicePublicKey": device.public_key})
    device.redeem(cancelled, "login")
    stranger.abandon(cancelled["id"], "USER_CANCELED", "strangerAbandons", expect=403, device_id=device.id)
    device.abandon(cancelled["id"], "USER_CANCELED", "cancel")
    device.abandon(cancelled["id"], "USER_CANCELED", "cancelAgain", expect=409)
    api.call("abandonSession", "badCode", path={"id": cancelled["id"]}, expect=400)
    device.abandon(cancelled["id"], "SESSION_EXPIRED", "inventedCode", expect=400)
    device.abandon(NO_SESSION, "USER_CANCELED", "sessionNotFound", expect=404)
    _, status = api.call("getSession", path={"id": cancelled["id"]}, expect=200)
    assert status["status"] == "canceled" and status["failure"] == "USER_CANCELED"

    # The pull fallback on the wire.
    waiting = new_session(api, "login", user)
    assert [o["sessionId"] for o in device.pending(account)["operations"]] == [waiting["id"]]
    api.call("pendingOperations", "stale", merge={"deviceId": device.id, "accountId": account,
                                                  "timestamp": utc_now(-3600)[1]}, expect=400)
    api.call("pendingOperations", "otherDevice", merge={"accountId": account, "timestamp": utc_now()[1]}, expect=403)

    device.redeem(waiting, None)
    token = payload_of(waiting["qrText"])["nma_data"]["token"]
    api.call("redeemToken", "redeemAgain", merge=device.redeeming(token), expect=409)
    bystander = new_phone(api, "Bystander")
    api.call("startOutOfBand", "tokenAlreadyRedeemed", path={"id": bystander["id"]}, body={"qr": waiting["qrText"]},
             expect=409)
    api.call("redeemToken", "unknownToken", merge=device.redeeming("abc"), expect=404)

    # Seed 001's announceInfo, set per session: the device is told the session's own strings and logo.
    _, announced = api.call("createSession", "announced", merge={"userId": user}, expect=201)
    example = OPS["createSession"].request_examples["announced"][0]
    answer = device.redeem(announced, None)
    assert answer["announceInfo"] == example["announceInfo"] and answer["announceLogo"] == example["announceLogo"]
    api.call("createSession", "svgLogo", expect=400)

    # Seed 001: the configuration skips the confirmation and the second factor of this login.
    _, silent = api.call("createSession", "silentLogin", merge={"userId": user}, expect=201)
    answer = device.redeem(silent, None)
    assert answer["skipConfirmation"] is True and answer["skipSecondFactor"] is True
    device.confirm(silent["id"], None, account=account)
    assert api.call("getSession", path={"id": silent["id"]}, expect=200)[1]["status"] == "loggedin"
    api.call("createSession", "transactionWithoutSecondFactor", merge={"userId": user}, expect=400)
    api.call("redeemToken", "emptyDeviceId", expect=400)
    api.call("redeemToken", "missingDeviceId", expect=400)
    api.call("confirmSession", "sessionNotFound", path={"id": NO_SESSION}, expect=404)
    FINISHED.add("wire")


def test_walk_management_on_the_wire(api):
    """A device of the test's own: the management flows, a key rotation, device information and
    account removal, on the wire."""
    device, other = Device(api), Device(api)
    user = uniq("frank")
    account = device.enrol_user(user)
    other_account = other.enrol_user(user)

    # CHANGE_PIN: refusals, then the old PIN and the new PIN key.
    device.manage(account, "changePin", "stale", expect=400, offset=-3600)
    device.manage(account, "login", "notManagement", expect=400)
    device.manage(account, "addBiometrics", "wrongType", expect=403, signed_kind="changePin")
    device.manage(account, "changePin", "otherDevice", expect=404, deviceId="dev-1")
    device.manage(account, "removeBiometrics", "noBiometricKey", expect=409)
    started = device.manage(account, "changePin", "changePin")
    session_id = started["sessionId"]
    _, status = api.call("getSession", path={"id": session_id}, expect=200)
    assert (status["type"], status["status"], status["delivery"]) == ("changePin", "confirmed", "phone")
    api.call("setSecondFactor", "beforeVerification", path={"id": session_id},
             merge={"deviceId": device.id, "accountId": account}, expect=409)
    api.call("setSecondFactor", "badFactor", path={"id": session_id}, expect=400)
    assert device.verify(session_id, account, "changePinVerified")["challenge"]
    assert api.call("getSession", path={"id": session_id}, expect=200)[1]["status"] == "verified"
    device.pin_seed = device.set_factor(session_id, account, "pin", "newPin")
    assert api.call("getSession", path={"id": session_id}, expect=200)[1]["status"] == "completed"

    # ADD_BIOMETRICS, then a login by biometric clears a wrong PIN.
    started = device.manage(account, "addBiometrics")
    assert started["biometricsRegistered"] is False
    device.verify(started["sessionId"], account, None)
    biometric_seed = device.set_factor(started["sessionId"], account, "biometrics")
    login = new_session(api, "login", user)
    device.redeem(login, "login")
    device.confirm(login["id"], "login", account=account)
    assert device.verify(login["id"], account, "wrongPin", right=False)["secondFactor"]["failedAttempts"] == 1
    answer = device.verify_biometric(login["id"], account, biometric_seed)
    assert answer["result"] == "accepted" and answer["secondFactor"]["failedAttempts"] == 0
    assert api.call("getSession", path={"id": login["id"]}, expect=200)[1]["status"] == "loggedin"
    api.call("verifyPin", "bothFactors", path={"id": login["id"]}, expect=400)
    # a device without a biometric key
    login = new_session(api, "login", user)
    other.redeem(login, "login")
    other.confirm(login["id"], "login", account=other_account)
    other.verify_biometric(login["id"], other_account, secrets.token_bytes(32), "noBiometricKey", expect=409)

    # HEADLESS_UPGRADE: the account key is replaced.
    upgrade = new_session(api, "upgrade", user)
    device.redeem(upgrade, None)
    api.call("rotateAccountKey", "badKey", path={"id": upgrade["id"]}, expect=400)
    device.rotate(upgrade["id"], account, "newKeyOnly", expect=403, old_key_is_new=True)
    device.rotate(upgrade["id"], account, "rotate")
    api.call("rotateAccountKey", "rotateAgain", path={"id": upgrade["id"]},
             merge={"deviceId": device.id, "accountId": account}, expect=409)
    assert api.call("getSession", path={"id": upgrade["id"]}, expect=200)[1]["status"] == "completed"
    device.pending(account)  # the new key proves the account

    # Device information.
    name = uniq("Frank's phone")
    info = device.change_device(account, "rename", name=name)
    assert info["deviceId"] == device.id and info["name"] == name and info["pushNotifications"] is True
    info = device.change_device(account, "pushesOff")
    assert info == {"deviceId": device.id, "name": name, "pushNotifications": False}
    info = device.change_device(account, "newToken")
    assert info["pushNotifications"] is True and info["fcmToken"] == "dJ3k9Xq2Rz8:APA91bF4kq"
    other.change_device(other_account, "nameTaken", expect=409, name=name)
    device.change_device(account, "tokenAndPushesOff", expect=400)
    device.change_device(account, "otherName", expect=403, signed={"name": "Another name"})

    # Account removal.
    device.remove_account(account, "badSignature", expect=403, signature="AA")
    device.remove_account(account, "stale", expect=400, offset=-3600)
    device.remove_account(account, "remove")
    device.remove_account(account, "removeAgain", expect=404)
    FINISHED.add("management wire")
