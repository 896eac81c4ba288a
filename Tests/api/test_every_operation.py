"""Every path and method of the OpenAPI document answers a well-formed request against the live
server: no 404, no 405, and a 2xx answer that fits the document (client.py checks each).

Environment: as client.py says, and AUTHPHONE_BINARY for the reset and the local CA's downloads,
which run on servers of their own.
"""

import pathlib
import tempfile
import urllib.parse

import requests

from client import (
    BASE_URL, NO_PHONE, TIMEOUT, Api, Screen, describe, enrol_phone, enrolled_token, google_auth_assertion, in_background,
    new_phone, new_session, push_data, registered_container, setting_a_pin, svg_to_png, token_request, uniq,
)
from device import Device
from document import OPS
from servers import free_port, own_server, serving


def test_every_operation_answers(api, privacyidea):
    """Every path and method of the document answers a well-formed request (no 404, no 405)."""
    phone = new_phone(api, "Sweep phone")
    scanner = new_phone(api, "Sweep scanner")
    opener = new_phone(api, "Sweep opener")
    enrol = new_session(api, "enrol", uniq("sweep"))
    pushed = push_data(new_session(api, "enrol", uniq("sweep-push"))["qrText"])
    api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": opener["fcmToken"], "data": pushed}},
             expect=200)
    message = api.call("getInbox", path={"id": opener["id"]}, expect=200)[1]["messages"][0]
    device = Device(api)
    wire_user = uniq("sweep-wire")
    wire = new_session(api, "enrol", wire_user)
    pushed_phone = new_phone(api, "Sweep pushed")
    to_push = new_session(api, "enrol", uniq("sweep-push-card"))
    camera = new_phone(api, "Sweep camera")
    pictured = new_session(api, "enrol", uniq("sweep-camera"))
    picture = svg_to_png(api.call("getSessionQRCode", path={"id": pictured["id"]}, expect=200)[1])
    # phones of their own for the phone's flows, its local data and its retried operations
    managed = new_phone(api, "Sweep managed")
    enrol_phone(api, managed, uniq("sweep-managed"))
    local = new_phone(api, "Sweep local")
    ruled = new_phone(api, "Sweep rules")
    local_users = [uniq("sweep-local"), uniq("sweep-local")]
    local_accounts = [enrol_phone(api, local, user) for user in local_users]
    rotating = new_phone(api, "Sweep rotating")
    slow = new_phone(api, "Sweep slow")
    enrol_phone(api, slow, uniq("sweep-slow"))
    keys = new_phone(api, "Sweep OTP accounts")
    key_uri = "otpauth://{}/sweep-{}?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=0"
    totp_account, hotp_account, doomed_account = (
        api.call("startOutOfBand", path={"id": keys["id"]}, body={"qr": key_uri.format(kind, label)}, expect=201)[1]["otpAccount"]
        for kind, label in (("totp", "t"), ("hotp", "h"), ("totp", "d")))
    otp_phone = new_phone(api, "Sweep OTP")
    otp_user = uniq("sweep-otp")
    enrol_phone(api, otp_phone, otp_user)
    # a privacyIDEA push token to poll and remove; an enrolment from a server not yet accepted to answer
    pushing = new_phone(api, "Sweep privacyIDEA")
    push_token = {"id": pushing["id"], "serial": enrolled_token(api, privacyidea, pushing, privacyidea.new_user("sweep"))}
    asking = new_phone(api, "Sweep privacyIDEA asking")
    containing = new_phone(api, "Sweep privacyIDEA container")
    container = {"id": containing["id"], "serial": registered_container(api, privacyidea, containing, privacyidea.new_user("sweep"))}
    leaving = {"id": containing["id"], "serial": registered_container(
        api, privacyidea, containing, privacyidea.new_user("sweep"), server_accepted=True)}
    api.call("startOutOfBand", "privacyIDEAPush", path={"id": asking["id"]}, expect=202)

    def redeem():
        device.redeem(wire, None)

    def verify():
        login = new_session(api, "login", wire_user)  # the wire user is enrolled by now
        device.redeem(login, "login")
        device.confirm(login["id"], "login", account=next(iter(device.account_seeds)))
        device.verify(login["id"], next(iter(device.account_seeds)), "rightPin")

    def confirm_transaction():
        account = next(iter(device.account_seeds))
        transaction = new_session(api, "transaction", wire_user, transaction="Pay 1 EUR")
        device.redeem(transaction, "transaction")
        device.confirm(transaction["id"], "login", account=account)
        device.confirm_transaction(transaction["id"], account, "Pay 1 EUR")

    def abandon_it():
        abandon = new_session(api, "login", wire_user)
        device.redeem(abandon, "login")
        device.abandon(abandon["id"])

    def cancel_a_retry():
        api.call("addFault", body={"target": "phone", "phoneId": slow["id"], "kind": "unreachable", "count": 2}, expect=201)
        screen = Screen(BASE_URL, slow["id"])
        try:
            change = in_background(lambda: requests.put(
                f"{BASE_URL}/api/phones/{slow['id']}/device-information", timeout=TIMEOUT,
                json={"name": "Sweep slow", "retryPolicy": {"type": "constant", "maxRetries": 1, "delay": 600}}))
            screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "waiting", "a wait")
            api.call("cancelOperation", path={"id": slow["id"]})
            Api.check(api, OPS["changeDeviceInformation"], change(), None)  # checked, not counted as the sweep's
        finally:
            screen.close()
            api.call("clearFaults", expect=204)

    first_account = lambda: next(iter(device.account_seeds))  # noqa: E731

    def management():
        started = device.manage(first_account(), "changePin")
        device.verify(started["sessionId"], first_account(), None)
        return started

    def set_factor():
        device.pin_seed = device.set_factor(management()["sessionId"], first_account(), "pin")

    def rotate():
        upgrade = new_session(api, "upgrade", wire_user)
        device.redeem(upgrade, None)
        device.rotate(upgrade["id"], first_account(), None)

    def remove_account():
        account = device.enrol_user(wire_user, examples=False)
        device.remove_account(account)

    def check_new_pin():
        pin_phone, screen = setting_a_pin(api, "Sweep PIN check")
        try:
            api.call("checkNewPin", path={"id": pin_phone["id"]}, body={"pin": "739184"})
        finally:
            screen.close()

    def take_phone_action():
        acting = new_phone(api, "Sweep actions")
        session = new_session(api, "enrol", uniq("sweep-actions"))
        api.call("startOutOfBand", path={"id": acting["id"]}, body={"qr": session["qrText"]}, expect=202)
        api.call("takePhoneAction", path={"id": acting["id"]}, body={"action": "confirmSession"})

    def stream_events():
        response = api.http.get(f"{BASE_URL}/api/events", stream=True, timeout=TIMEOUT)
        try:
            api.check(OPS["streamEvents"], response, None)
        finally:
            response.close()

    def remove_fault():
        fault = api.call("addFault", body={"target": "phone", "phoneId": NO_PHONE, "kind": "hang"}, expect=201)[1]
        api.call("removeFault", path={"id": fault["id"]})

    def generate_otp():
        fault = api.call("addFault", body={"target": "phone", "phoneId": otp_phone["id"], "kind": "offline"},
                         expect=201)[1]
        try:
            login = new_session(api, "login", otp_user)
            scan = requests.post(f"{BASE_URL}/api/phones/{otp_phone['id']}/oob", json={"qr": login["qrText"]},
                                 timeout=TIMEOUT)
            Api.check(api, OPS["startOutOfBand"], scan, None)  # checked, not counted as the sweep's
            assert scan.status_code == 502, describe(scan)
            api.call("generateOTP", path={"id": otp_phone["id"]}, body={})
        finally:
            api.call("removeFault", path={"id": fault["id"]}, expect=204)

    def otp_login():
        otp_device = Device(api)
        user = uniq("sweep-otp-wire")
        account = otp_device.enrol_user(user, examples=False, otp=True)
        api.call("setServerFlags", body={"flags": {"ENABLE_OTP": True}}, expect=200)
        login = new_session(api, "login", user)
        api.call("otpLogin", path={"id": login["id"]}, body={"otp": otp_device.otp(account, login)})

    def issue_access_token():
        key_file = api.call("getServiceAccount", path={"project": "authphone"})[1]
        api.call("issueAccessToken", raw=token_request(google_auth_assertion(key_file)),
                 content_type="application/x-www-form-urlencoded")

    def reset_elsewhere():
        """A reset would erase what the rest of the sweep works on: it runs on a server of its own,
        its answer checked (and counted) as the sweep's."""
        with own_server() as url:
            answer = requests.post(f"{url}/api/reset", headers={"Content-Type": "application/json"}, timeout=TIMEOUT)
            api.check(OPS["resetAll"], answer, None)
            assert answer.status_code == 204, describe(answer)

    def from_tls_server(op_id):
        """The local CA's downloads exist only on a server started with --tls: one of its own,
        reached trusting only its CA, its answer checked (and counted) as the sweep's."""
        port = free_port()
        with tempfile.TemporaryDirectory() as folder, \
                serving(pathlib.Path(folder), ["--tls", "--data-dir", f"{folder}/data", "--pin-kdf", "fast", "--port", str(port)],
                        port=port, ready_status=307):
            answer = requests.get(f"https://127.0.0.1:{port}{OPS[op_id].path}", verify=f"{folder}/data/tls/ca.crt", timeout=TIMEOUT)
            api.check(OPS[op_id], answer, None)

    def on_a_manual_clock():
        """Only a server started with --clock manual moves its clock: one of its own."""
        with own_server("--clock", "manual") as url:
            api.check(OPS["advanceClock"], requests.post(url + OPS["advanceClock"].path, json={"advanceSeconds": 60}, timeout=TIMEOUT), None)

    def recorded():
        """A recording started and stopped on the sweep's server, where one records at a time; its id."""
        started = api.call("startRecording", body={"name": "Sweep walk"}, expect=201)[1]
        api.call("stopRecording", path={"id": started["id"]}, expect=200)
        return started["id"]

    def start_recording():
        started = api.call("startRecording", body={"name": "Sweep recording"})[1]
        api.call("stopRecording", path={"id": started["id"]}, expect=200)

    def stop_recording():
        started = api.call("startRecording", body={}, expect=201)[1]
        api.call("stopRecording", path={"id": started["id"]})

    def sms_auth():
        account = api.call("getSMSAccount", expect=200)[1]
        return {"Authorization": requests.auth._basic_auth_str(account["accountSid"], account["authToken"])}

    def twilio_path():
        return {"account": api.call("getSMSAccount", expect=200)[1]["accountSid"]}

    def create_twilio_message(text="Sweep 4321"):
        form = urllib.parse.urlencode({"To": phone["number"], "From": "+15005550006", "Body": text}).encode()
        return api.call("createTwilioMessage", path=twilio_path(), raw=form, content_type="application/x-www-form-urlencoded",
                        headers=sms_auth())[1]

    def get_twilio_message():
        sid = Api.check(api, OPS["sendSMS"], requests.post(f"{BASE_URL}/sms/send", json={"to": phone["number"], "text": "Sweep 8765"},
                                                            headers=sms_auth(), timeout=TIMEOUT), None)["id"]
        api.call("getTwilioMessage", path={**twilio_path(), "message": sid}, headers=sms_auth())

    sweep = {
        "health": lambda: api.call("health"),
        "listTextMessages": lambda: api.call("listTextMessages", path={"id": phone["id"]}),
        "clearTextMessages": lambda: api.call("clearTextMessages", path={"id": phone["id"]}),
        "getSMSAccount": lambda: api.call("getSMSAccount"),
        "listSMSLog": lambda: api.call("listSMSLog", query={"limit": "5"}),
        "clearSMSLog": lambda: api.call("clearSMSLog"),
        "sendSMSByQuery": lambda: api.call("sendSMSByQuery", query={"to": phone["number"], "text": "Sweep 1234"}, headers=sms_auth()),
        "sendSMS": lambda: api.call("sendSMS", body={"to": phone["number"], "text": "Sweep 5678"}, headers=sms_auth()),
        "createTwilioMessage": create_twilio_message,
        "getTwilioMessage": get_twilio_message,
        "resetAll": reset_elsewhere,
        "deletePhone": lambda: api.call("deletePhone", path={"id": new_phone(api, "Sweep doomed")["id"]}),
        "ready": lambda: api.call("ready", "ready"),
        "metrics": lambda: api.call("metrics", "metrics"),
        "getOpenAPI": lambda: api.call("getOpenAPI"),
        "indexPage": lambda: api.call("indexPage"),
        "consolePage": lambda: api.call("consolePage"),
        "stagePage": lambda: api.call("stagePage"),
        "consoleSessionPage": lambda: api.call("consoleSessionPage", path={"id": enrol["id"]}),
        "pushSession": lambda: api.call("pushSession", path={"id": to_push["id"]},
                                        body={"pushToken": pushed_phone["fcmToken"]}),
        "getSessionTimeline": lambda: api.call("getSessionTimeline", path={"id": to_push["id"]}),
        "getPhoneTimeline": lambda: api.call("getPhoneTimeline", path={"id": pushed_phone["id"]}),
        "phonePage": lambda: api.call("phonePage", path={"id": phone["id"]}),
        "createPhone": lambda: api.call("createPhone", body={"name": "Sweep extra"}),
        "listPhones": lambda: api.call("listPhones"),
        "getPhone": lambda: api.call("getPhone", path={"id": phone["id"]}),
        "updatePhoneSettings": lambda: api.call("updatePhoneSettings", path={"id": phone["id"]},
                                                body={"openPushesAtOnce": False}),
        "startOutOfBandFromImage": lambda: api.call("startOutOfBandFromImage", path={"id": camera["id"]}, raw=picture,
                                                    content_type="image/png"),
        "getPendingOperations": lambda: api.call("getPendingOperations", path={"id": phone["id"]}),
        "pendingOperations": lambda: device.pending(next(iter(device.account_seeds))),
        "startOutOfBand": lambda: api.call("startOutOfBand", path={"id": scanner["id"]}, body={"qr": enrol["qrText"]}),
        "generateOTP": generate_otp,
        "getInbox": lambda: api.call("getInbox", path={"id": phone["id"]}),
        "receivePush": lambda: api.call("receivePush", path={"id": phone["id"]},
                                        body=OPS["receivePush"].request_examples["loginPush"][0]),
        "startPhoneFlow": lambda: api.call("startPhoneFlow", path={"id": managed["id"]}, body={"type": "CHANGE_PIN"}),
        "addBiometricFeature": lambda: api.call("addBiometricFeature", path={"id": phone["id"]}, body={}),
        "removeBiometricFeatures": lambda: api.call("removeBiometricFeatures", path={"id": phone["id"]}),
        "removeAllAccounts": lambda: api.call("removeAllAccounts", path={"id": phone["id"]}),
        "removePhoneAccount": lambda: api.call("removePhoneAccount",
                                               path={"id": local["id"], "account": local_accounts[0]}),
        "getLocalData": lambda: api.call("getLocalData", path={"id": local["id"]}),
        "deleteAuthenticator": lambda: api.call("deleteAuthenticator", path={"id": local["id"]},
                                                body={"userId": local_users[1], "aaid": "BIOMETRICS"}),
        "getDeviceInformation": lambda: api.call("getDeviceInformation", path={"id": phone["id"]}),
        "changeDeviceInformation": lambda: api.call("changeDeviceInformation", path={"id": rotating["id"]},
                                                    body={"name": "Sweep renamed", "retryPolicy": {"type": "none"}}),
        "rotateFcmToken": lambda: api.call("rotateFcmToken", path={"id": rotating["id"]},
                                           body={"retryPolicy": {"type": "none"}}),
        "cancelOperation": cancel_a_retry,
        "listOTPAccounts": lambda: api.call("listOTPAccounts", path={"id": keys["id"]}),
        "getOTPCode": lambda: api.call("getOTPCode", path={"id": keys["id"], "account": totp_account["id"]}),
        "nextOTPCode": lambda: api.call("nextOTPCode", path={"id": keys["id"], "account": hotp_account["id"]}, body={}),
        "deleteOTPAccount": lambda: api.call("deleteOTPAccount", path={"id": keys["id"], "account": doomed_account["id"]}),
        "addAutoAnswerRule": lambda: api.call("addAutoAnswerRule", path={"id": ruled["id"]}, body={"answer": "decline"}),
        "listAutoAnswerRules": lambda: api.call("listAutoAnswerRules", path={"id": ruled["id"]}),
        "clearAutoAnswerRules": lambda: api.call("clearAutoAnswerRules", path={"id": ruled["id"]}),
        "deleteAutoAnswerRule": lambda: api.call("deleteAutoAnswerRule", path={"id": ruled["id"], "rule": api.call(
            "addAutoAnswerRule", path={"id": ruled["id"]}, body={"answer": "decline"}, expect=201)[1]["id"]}),
        "listPushTokens": lambda: api.call("listPushTokens", path={"id": pushing["id"]}),
        "listContainers": lambda: api.call("listContainers", path={"id": containing["id"]}),
        "syncContainer": lambda: api.call("syncContainer", path=container, body={}),
        "rolloverContainer": lambda: api.call("rolloverContainer", path=container, body={}),
        "unregisterContainer": lambda: api.call("unregisterContainer", path=leaving),
        "pollPushToken": lambda: api.call("pollPushToken", path=push_token, body={}),
        "deletePushToken": lambda: api.call("deletePushToken", path=push_token),
        "getPrivacyIDEARequest": lambda: api.call("getPrivacyIDEARequest", path={"id": asking["id"]}),
        "answerPrivacyIDEA": lambda: api.call("answerPrivacyIDEA", path={"id": asking["id"]}, body={"accept": False}),
        "clearInbox": lambda: api.call("clearInbox", path={"id": phone["id"]}),
        "openInboxMessage": lambda: api.call("openInboxMessage", path={"id": opener["id"], "message": message["id"]}),
        "createSession": lambda: api.call("createSession", body={"type": "enrol", "userId": "sweep"}),
        "getSecondFactorPolicy": lambda: api.call("getSecondFactorPolicy"),
        "setSecondFactorPolicy": lambda: api.call("setSecondFactorPolicy", body={"preset": "nextAuth"}),
        "getServerFlags": lambda: api.call("getServerFlags"),
        "getBackendServer": lambda: api.call("getBackendServer"),
        "unblockPin": lambda: api.call("unblockPin", body={"userId": otp_user}),
        "setServerFlags": lambda: api.call("setServerFlags", body={"flags": {"ENABLE_OTP": True}}),
        "otpLogin": otp_login,
        "listSessions": lambda: api.call("listSessions"),
        "getSession": lambda: api.call("getSession", path={"id": enrol["id"]}),
        "getSessionQRCode": lambda: api.call("getSessionQRCode", path={"id": enrol["id"]}),
        "redeemToken": redeem,
        "confirmSession": lambda: device.confirm(wire["id"], "enrol"),
        "enrolAccount": lambda: device.enrol(wire["id"]),
        "verifyPin": verify,
        "abandonSession": abandon_it,
        "confirmTransaction": confirm_transaction,
        "startManagement": management,
        "setSecondFactor": set_factor,
        "rotateAccountKey": rotate,
        "changeDevice": lambda: device.change_device(first_account(), name=uniq("Sweep device")),
        "removeAccount": remove_account,
        "checkNewPin": check_new_pin,
        "takePhoneAction": take_phone_action,
        "streamEvents": stream_events,
        "getClock": lambda: api.call("getClock"),
        "advanceClock": on_a_manual_clock,
        "listFaults": lambda: api.call("listFaults"),
        "addFault": lambda: api.call("addFault", body={"target": "phone", "phoneId": NO_PHONE, "kind": "unreachable"}),
        "clearFaults": lambda: api.call("clearFaults"),
        "removeFault": remove_fault,
        "listRecordings": lambda: api.call("listRecordings"),
        "startRecording": start_recording,
        "getRecording": lambda: api.call("getRecording", path={"id": recorded()}, query={"format": "pytest"}),
        "renameRecording": lambda: api.call("renameRecording", path={"id": recorded()}, body={"name": "Sweep renamed"}),
        "deleteRecording": lambda: api.call("deleteRecording", path={"id": recorded()}),
        "stopRecording": stop_recording,
        "sendPush": lambda: api.call("sendPush", path={"project": "authphone"},
                                     body={"message": {"token": phone["fcmToken"], "data": {"k": "v"}}}),
        "listPushMessages": lambda: api.call("listPushMessages", query={"limit": "5"}),
        "clearPushMessages": lambda: api.call("clearPushMessages"),
        "getComposerState": lambda: api.call("getComposerState", path={"console": "sweep"}),
        "saveComposerState": lambda: api.call("saveComposerState", path={"console": "sweep"},
                                              body={"templates": {}, "last": None}),
        "getServiceAccount": lambda: api.call("getServiceAccount", path={"project": "authphone"}),
        "issueAccessToken": issue_access_token,
        "getPhoneLink": lambda: api.call("getPhoneLink", path={"id": phone["id"]}),
        "getPhoneLinkQRCode": lambda: api.call("getPhoneLinkQRCode", path={"id": phone["id"]}),
        "getCertificateAuthority": lambda: from_tls_server("getCertificateAuthority"),
        "getCertificateAuthorityProfile": lambda: from_tls_server("getCertificateAuthorityProfile"),
    }
    assert set(sweep) == set(OPS), f"operations without a sweep request: {set(OPS) ^ set(sweep)}"
    answered = {}
    original = api.check

    def recording(op, response, example):
        answered.setdefault(op.id, []).append(response.status_code)
        return original(op, response, example)

    api.check = recording
    try:
        for op_id in OPS:  # the document's order: the wire steps follow one another
            sweep[op_id]()
    finally:
        api.check = original
    for op_id, statuses in answered.items():
        assert not {404, 405} & set(statuses[-1:]), f"{OPS[op_id]} answered {statuses[-1]} to a well-formed request"
    assert set(answered) >= set(OPS)
    for op_id in OPS:
        assert 200 <= answered[op_id][-1] < 300, f"{OPS[op_id]} answered {answered[op_id][-1]}"
