"""privacyIDEA's Firebase provider against AuthPhone with nothing changed but its send URL
(`FIREBASE_URL_SEND` in privacyidea/lib/smsprovider/FirebaseProvider.py): google-auth itself reads
the service-account JSON AuthPhone hands out (`service_account.Credentials`), fetches its access
token from the JSON's `token_uri` (AuthPhone's token endpoint, RFC 7523's JWT-bearer grant), and
its `AuthorizedSession` posts privacyIDEA's exact message to a phone, delivered with its data
whole (the push log shows it as sent). Then what AuthPhone refuses: an assertion signed by another key, a token used
for another project, a token it forgot; and, on a server with an access key and a push token,
what each route needs.

Environment: as client.py says, and AUTHPHONE_BINARY for the server with keys.
"""

import json
import secrets
import time
import urllib.parse

import google.auth.exceptions
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth.transport.requests import AuthorizedSession
from google.oauth2 import service_account

from client import BASE_URL, PRIVACYIDEA_SCOPES, TIMEOUT, Api, describe, google_auth_assertion, new_phone, token_request
from document import FINISHED, OPS
from servers import own_server

FORM = "application/x-www-form-urlencoded"
# privacyIDEA's own header on a send
SEND_HEADERS = {"Content-Type": "application/json; UTF-8"}


def pi_data():
    """A push challenge's data as privacyIDEA's push token builds it (`_build_smartphone_data`),
    with the fields it adds for `push_require_presence`."""
    return {"nonce": secrets.token_hex(32).upper(), "question": "Do you want to confirm the login?",
            "serial": "PIPU0001C0A3", "title": "privacyIDEA", "sslverify": "0",
            "url": "http://127.0.0.1:5000/ttype/push", "signature": secrets.token_hex(64).upper(),
            "require_presence": "1", "version": "1", "capabilities": json.dumps({"presence": ["A", "B", "C"]}),
            "capabilities_signature": secrets.token_hex(32)}


def pi_message(token, data):
    """privacyIDEA's FCM message, as `FirebaseProvider.submit_message` writes it."""
    return {"message": {
        "data": data, "token": token,
        "notification": {"title": data.get("title"), "body": data.get("question")},
        "android": {"priority": "HIGH", "ttl": "120s", "fcm_options": {"analytics_label": "AndroidPushToken"}},
        "apns": {
            "headers": {"apns-priority": "10", "apns-push-type": "alert", "apns-collapse-id": "privacyidea.pushtoken",
                        "apns-expiration": str(int(time.time()) + 120)},
            "payload": {"aps": {"alert": {"title": data.get("title"), "body": data.get("question")},
                                "sound": "default", "category": "PUSH_AUTHENTICATION"}},
            "fcm_options": {"analytics_label": "iOSPushToken"}}}}


def key_file(api, project, headers=None):
    response, info = api.call("getServiceAccount", "serviceAccount", path={"project": project}, headers=headers, expect=200)
    assert response.headers["Content-Disposition"] == f'attachment; filename="authphone-{project}-service-account.json"'
    return info


def sender(info):
    """google-auth's credentials from the key file, as privacyIDEA makes them."""
    return service_account.Credentials.from_service_account_info(info, scopes=PRIVACYIDEA_SCOPES)


def forged(info):
    """The key file with a key of the forger's own: its assertions name the account but are not its."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return {**info, "private_key": pem.decode()}


def ask_for_token(api, example, form):
    return api.call("issueAccessToken", example, raw=form, content_type=FORM)


def delivered(api, phone, headers=None):
    """The messages the push service delivered to the phone, oldest first, as they were sent: its
    push log says so, since the phone takes a privacyIDEA challenge off its inbox as it arrives
    (and drops one for a token it does not hold)."""
    log = api.call("listPushMessages", query={"phone": phone["id"]}, headers=headers, expect=200)[1]["messages"]
    return [json.loads(entry["request"])["message"] for entry in reversed(log) if entry.get("name")]


def test_privacyidea_sends_through_authphone_with_google_auth(api):
    phone = new_phone(api, "privacyIDEA phone")
    info = key_file(api, "authphone")
    assert info["type"] == "service_account" and info["project_id"] == "authphone"
    assert info["token_uri"] == BASE_URL + "/oauth2/token"
    assert key_file(api, "authphone") == info, "a later ask gets the same account and key"

    credentials = sender(info)
    data = pi_data()
    sent = AuthorizedSession(credentials).post(f"{BASE_URL}/v1/projects/{info['project_id']}/messages:send",
                                               data=json.dumps(pi_message(phone["fcmToken"], data)),
                                               headers=SEND_HEADERS, timeout=TIMEOUT)
    assert sent.status_code == 200, describe(sent)
    assert sent.json()["name"].startswith("projects/authphone/messages/")
    assert credentials.valid, "google-auth holds the access token AuthPhone issued"
    arrived = delivered(api, phone)[-1]
    assert arrived["data"] == data
    assert arrived["notification"] == {"title": "privacyIDEA", "body": "Do you want to confirm the login?"}

    # a token this server forgot (as a restart forgets them) answers 401: google-auth fetches
    # a new one and sends again, as it does with Google
    credentials.token = "authphone-oauth.forgotten"
    again = AuthorizedSession(credentials).post(f"{BASE_URL}/v1/projects/authphone/messages:send",
                                                data=json.dumps(pi_message(phone["fcmToken"], pi_data())),
                                                headers=SEND_HEADERS, timeout=TIMEOUT)
    assert again.status_code == 200, describe(again)
    assert credentials.token != "authphone-oauth.forgotten"
    assert len(delivered(api, phone)) == 2

    # the documented message, replayed as is (this server takes sends without a token)
    api.call("sendPush", "privacyIDEA", path={"project": "authphone"}, merge={"message": {"token": phone["fcmToken"]}},
             expect=200)
    api.call("getServiceAccount", "invalidProject", path={"project": "Not_A_Project"}, expect=400)


def test_the_token_endpoint_as_documented(api):
    info = key_file(api, "authphone")
    _, grant = ask_for_token(api, "jwtBearer", token_request(google_auth_assertion(info)))
    assert grant["token_type"] == "Bearer" and grant["expires_in"] == 3600

    fake = google_auth_assertion(forged(info))
    response, refusal = ask_for_token(api, "forgedAssertion", token_request(fake))
    assert response.status_code == 400 and refusal["error"] == "invalid_grant"
    assert fake.split(".")[1] not in response.text and fake.split(".")[2] not in response.text, "the assertion is echoed"
    assert response.headers["Cache-Control"] == "no-store"
    ask_for_token(api, "unsupportedGrantType",
                  urllib.parse.urlencode(OPS["issueAccessToken"].request_examples["unsupportedGrantType"][0]).encode())

    # google-auth shows the refusal's words
    with pytest.raises(google.auth.exceptions.RefreshError, match="signature does not verify"):
        AuthorizedSession(sender(forged(info))).post(f"{BASE_URL}/v1/projects/authphone/messages:send",
                                                     data=json.dumps({"message": {"token": "x"}}),
                                                     headers=SEND_HEADERS, timeout=TIMEOUT)


def test_a_token_for_another_project_or_forgotten_is_refused(api):
    phone = new_phone(api, "Refusing privacyIDEA phone")
    other = sender(key_file(api, "someone-else"))
    send = pi_message(phone["fcmToken"], pi_data())
    response = AuthorizedSession(other).post(f"{BASE_URL}/v1/projects/authphone/messages:send", data=json.dumps(send),
                                             headers=SEND_HEADERS, timeout=TIMEOUT)
    assert response.status_code == 403, describe(response)
    api.call("sendPush", "permissionDenied", path={"project": "authphone"}, body=send,
             headers={"Authorization": f"Bearer {other.token}"}, expect=403)
    api.call("sendPush", "expiredAccessToken", path={"project": "authphone"}, body=send,
             headers={"Authorization": "Bearer authphone-oauth.forgotten"}, expect=401)
    assert delivered(api, phone) == []
    refused = api.call("listPushMessages", query={"phone": phone["id"]}, expect=200)[1]["messages"]
    assert [m["outcome"] for m in refused] == ["UNAUTHENTICATED", "PERMISSION_DENIED", "PERMISSION_DENIED"]
    FINISHED.add("service account")


def test_with_an_access_key_and_a_push_token():
    """The key file needs the access key, the token endpoint none; the FCM route takes an issued
    token and the push token alike."""
    key, push_token = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
    with own_server(f"--access-key={key}", f"--push-token={push_token}") as url:
        api = Api(url)
        headers = {"Authorization": f"Bearer {key}"}
        phone = requests.post(url + "/api/phones", json={"name": "Keyed privacyIDEA phone"}, headers=headers,
                              timeout=TIMEOUT).json()
        info = key_file(api, "authphone", headers=headers)
        assert info["token_uri"] == url + "/oauth2/token"
        send = f"{url}/v1/projects/authphone/messages:send"
        sent = AuthorizedSession(sender(info)).post(send, data=json.dumps(pi_message(phone["fcmToken"], pi_data())),
                                                    headers=SEND_HEADERS, timeout=TIMEOUT)
        assert sent.status_code == 200, describe(sent)
        by_push_token = requests.post(send, json={"message": {"token": phone["fcmToken"], "data": {"k": "v"}}},
                                      headers={"Authorization": f"Bearer {push_token}"}, timeout=TIMEOUT)
        assert by_push_token.status_code == 200, describe(by_push_token)
        unkeyed = requests.post(send, json={"message": {"token": phone["fcmToken"]}}, timeout=TIMEOUT)
        assert unkeyed.status_code == 401
        assert [m["data"].get("serial") for m in delivered(api, phone, headers)] == ["PIPU0001C0A3", None]
