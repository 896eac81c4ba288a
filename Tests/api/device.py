"""A device of the test's own on the phone wire: its Ed25519 keys (keys.py) and the signed requests
of docs/protocol.md, and the offline OTP of docs/otp.md computed apart from the server."""

import base64
import datetime
import hashlib
import hmac
import secrets
import struct
import time
import uuid

from client import deep_merge, new_session, payload_of
from document import OPS
from keys import ed25519, x25519


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def utc_now(offset=0):
    moment = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=offset)
    return moment, moment.strftime("%Y-%m-%dT%H:%M:%SZ")


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def crockford(value, length):
    return "".join(CROCKFORD[(value >> (5 * (length - 1 - i))) & 31] for i in range(length))


def otp_step(at=None):
    """The offline OTP's 2-minute time step (of the unix time `at`, or now)."""
    return int(time.time() if at is None else at) // 120


def offline_otp(key, session_data, reference, step):
    """docs/otp.md's offline OTP, independently of the server: `XXXXXX XXXXXX`."""
    data = session_data.encode()
    message = (b"AuthPhone offline OTP v1\x00" + struct.pack(">I", len(data)) + data + struct.pack(">I", reference)
               + struct.pack(">q", step))
    mac = hmac.new(key, message, hashlib.sha256).digest()
    offset = mac[-1] & 15
    value = int.from_bytes(mac[offset:offset + 4], "big") & 0x3FFFFFFF  # 31-bit truncation, then 30 bits
    return f"{crockford(reference, 6)} {crockford(value, 6)}"


class Device:
    """A device of the test's own on the phone wire: Ed25519 keys and the signed requests."""

    def __init__(self, api):
        self.api = api
        self.id = f"API-TEST-{uuid.uuid4()}".upper()
        self.pin_seed = secrets.token_bytes(32)
        self.device_seed = secrets.token_bytes(32)  # the device's own key: signs what no account key signs
        self.public_key = b64(ed25519.public_key(self.device_seed))
        self.account_seeds = {}
        self.challenges = {}
        self.server_keys = {}  # session id -> the server's Ed25519 key, from the redeem answer
        self.otp_keys = {}  # account id -> (reference, the offline OTP key)

    def sign(self, message):
        """The device key's signature over `message` (text), base64url."""
        return b64(ed25519.sign(self.device_seed, message.encode()))

    def redeeming(self, token, device_id=None):
        """A redeem request's fields for `token`, signed by this device's key (for `device_id`,
        its own id unless given)."""
        device_id = self.id if device_id is None else device_id
        return {"token": token, "deviceId": device_id, "devicePublicKey": self.public_key,
                "deviceSignature": self.sign(f"authphone/v1 redeem\n{token}\n{device_id}\n{self.public_key}")}

    def confirming(self, session_id, account=""):
        """The device key's signature of a confirm (an enrolment's names no account)."""
        return self.sign(f"authphone/v1 confirm\n{session_id}\n{self.challenges[session_id]}\n{account}")

    def redeem(self, session, example):
        token = payload_of(session["qrText"])["nma_data"]["token"]
        _, answer = self.api.call("redeemToken", example, merge=self.redeeming(token), expect=200)
        assert answer["sessionId"] == session["id"]
        message = f"authphone/v1 server\n{answer['sessionId']}\n{answer['challenge']}".encode()
        assert ed25519.verify(unb64(answer["server"]["publicKey"]), message, unb64(answer["serverSignature"])), \
            "the redeem answer is not signed by the server's key"
        self.challenges[session["id"]] = answer["challenge"]
        self.server_keys[session["id"]] = unb64(answer["server"]["publicKey"])
        return answer

    def confirm(self, session_id, example, account=None):
        merge = {"deviceId": self.id, "deviceSignature": self.confirming(session_id, account or "")}
        if account:
            message = f"authphone/v1 confirm\n{session_id}\n{self.challenges[session_id]}\n{account}".encode()
            merge |= {"accountId": account, "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        _, answer = self.api.call("confirmSession", example, path={"id": session_id}, merge=merge, expect=200)
        self.challenges[session_id] = answer["challenge"]
        return answer

    def enrol(self, session_id, example="enrol", otp=False):
        """Enrols a new account; with `otp`, agrees an offline OTP key as the phone does (docs/behaviour.md#offline-otp)
        and checks the server key's signature over the backend's half."""
        account_seed = secrets.token_bytes(32)
        account_key = b64(ed25519.public_key(account_seed))
        message = f"authphone/v1 enrol\n{session_id}\n{self.challenges[session_id]}\n{account_key}".encode()
        merge = {"deviceId": self.id, "accountPublicKey": account_key,
                 "accountSignature": b64(ed25519.sign(account_seed, message)),
                 "pinPublicKey": b64(ed25519.public_key(self.pin_seed)),
                 "pinSignature": b64(ed25519.sign(self.pin_seed, message)),
                 "deviceSignature": b64(ed25519.sign(self.device_seed, message))}
        otp_secret = secrets.token_bytes(32)
        if otp:
            merge["otpPublicKey"] = b64(x25519.public_key(otp_secret))
        _, answer = self.api.call("enrolAccount", example, path={"id": session_id}, merge=merge, expect=200)
        assert answer["result"] == "accepted"
        self.account_seeds[answer["accountId"]] = account_seed
        assert ("otp" in answer) == otp, "an OTP key half comes back exactly when the phone sent its own"
        if otp:
            half = answer["otp"]
            signed = (f"authphone/v1 otp\n{session_id}\n{answer['accountId']}\n{half['reference']}\n"
                      f"{half['serverPublicKey']}\n{merge['otpPublicKey']}").encode()
            assert ed25519.verify(self.server_keys[session_id], signed, unb64(half["signature"])), \
                "the backend's OTP key half is not signed by the server's key"
            self.otp_keys[answer["accountId"]] = (
                half["reference"], x25519.client_receive_key(otp_secret, unb64(half["serverPublicKey"])))
        return answer["accountId"]

    def abandon(self, session_id, code="USER_CANCELED", example=None, expect=200, device_id=None):
        """Ends a session's flow without success, signed by this device's key."""
        body = {"deviceId": self.id if device_id is None else device_id, "code": code,
                "deviceSignature": self.sign(f"authphone/v1 abandon\n{session_id}\n{code}")}
        return self.api.call("abandonSession", example, path={"id": session_id}, merge=body, expect=expect)[1]

    def otp(self, account, session, step=None):
        """The offline OTP of `account` for a login session's QR code, as docs/otp.md computes it."""
        reference, key = self.otp_keys[account]
        return offline_otp(key, payload_of(session["qrText"])["nma_data"]["token"], reference,
                           otp_step() if step is None else step)

    def verify(self, session_id, account, example, right=True, expect=200):
        message = f"authphone/v1 pin\n{session_id}\n{self.challenges[session_id]}\n{account}".encode()
        pin_seed = self.pin_seed if right else secrets.token_bytes(32)
        merge = {"deviceId": self.id, "accountId": account,
                 "accountSignature": b64(ed25519.sign(self.account_seeds[account], message)),
                 "pinSignature": b64(ed25519.sign(pin_seed, message))}
        _, answer = self.api.call("verifyPin", example, path={"id": session_id}, merge=merge, expect=expect)
        if "challenge" in answer:
            self.challenges[session_id] = answer["challenge"]
        return answer

    def confirm_transaction(self, session_id, account, text, example="signed", expect=200):
        message = f"authphone/v1 transaction\n{session_id}\n{self.challenges[session_id]}\n{account}\n{text}".encode()
        merge = {"deviceId": self.id, "accountId": account, "transaction": text,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        _, answer = self.api.call("confirmTransaction", example, path={"id": session_id}, merge=merge, expect=expect)
        if expect == 200:
            self.challenges[session_id] = answer["challenge"]
        return answer

    def pending(self, account, example="pending"):
        moment, timestamp = utc_now()
        message = f"authphone/v1 pending\n{account}\n{int(moment.timestamp())}".encode()
        merge = {"deviceId": self.id, "accountId": account, "timestamp": timestamp,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        return self.api.call("pendingOperations", example, merge=merge, expect=200)[1]

    def enrol_user(self, user, examples=True, otp=False):
        """A new account for `user` through the whole enrolment on the wire (replaying the `enrol`
        examples, which fit a device's first enrolment only)."""
        session = new_session(self.api, "enrol", user)
        self.redeem(session, "enrol" if examples else None)
        self.confirm(session["id"], "enrol" if examples else None)
        return self.enrol(session["id"], "enrol" if examples else None, otp=otp)

    def verify_biometric(self, session_id, account, biometric_seed, example="biometrics", expect=200):
        message = f"authphone/v1 pin\n{session_id}\n{self.challenges[session_id]}\n{account}".encode()
        merge = {"deviceId": self.id, "accountId": account,
                 "accountSignature": b64(ed25519.sign(self.account_seeds[account], message)),
                 "biometricSignature": b64(ed25519.sign(biometric_seed, message))}
        _, answer = self.api.call("verifyPin", example, path={"id": session_id}, merge=merge, expect=expect)
        return answer

    def manage(self, account, kind, example=None, expect=200, signed_kind=None, offset=0, **fields):
        """Starts a management session (changePin, addBiometrics, removeBiometrics)."""
        moment, timestamp = utc_now(offset)
        message = f"authphone/v1 manage\n{account}\n{signed_kind or kind}\n{int(moment.timestamp())}".encode()
        merge = {"deviceId": self.id, "accountId": account, "type": kind, "timestamp": timestamp,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message)), **fields}
        _, answer = self.api.call("startManagement", example, merge=merge, expect=expect)
        if expect == 200:
            self.challenges[answer["sessionId"]] = answer["challenge"]
        return answer

    def set_factor(self, session_id, account, factor, example=None):
        """Registers a new factor key for a verified management session; returns its seed."""
        seed = secrets.token_bytes(32)
        key = b64(ed25519.public_key(seed))
        message = f"authphone/v1 set\n{session_id}\n{self.challenges[session_id]}\n{factor}\n{key}".encode()
        merge = {"deviceId": self.id, "accountId": account, "factor": factor, "publicKey": key,
                 "accountSignature": b64(ed25519.sign(self.account_seeds[account], message)),
                 "factorSignature": b64(ed25519.sign(seed, message))}
        _, answer = self.api.call("setSecondFactor", example, path={"id": session_id}, merge=merge, expect=200)
        assert answer["result"] == "accepted"
        return seed

    def rotate(self, session_id, account, example="rotate", expect=200, old_key_is_new=False):
        """HEADLESS_UPGRADE on the wire: a new account key, signed by the old and the new one."""
        seed = secrets.token_bytes(32)
        key = b64(ed25519.public_key(seed))
        message = f"authphone/v1 rotate\n{session_id}\n{self.challenges[session_id]}\n{account}\n{key}".encode()
        old = seed if old_key_is_new else self.account_seeds[account]
        merge = {"deviceId": self.id, "accountId": account, "newPublicKey": key,
                 "oldKeySignature": b64(ed25519.sign(old, message)), "newKeySignature": b64(ed25519.sign(seed, message))}
        self.api.call("rotateAccountKey", example, path={"id": session_id}, merge=merge, expect=expect)
        if expect == 200:
            self.account_seeds[account] = seed

    def change_device(self, account, example=None, expect=200, signed=None, **fields):
        """A DeviceInformationChange on the wire, signed over the request as sent (or `signed`)."""
        moment, timestamp = utc_now()
        request = OPS["changeDevice"].request_examples[example][0] if example else {}
        body = deep_merge(request, {"deviceId": self.id, "accountId": account, "timestamp": timestamp, **fields})
        body |= signed or {}
        message = (f"authphone/v1 device\n{account}\n{int(moment.timestamp())}\n{body.get('name', '')}\n"
                   f"{body.get('fcmToken', '')}\n{'disable' if body.get('disablePushNotifications') else ''}").encode()
        merge = {"deviceId": self.id, "accountId": account, "timestamp": timestamp, **fields,
                 "signature": b64(ed25519.sign(self.account_seeds[account], message))}
        return self.api.call("changeDevice", example, merge=merge, expect=expect)[1]

    def remove_account(self, account, example=None, expect=200, offset=0, signature=None):
        moment, timestamp = utc_now(offset)
        message = f"authphone/v1 remove\n{account}\n{int(moment.timestamp())}".encode()
        merge = {"deviceId": self.id, "accountId": account, "timestamp": timestamp,
                 "signature": signature or b64(ed25519.sign(self.account_seeds[account], message))}
        return self.api.call("removeAccount", example, merge=merge, expect=expect)[1]
