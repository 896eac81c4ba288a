"""A small typed client of privacyIDEA's REST API for what the tests need: an administrator's
configuration (user store, realm, policies, a Firebase gateway), tokens enrolled and read back,
and the anonymous /validate endpoints a login uses. It talks to eduMFA, a privacyIDEA fork, too,
in eduMFA's dialect (dialects.py: its header, its push token type, policies' realm).

Every answer of privacyIDEA is `{"result": {"status", "value"}, "detail": …}`; a refusal
(`result.status` false, or an HTTP error) raises PrivacyIDEAError with privacyIDEA's own error
code and message. privacyidea_server.py starts the server this client talks to.
"""

import contextlib
import dataclasses

import requests

from dialects import PRIVACYIDEA

# The enrollment policy value that makes a push token poll-only (no Firebase gateway).
POLL_ONLY = "poll only"


class PrivacyIDEAError(Exception):
    """privacyIDEA refused a request: its error code and message, and the HTTP status."""

    def __init__(self, request, status, code, message, server="privacyIDEA"):
        super().__init__(f"{request} -> {status}: {server} error {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


@dataclasses.dataclass(frozen=True)
class Token:
    """A token as the administrator sees it (`GET /token/`)."""

    serial: str
    tokentype: str
    active: bool
    rollout_state: str
    username: str
    info: dict


@dataclasses.dataclass(frozen=True)
class Check:
    """privacyIDEA's answer to `/validate/check`: `accepted` is its `result.value`;
    `authentication` is ACCEPT, REJECT or CHALLENGE; a challenge has a transaction id."""

    accepted: bool
    authentication: str
    transaction_id: str | None
    message: str
    detail: dict


def _answer(response, server):
    """The `result` and `detail` of an answer, or PrivacyIDEAError for a refusal."""
    request = f"{response.request.method} {response.request.path_url}"
    try:
        body = response.json()
    except ValueError:
        raise PrivacyIDEAError(request, response.status_code, None, response.text[:300], server) from None
    result = body.get("result", {})
    if not response.ok or not result.get("status"):
        error = result.get("error", {})
        raise PrivacyIDEAError(request, response.status_code, error.get("code"), error.get("message", response.text[:300]),
                               server)
    return result, body.get("detail") or {}


class PrivacyIDEA:
    """An administrator's session with a privacyIDEA server (its JWT in `PI-Authorization`), or
    with a server of another dialect."""

    def __init__(self, url, timeout, dialect=PRIVACYIDEA):
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.dialect = dialect
        self.http = requests.Session()

    @classmethod
    def login(cls, url, username, password, timeout, dialect=PRIVACYIDEA):
        admin = cls(url, timeout, dialect)
        value, _ = admin.call("POST", "/auth", data={"username": username, "password": password})
        admin.http.headers[dialect.admin_header] = value["token"]
        return admin

    def call(self, method, path, **kwargs):
        """`(result.value, detail)` of a request to privacyIDEA; raises PrivacyIDEAError."""
        result, detail = self._answer(self.http.request(method, self.url + path, timeout=self.timeout, **kwargs))
        return result.get("value"), detail

    # The user store and the realm.

    def create_passwd_resolver(self, name, passwd_file):
        """A flat-file user store: passwd lines (`name:crypt-hash:uid:gid:gecos:home:shell`)."""
        self.call("POST", f"/resolver/{name}", json={"type": "passwdresolver", "fileName": str(passwd_file)})

    def create_realm(self, name, resolvers):
        self.call("POST", f"/realm/{name}", json={"resolvers": ",".join(resolvers)})

    def set_default_realm(self, name):
        self.call("POST", f"/defaultrealm/{name}")

    # Policies: `actions` maps each action to its value (True for a flag).

    def set_policy(self, name, scope, actions, *, realm=None, user=None, priority=1):
        """Creates or replaces the policy `name`, for a realm and/or user when given."""
        action = ", ".join(key if value is True else f"{key}={value}" for key, value in actions.items())
        body = {"scope": scope, "action": action, "priority": priority}
        if realm is None and self.dialect.policy_needs_realm:
            realm = ""  # every realm
        if realm is not None:
            body["realm"] = realm
        if user is not None:
            body["user"] = user
        self.call("POST", f"/policy/{name}", json=body)

    def delete_policy(self, name):
        self.call("DELETE", f"/policy/{name}")

    @contextlib.contextmanager
    def policy(self, name, scope, actions, *, realm=None, user=None, priority=1):
        """The policy for the block's length, removed afterwards whatever happens."""
        self.set_policy(name, scope, actions, realm=realm, user=user, priority=priority)
        try:
            yield
        finally:
            self.delete_policy(name)

    # The Firebase gateway privacyIDEA's push tokens send through.

    def create_firebase_gateway(self, name, service_account_file):
        """A push gateway of the server's own Firebase provider, reading the service-account JSON
        at `service_account_file` (a path on the server's machine)."""
        self.call("POST", "/smsgateway", json={"name": name, "module": self.dialect.provider("FirebaseProvider"),
                                                "option.JSON config file": str(service_account_file)})

    def create_http_sms_gateway(self, name, options):
        """An SMS gateway of privacyIDEA's HttpSMSProvider; `options` are its settings and the
        parameters it sends (`{phone}` and `{otp}` filled in)."""
        self.call("POST", "/smsgateway", json={"name": name, "module": self.dialect.provider("HttpSMSProvider"),
                                                **{f"option.{key}": value for key, value in options.items()}})

    def set_config(self, values):
        """privacyIDEA's system configuration (`sms.identifier`: the SMS gateway its SMS tokens use)."""
        self.call("POST", "/system/setConfig", json=values)

    def delete_gateway(self, name):
        self.call("DELETE", f"/smsgateway/{name}")

    # Tokens.

    def init_push_token(self, user):
        """Enrols a push token (of the dialect's push type) for `user`: (serial, the enrolment QR code's text)."""
        _, detail = self.call("POST", "/token/init", json={"type": self.dialect.push_type, "genkey": 1, "user": user})
        return detail["serial"], detail["pushurl"]["value"]

    def init_sms_token(self, user, phone):
        """Enrols an SMS token that sends its codes to `phone`: its serial."""
        _, detail = self.call("POST", "/token/init", json={"type": "sms", "genkey": 1, "user": user, "phone": phone})
        return detail["serial"]

    def init_totp(self, user, hashlib="sha1", digits=6, period=30):
        """Enrols a TOTP token with a key privacyIDEA makes: (serial, otpauth URI)."""
        return self._init_otp(user, {"type": "totp", "hashlib": hashlib, "otplen": digits, "timeStep": period})

    def init_hotp(self, user, hashlib="sha1", digits=6):
        """Enrols a HOTP token with a key privacyIDEA makes: (serial, otpauth URI)."""
        return self._init_otp(user, {"type": "hotp", "hashlib": hashlib, "otplen": digits})

    def _init_otp(self, user, parameters):
        _, detail = self.call("POST", "/token/init", json={**parameters, "genkey": 1, "user": user})
        return detail["serial"], detail["googleurl"]["value"]

    def token(self, serial):
        value, _ = self.call("GET", "/token/", params={"serial": serial})
        tokens = value["tokens"]
        if len(tokens) != 1:
            raise LookupError(f"privacyIDEA has {len(tokens)} tokens with the serial {serial}")
        token = tokens[0]
        return Token(serial=token["serial"], tokentype=token["tokentype"], active=token["active"],
                     rollout_state=token["rollout_state"], username=token["username"], info=token["info"])

    def delete_token(self, serial):
        self.call("DELETE", f"/token/{serial}")

    # Smartphone containers.

    def init_container(self, user, realm):
        """A smartphone container for `user` of `realm` (without it privacyIDEA makes one with no
        owner): its serial (`SMPH…`)."""
        value, _ = self.call("POST", "/container/init", json={"type": "smartphone", "user": user, "realm": realm})
        return value["container_serial"]

    def container_code(self, serial, **passphrase):
        """The registration's `pia://container/…` text; `passphrase_prompt` with `passphrase_response`
        (a passphrase privacyIDEA keeps) or `passphrase_user` (the user store's password) asks for one."""
        value, _ = self.call("POST", "/container/register/initialize", json={"container_serial": serial, **passphrase})
        return value["container_url"]["value"]

    def container(self, serial):
        """The container as privacyIDEA lists it: `info` (its `registration_state`), `tokens`."""
        value, _ = self.call("GET", "/container/", params={"container_serial": serial})
        return value["containers"][0]

    def add_to_container(self, container, serial):
        self.call("POST", f"/container/{container}/add", json={"serial": serial})

    def remove_from_container(self, container, serial):
        self.call("POST", f"/container/{container}/remove", json={"serial": serial})

    # What a login asks (anonymous endpoints).

    def validate_check(self, user, pass_, transaction_id=None):
        body = {"user": user, "pass": pass_}
        if transaction_id is not None:
            body["transaction_id"] = transaction_id
        result, detail = self._answer(requests.post(self.url + "/validate/check", json=body, timeout=self.timeout))
        return Check(accepted=result["value"], authentication=result.get("authentication", ""),
                     transaction_id=detail.get("transaction_id"), message=detail.get("message", ""), detail=detail)

    def poll_transaction(self, transaction_id):
        """Where the transaction's challenges stand, as privacyIDEA tells a login page:
        `accept`, `declined` (the user did not start it), `cancelled` (the user gave up) or `pending`."""
        _, detail = self._answer(requests.get(self.url + "/validate/polltransaction",
                                              params={"transaction_id": transaction_id}, timeout=self.timeout))
        return detail["challenge_status"]

    def _answer(self, response):
        return _answer(response, self.dialect.name)
