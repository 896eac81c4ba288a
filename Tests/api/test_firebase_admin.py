"""The official Firebase Admin Python SDK (`firebase-admin` from PyPI), pointed at AuthPhone as the
README says, drives a whole login: it pushes the login to the phone's Firebase installation id,
the phone opens it, confirms and gives the PIN, and the backend's session says logged in. Then
every way of sending the SDK has (send, send_each, send_each_for_multicast, dry_run) and every
error class it raises for FCM's refusals.

The README's recipe, done here once for all tests: the SDK's send URL is the class constant
`_MessagingService.FCM_URL` (firebase_admin/messaging.py), and any credential that holds an
access token will do (AuthPhone asks for none unless started with --push-token).

Environment: AUTHPHONE_URL (the running server; scripts/api-test.sh sets it).
"""

import asyncio
import datetime
import json
import uuid
import warnings

import firebase_admin
import google.oauth2.credentials
import pytest
import requests
from firebase_admin import credentials, exceptions, messaging

from client import BASE_URL, PIN, TIMEOUT, Screen, push_data

PROJECT = "authphone"
# The SDK's asynchronous client keeps its connections for the app's life: one event loop for all
# its calls, closed after the app (a loop per call would be closed under them).
LOOP = asyncio.new_event_loop()


class DummyCredential(credentials.Base):
    """A Google credential with a fixed access token: nothing is fetched from Google."""

    def get_credential(self):
        return google.oauth2.credentials.Credentials("authphone-dummy-token")


@pytest.fixture(scope="module")
def app():
    messaging._MessagingService.FCM_URL = BASE_URL + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(DummyCredential(), {"projectId": PROJECT}, name=f"authphone-{uuid.uuid4()}")
    yield app
    firebase_admin.delete_app(app)
    LOOP.close()


def api(method, path, **kwargs):
    response = requests.request(method, BASE_URL + path, timeout=TIMEOUT, **kwargs)
    assert response.ok, f"{method} {path}: {response.status_code} {response.text}"
    return response.json() if response.content else None


def new_phone(name):
    return api("POST", "/api/phones", json={"name": name})


def inbox(phone):
    return api("GET", f"/api/phones/{phone['id']}/inbox")["messages"]


def note(title="Hi"):
    return messaging.Notification(title=title, body="from the Firebase Admin SDK")


def test_a_whole_login_pushed_by_the_admin_sdk(app):
    phone = new_phone("Firebase Admin phone")
    assert phone["fcmToken"].startswith(phone["fid"] + ":")
    user = f"admin-sdk-{uuid.uuid4().hex[:8]}"
    screen = Screen(BASE_URL, phone["id"])
    try:
        screen.until(lambda m: m["type"] == "phone", "the phone's snapshot")
        # enrolment by QR, as a user does it once
        enrol = api("POST", "/api/backend/sessions", json={"type": "enrol", "userId": user})
        api("POST", f"/api/phones/{phone['id']}/oob", json={"qr": enrol["qrText"]})
        screen.flow("WAIT_FOR_INPUT", "CONFIRM")
        screen.send({"action": "confirmSession"})
        screen.flow("WAIT_FOR_INPUT", "SET_SECOND_FACTOR")
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")

        # the relying party's server pushes the login with the SDK, to the phone's FID
        login = api("POST", "/api/backend/sessions", json={"type": "login", "userId": user})
        name = messaging.send(messaging.Message(fid=phone["fid"], data=push_data(login["qrText"]), notification=note("Log in?")),
                              app=app)
        assert name.startswith(f"projects/{PROJECT}/messages/")
        arrived = screen.until(lambda m: m["type"] == "notification", "the pushed login")["notification"]
        assert arrived["name"] == name and arrived["message"]["notification"]["title"] == "Log in?"

        # the user taps it, confirms and gives the PIN
        api("POST", f"/api/phones/{phone['id']}/inbox/{arrived['id']}/open", json={})
        assert screen.flow("WAIT_FOR_INPUT", "CONFIRM")["session"]["id"] == login["id"]
        screen.send({"action": "confirmSession"})
        screen.flow("WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        screen.flow("DONE")
    finally:
        screen.close()
    assert api("GET", f"/api/backend/sessions/{login['id']}")["status"] == "loggedin"
    assert inbox(phone) == []


def every_field():
    """Every field the SDK's Message and MulticastMessage support, set, as the SDK's docs name them."""
    return dict(
        data={"kind": "every field", "n": "1"},
        notification=messaging.Notification(title="Every field", body="set by the Admin SDK", image="https://example.com/n.png"),
        android=messaging.AndroidConfig(
            collapse_key="enrol", priority="high", ttl=datetime.timedelta(seconds=3600, milliseconds=250),
            restricted_package_name="com.example.auth", data={"platform": "android"},
            notification=messaging.AndroidNotification(
                title="Android title", body="Android body", icon="ic_auth", color="#3366ff", sound="default", tag="auth",
                click_action="OPEN", body_loc_key="body_key", body_loc_args=["a", "b"], title_loc_key="title_key",
                title_loc_args=["c"], channel_id="auth", image="https://example.com/a.png", ticker="ticker", sticky=True,
                event_timestamp=datetime.datetime(2026, 11, 28, 10, 15, 30, 123456, tzinfo=datetime.timezone.utc),
                local_only=False, priority="high", vibrate_timings_millis=[100, 200, 1000], default_vibrate_timings=False,
                default_sound=True, light_settings=messaging.LightSettings("#33669980", 200, 300),
                default_light_settings=False, visibility="private", notification_count=3, proxy="if_priority_lowered"),
            fcm_options=messaging.AndroidFCMOptions(analytics_label="android-label"), direct_boot_ok=True,
            bandwidth_constrained_ok=False, restricted_satellite_ok=True),
        apns=messaging.APNSConfig(
            headers={"apns-priority": "10", "apns-push-type": "alert", "apns-expiration": "1767225600"},
            payload=messaging.APNSPayload(
                aps=messaging.Aps(
                    alert=messaging.ApsAlert(
                        title="iOS title", subtitle="sub", body="iOS body", loc_key="loc", loc_args=["x"],
                        title_loc_key="tloc", title_loc_args=["y"], action_loc_key="act", launch_image="launch.png",
                        custom_data={"extra": "alert"}),
                    badge=2, sound=messaging.CriticalSound("alarm.caf", critical=True, volume=0.8), content_available=True,
                    category="AUTH", thread_id="auth-thread", mutable_content=True, custom_data={"aps-extra": 1}),
                custom_key="custom"),
            fcm_options=messaging.APNSFCMOptions(analytics_label="ios-label", image="https://example.com/i.png"),
            live_activity_token="live-activity"),
        webpush=messaging.WebpushConfig(
            headers={"TTL": "300", "Urgency": "high"}, data={"platform": "web"},
            notification=messaging.WebpushNotification(
                title="Web title", body="Web body", icon="/i.png",
                actions=[messaging.WebpushNotificationAction("approve", "Approve", icon="/ok.png"),
                         messaging.WebpushNotificationAction("deny", "Deny")],
                badge="/b.png", data={"k": "v"}, direction="ltr", image="/w.png", language="en", renotify=True,
                require_interaction=True, silent=False, tag="web", timestamp_millis=1767225600000, vibrate=[100, 50, 100],
                custom_data={"extra": "web"}),
            fcm_options=messaging.WebpushFCMOptions(link="https://example.com/login")),
        fcm_options=messaging.FCMOptions(analytics_label="message-label"))


def logged_requests(phone):
    """The push log's requests for the phone, oldest first, as the console shows them."""
    entries = api("GET", f"/api/push/messages?phone={phone['id']}")["messages"]
    return [(entry["outcome"], json.loads(entry["request"])["message"]) for entry in reversed(entries)]


def test_a_message_with_every_field_the_sdk_supports(app):
    phone = new_phone("Every field phone")
    name = messaging.send(messaging.Message(fid=phone["fid"], **every_field()), app=app)
    [arrived] = inbox(phone)
    assert arrived["name"] == name
    assert arrived["message"]["data"] == {"kind": "every field", "n": "1"}
    assert arrived["message"]["notification"] == {"title": "Every field", "body": "set by the Admin SDK"}

    # the push log shows each block as the SDK wrote it
    [(outcome, sent)] = logged_requests(phone)
    assert outcome == "inbox"
    android = sent["android"]
    assert android["priority"] == "high" and android["ttl"] == "3600.250000000s"
    notification = android["notification"]
    assert notification["visibility"] == "PRIVATE" and notification["notification_priority"] == "PRIORITY_HIGH"
    assert notification["proxy"] == "IF_PRIORITY_LOWERED" and notification["event_time"] == "2026-11-28T10:15:30.123456Z"
    assert notification["vibrate_timings"] == ["0.100000000s", "0.200000000s", "1s"]
    assert notification["light_settings"]["color"]["red"] == 0.2 and notification["notification_count"] == 3
    assert android["fcm_options"] == {"analytics_label": "android-label"} and android["direct_boot_ok"] is True
    aps = sent["apns"]["payload"]["aps"]
    assert aps["alert"]["subtitle"] == "sub" and aps["sound"] == {"name": "alarm.caf", "critical": 1, "volume": 0.8}
    assert sent["apns"]["payload"]["custom_key"] == "custom" and sent["apns"]["live_activity_token"] == "live-activity"
    assert [a["action"] for a in sent["webpush"]["notification"]["actions"]] == ["approve", "deny"]
    assert sent["webpush"]["fcm_options"]["link"] == "https://example.com/login"
    assert sent["fcm_options"] == {"analytics_label": "message-label"}

    # the same message through send_each, and every field on a multicast, synchronous and not
    second = new_phone("Every field, second phone")
    batch = messaging.send_each([messaging.Message(fid=p["fid"], **every_field()) for p in (phone, second)], app=app)
    assert batch.success_count == 2, [r.exception for r in batch.responses]
    multicast = messaging.MulticastMessage(fids=[phone["fid"], second["fid"]], **every_field())
    batch = messaging.send_each_for_multicast(multicast, app=app)
    assert batch.success_count == 2, [r.exception for r in batch.responses]
    batch = LOOP.run_until_complete(messaging.send_each_for_multicast_async(multicast, app=app))
    assert batch.success_count == 2, [r.exception for r in batch.responses]
    assert [m["message"]["data"]["kind"] for m in inbox(phone)] == ["every field"] * 4
    assert [m["message"]["data"]["kind"] for m in inbox(second)] == ["every field"] * 3
    assert [outcome for outcome, _ in logged_requests(second)] == ["inbox"] * 3
    assert all(sent["android"]["notification"]["visibility"] == "PRIVATE" for _, sent in logged_requests(second))


def test_send_each_multicast_and_dry_run(app):
    first, second = new_phone("Multicast one"), new_phone("Multicast two")
    # the deprecated token target still works, beside the FID
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        by_token = messaging.Message(token=first["fcmToken"], data={"k": "token"})
    batch = messaging.send_each([by_token, messaging.Message(fid=second["fid"], data={"k": "fid"})], app=app)
    assert batch.success_count == 2, [r.exception for r in batch.responses]
    assert [m["message"]["data"] for m in inbox(first)] == [{"k": "token"}]
    assert [m["message"]["data"] for m in inbox(second)] == [{"k": "fid"}]

    multicast = messaging.MulticastMessage(fids=[first["fid"], second["fid"]], data={"k": "multicast"}, notification=note())
    batch = messaging.send_each_for_multicast(multicast, app=app)
    assert batch.success_count == 2 and batch.failure_count == 0
    assert [m["message"]["data"]["k"] for m in inbox(second)] == ["fid", "multicast"]

    # the asynchronous batch: httpx with HTTP/2 enabled, which speaks HTTP/1.1 to an http:// URL
    batch = LOOP.run_until_complete(
        messaging.send_each_async([messaging.Message(fid=first["fid"], data={"k": "async"})], app=app))
    assert batch.success_count == 1, [r.exception for r in batch.responses]
    assert [m["message"]["data"]["k"] for m in inbox(first)] == ["token", "multicast", "async"]

    # dry run: checked, named, delivered nowhere
    name = messaging.send(messaging.Message(fid=first["fid"], data={"k": "dry"}), dry_run=True, app=app)
    assert name.startswith(f"projects/{PROJECT}/messages/")
    batch = messaging.send_each_for_multicast(multicast, dry_run=True, app=app)
    assert batch.success_count == 2
    assert len(inbox(first)) == 3 and len(inbox(second)) == 2


def test_each_error_class_of_the_sdk(app):
    phone = new_phone("Refusing phone")
    old_fid = phone["fid"]
    api("POST", f"/api/phones/{phone['id']}/fcm-token/rotate", json={"retryPolicy": {"type": "none"}})
    new_fid = api("GET", f"/api/phones/{phone['id']}")["fid"]
    assert new_fid != old_fid

    # a rotated token's FID is unregistered; in a batch, only that message fails
    with pytest.raises(messaging.UnregisteredError):
        messaging.send(messaging.Message(fid=old_fid, data={"k": "v"}), app=app)
    batch = messaging.send_each_for_multicast(messaging.MulticastMessage(fids=[new_fid, old_fid], data={"k": "v"}),
                                              app=app)
    assert batch.responses[0].success
    assert isinstance(batch.responses[1].exception, messaging.UnregisteredError)

    # another project than the server's
    other = firebase_admin.initialize_app(DummyCredential(), {"projectId": "someone-else"}, name=f"other-{uuid.uuid4()}")
    try:
        with pytest.raises(messaging.SenderIdMismatchError):
            messaging.send(messaging.Message(fid=new_fid, data={"k": "v"}), app=other)
    finally:
        firebase_admin.delete_app(other)

    # refused by the server (over FCM's 4096 bytes) and by the SDK itself (two targets)
    with pytest.raises(exceptions.InvalidArgumentError) as refused:
        messaging.send(messaging.Message(fid=new_fid, data={"pad": "x" * 5000}), app=app)
    assert "4096" in str(refused.value)
    with pytest.raises(ValueError, match="Exactly one of fid, token, topic or condition"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            messaging.send(messaging.Message(fid=new_fid, token=phone["fcmToken"]), app=app)
    # only the multicast's message to the live FID was delivered
    assert [m["message"]["data"] for m in inbox(phone)] == [{"k": "v"}]

    # the push bombing guard: 30 a minute to one app instance, then FCM's 429 with Retry-After.
    # The asynchronous client raises it at once; the synchronous one (urllib3) would wait out
    # the Retry-After and try again, as it does with FCM.
    busy = new_phone("Busy phone")
    batch = LOOP.run_until_complete(messaging.send_each_async(
        [messaging.Message(fid=busy["fid"], data={"n": str(n)}) for n in range(31)], app=app))
    assert batch.success_count == 30
    refusal = next(r.exception for r in batch.responses if not r.success)
    assert isinstance(refusal, messaging.QuotaExceededError)
    assert int(refusal.http_response.headers["Retry-After"]) >= 1
