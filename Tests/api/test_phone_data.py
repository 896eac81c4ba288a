"""The live walk through a phone's local data and its device information: accounts deleted on the
phone or removed on both sides, and device information changed under retry policies through
faults on demand, an FCM token rotation and a cancelled retry.

Environment: as client.py says.
"""

from client import BASE_URL, NO_PHONE, Api, enrol_phone, in_background, new_phone, new_session, screen_of, uniq
from document import FINISHED


def test_walk_local_data_and_device_information(api):
    """Local data (deleteAuthenticator, account removal), device information changed under retry
    policies through faults on demand, an FCM token rotation, and a cancelled retry."""
    phone = new_phone(api, "Local phone")
    path = {"id": phone["id"]}
    lena, mark = uniq("lena"), uniq("mark")
    lena_account = enrol_phone(api, phone, lena)
    mark_account = enrol_phone(api, phone, mark)
    _, local = api.call("getLocalData", "twoUsers", path=path, expect=200)
    assert sorted(a["userId"] for a in local["accounts"]) == sorted([lena, mark])
    _, local = api.call("deleteAuthenticator", "pin", path=path, merge={"userId": lena}, expect=200)
    assert [a["userId"] for a in local["accounts"]] == [mark]
    # the backend keeps lena's account
    new_session(api, "login", lena, accountId=lena_account)
    for refused, status in (("userNotFound", 404), ("missingUser", 400)):
        api.call("deleteAuthenticator", refused, path=path, expect=status)
    api.call("deleteAuthenticator", "badAaid", path=path, merge={"userId": mark}, expect=400)
    api.call("deleteAuthenticator", "phoneNotFound", path={"id": NO_PHONE}, body={"userId": mark}, expect=404)
    _, local = api.call("removePhoneAccount", "removed", path={**path, "account": mark_account}, expect=200)
    assert local["accounts"] == []
    # gone at the backend too
    api.call("createSession", body={"type": "login", "userId": mark, "accountId": mark_account}, expect=404)
    api.call("removePhoneAccount", "accountNotFound", path={**path, "account": mark_account}, expect=404)
    api.call("removePhoneAccount", "phoneNotFound", path={"id": NO_PHONE, "account": mark_account}, expect=404)
    api.call("getLocalData", "phoneNotFound", path={"id": NO_PHONE}, expect=404)

    # Device information.
    api.call("getDeviceInformation", "newPhone", path={"id": new_phone(api, "Plain phone")["id"]}, expect=200)
    api.call("getDeviceInformation", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    dan = uniq("dan")
    device = new_phone(api, "Device phone")
    twin = new_phone(api, "Twin phone")
    enrol_phone(api, device, dan)
    enrol_phone(api, twin, dan)
    path = {"id": device["id"]}
    screen = screen_of(api, device)
    name = uniq("Work phone")
    _, result = api.call("changeDeviceInformation", "rename", path=path, merge={"name": name}, expect=200)
    assert result["deviceInformation"]["name"] == name and [a["outcome"] for a in result["progress"]["attempts"]] == ["success"]
    assert screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "succeeded",
                        "the change succeeded")["operation"]["id"] == result["progress"]["id"]
    assert any(m["type"] == "phone" and m["phone"]["name"] == name for m in screen.seen), "the screen got the new name"
    api.call("cancelOperation", "noOperation", path=path, expect=409)
    api.call("cancelOperation", "phoneNotFound", path={"id": NO_PHONE}, expect=404)
    try:
        # A 503 with Retry-After 1: the second attempt waits and succeeds.
        api.call("addFault", "backend503", expect=201)
        name = uniq("Retry phone")
        _, result = api.call("changeDeviceInformation", "retried", path=path, merge={"name": name}, expect=200)
        attempts = result["progress"]["attempts"]
        assert [a["outcome"].split(":")[0] for a in attempts] == ["HTTP_503", "success"] and attempts[1]["waitedBefore"] >= 1
        _, result = api.call("changeDeviceInformation", "pushesOff", path=path, expect=200)
        assert result["deviceInformation"]["pushNotifications"] is False
        assert api.call("getPhone", path=path, expect=200)[1]["pushNotifications"] is False
        api.call("changeDeviceInformation", "nameTaken", path={"id": twin["id"]}, merge={"name": name}, expect=409)
        for refused in ("incompletePolicy", "tokenAndPushesOff"):
            api.call("changeDeviceInformation", refused, path=path, expect=400)
        api.call("changeDeviceInformation", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)

        # The platform rotates the FCM token: the old one is unregistered at once.
        old_token = api.call("getPhone", path=path, expect=200)[1]["fcmToken"]
        _, result = api.call("rotateFcmToken", "rotate", path=path, expect=200)
        assert result["deviceInformation"]["fcmToken"] != old_token and result["deviceInformation"]["pushNotifications"]
        api.call("sendPush", path={"project": "authphone"}, body={"message": {"token": old_token, "data": {"k": "v"}}},
                 expect=404)
        api.call("rotateFcmToken", "incompletePolicy", path=path, expect=400)
        api.call("rotateFcmToken", "phoneNotFound", path={"id": NO_PHONE}, body={}, expect=404)

        # The backend refuses this phone's connections: every attempt fails, each on the screen.
        _, fault = api.call("addFault", "phoneUnreachable", merge={"phoneId": device["id"]}, expect=201)
        shown = screen.until(lambda m: m["type"] == "faults" and fault["id"] in [f["id"] for f in m["faults"]],
                             "the fault on the screen")["faults"]
        assert [f["target"] for f in shown] == ["phone"]
        _, listed = api.call("listFaults", "oneFault", expect=200)
        assert [f["id"] for f in listed["faults"]] == [fault["id"]]
        _, refusal = api.call("changeDeviceInformation", "backendDown", path=path, merge={"name": uniq("Down")}, expect=502)
        assert [a["number"] for a in refusal["error"]["attempts"]] == [1, 2, 3]
        waiting = screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "waiting", "a wait")
        assert waiting["operation"]["nextAttemptIn"] >= 0 and "nextAttemptAt" in waiting["operation"]
        failed = screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "failed", "the failure")
        assert failed["operation"]["error"]["code"] == "DEVICE_INFORMATION_CHANGE_FAILED"
        api.call("listFaults", "none", expect=200)  # its count is used up
        api.call("removeFault", "faultNotFound", path={"id": fault["id"]}, expect=404)

        # Cancelled while it waits to retry.
        api.call("addFault", body={"target": "phone", "phoneId": device["id"], "kind": "unreachable", "count": 4},
                 expect=201)
        cancelled = in_background(lambda: Api(BASE_URL).call(
            "changeDeviceInformation", "cancelled", path=path, merge={"name": uniq("Slow")}, expect=409)[1])
        screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "waiting", "a wait")
        api.call("cancelOperation", path=path, expect=202)
        assert cancelled()["error"]["code"] == "OPERATION_CANCELLED"
        assert screen.until(lambda m: m["type"] == "operation" and m["operation"]["state"] == "cancelled",
                            "the cancellation")["operation"]["error"]["code"] == "OPERATION_CANCELLED"

        # Faults for the push service, and refused faults.
        _, delayed = api.call("addFault", "delayedPush", expect=201)
        api.call("removeFault", path={"id": delayed["id"]}, expect=204)
        for refused in ("phoneWithoutId", "notAnErrorStatus", "dropOnBackend", "missingTarget"):
            api.call("addFault", refused, expect=400)
    finally:
        api.call("clearFaults", expect=204)
    screen.close()
    assert api.call("listFaults", expect=200)[1] == {"faults": []}
    FINISHED.add("local data")
