"""One simulated phone: hand it codes and pushes, answer its screen, give it rules to answer by
itself, read its texts."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._http import JSON, Http
from .errors import NotFoundError
from .events import Event, EventStream
from .models import Flow, Rule, Started
from .sms import Messages

if TYPE_CHECKING:
    from .backend import Session

# The picture types `POST /api/phones/{id}/oob/image` reads, by their first bytes.
PICTURE_TYPES = {b"\x89PNG": "image/png", b"\xff\xd8": "image/jpeg", b"P5": "image/x-portable-graymap"}

DEFAULT_WAIT = 30.0

# The events that carry a phone's flow.
FLOW_EVENTS = ("interaction", "flowUpdate", "flowEnded")


class Phone:
    """A phone on the server (`ap.new_phone(name)`); its `id`, `name`, `number` (E.164,
    `+447700900000`: where texts to it are sent), `fcm_token` and `fid`, and its Messages app
    in `messages`."""

    def __init__(self, http: Http, data: JSON) -> None:
        self._http = http
        self.id: str = data["id"]
        self.name: str = data["name"]
        self.number: str = data["number"]
        self.fcm_token: str = data["fcmToken"]
        self.fid: str | None = data.get("fid")
        self._path = f"/api/phones/{quote(self.id, safe='')}"
        self.messages = Messages(http, self)

    def __repr__(self) -> str:
        return f"Phone(id={self.id!r}, name={self.name!r}, number={self.number!r})"

    def details(self) -> JSON:
        """The phone as `GET /api/phones/{id}` answers: accounts, settings, current flow, …"""
        result: JSON = self._http.json("GET", self._path)
        return result

    def change_settings(self, **settings: Any) -> JSON:
        """Changes the settings named by their API names (`openPushesAtOnce=True`, `pinLength=6`,
        …; docs/protocol.md has them all); the phone as it is then."""
        result: JSON = self._http.json("PUT", f"{self._path}/settings", body=settings)
        return result

    def flow(self) -> Flow | None:
        """The phone's current flow (None before its first)."""
        data = self.details().get("flow")
        return Flow.from_json(data) if data else None

    def delete(self) -> None:
        """Removes the phone from the server."""
        self._http.request("DELETE", self._path)

    # Hand-overs: what a camera, a deep link or a notification gives the phone.

    def scan(self, code: str | bytes | os.PathLike[str] | Session) -> Started:
        """Hands the phone a code, as its camera or a tapped link would: a session (its QR text), a
        QR text, a link (`authphone://…`, `https://…/open?…`, `otpauth://…`), the bytes of a
        picture of a QR code (PNG, JPEG, PGM) or the path of such a picture."""
        if isinstance(code, os.PathLike):
            with open(code, "rb") as picture:
                code = picture.read()
        if isinstance(code, bytes):
            # the server reads only these, and refuses anything else by its Content-Type
            kind = next((t for magic, t in PICTURE_TYPES.items() if code.startswith(magic)), "application/octet-stream")
            return Started.from_json(self._http.json("POST", f"{self._path}/oob/image", content=code,
                                                     content_type=kind))
        text = code if isinstance(code, str) else code.qr_text
        body = {"link": text} if "://" in text else {"qr": text}
        return Started.from_json(self._http.json("POST", f"{self._path}/oob", body=body))

    def inbox(self) -> list[JSON]:
        """The pushes waiting on the phone, oldest first."""
        messages: list[JSON] = self._http.json("GET", f"{self._path}/inbox")["messages"]
        return messages

    def open_push(self, message: str | None = None, *, timeout: float = DEFAULT_WAIT) -> Started:
        """Opens a push as a user tapping its notification: the message with id `message`, or the
        oldest waiting, waiting up to `timeout` seconds (on the event stream) for one to arrive."""
        if message is None:
            message = self._oldest_push(timeout)
        path = f"{self._path}/inbox/{quote(message, safe='')}/open"
        return Started.from_json(self._http.json("POST", path, body={}))

    def _oldest_push(self, timeout: float) -> str:
        waiting = self.inbox()
        if not waiting:
            with EventStream(self._http, phone=self.id, kind="push", timeout=timeout) as events:
                waiting = self.inbox()  # one that came before the stream opened
                if not waiting:
                    return str(events.until(lambda e: True, f"a push to {self.name}", timeout).data["message"])
        return str(waiting[0]["id"])

    # The screen: what the user does, through `POST /api/phones/{id}/actions`.

    def act(self, action: JSON) -> Flow | None:
        """Sends one action as the phone's screen does (`{"action": "cancel"}`, …); the flow after it."""
        flow = self._http.json("POST", f"{self._path}/actions", body=action)["flow"]
        return Flow.from_json(flow) if flow else None

    def confirm(self, account: str | None = None, *, user_input: str | None = None) -> Flow | None:
        """Confirms the session on the screen (with `account` where the login offers several)."""
        return self.act(_without_none({"action": "confirmSession", "account": account, "userInput": user_input}))

    def confirm_transaction(self) -> Flow | None:
        """Accepts the transaction text on the screen."""
        return self.act({"action": "confirmTransaction"})

    def enter_pin(self, pin: str, *, old_pin: str | None = None) -> Flow | None:
        """Types the PIN (a new one where the flow sets it; `old_pin` for a Nevis-style change)."""
        return self.act(_without_none({"action": "inputSecondFactor", "pin": pin, "oldPin": old_pin}))

    def biometric(self, match: bool = True) -> Flow | None:
        """Answers the simulated biometric prompt with a match (or not)."""
        return self.act({"action": "inputSecondFactor", "biometrics": "match" if match else "noMatch"})

    def cancel(self) -> Flow | None:
        """Cancels the flow (it ends in ERROR, USER_CANCELED)."""
        return self.act({"action": "cancel"})

    def wait_for(self, what: str, *, timeout: float = DEFAULT_WAIT) -> Flow:
        """Waits on the event stream until the phone's flow is at `what`: an interaction
        (CONFIRM, CONFIRM_TRANSACTION, VERIFY_SECOND_FACTOR, SET_SECOND_FACTOR) or a state
        (WAIT_FOR_INPUT, PROCESSING, DONE, ERROR); a flow already there counts. WaitTimeout after
        `timeout` seconds, naming the last flow seen."""
        with EventStream(self._http, phone=self.id, kind=FLOW_EVENTS, timeout=timeout) as events:
            current = self.flow()
            if current is not None and current.shows(what):
                return current

            def reached(event: Event) -> bool:
                if event.kind == "gap":  # events were lost: the flow as it is now decides
                    now = self.flow()
                    return now is not None and now.shows(what)
                flow = event.data.get("flow")
                return flow is not None and Flow.from_json(flow).shows(what)

            event = events.until(reached, f"{self.name}'s flow to show {what}", timeout)
        flow = event.data.get("flow")
        return Flow.from_json(flow) if flow else _required(self.flow())

    def start_flow(self, kind: str) -> Flow | None:
        """Starts a flow from the phone's own menu: CHANGE_PIN, ADD_BIOMETRICS or REMOVE_BIOMETRICS."""
        flow = self._http.json("POST", f"{self._path}/flows", body={"type": kind})["flow"]
        return Flow.from_json(flow) if flow else None

    def enrol_biometric(self) -> JSON:
        """Enrols one more fingerprint or face in the phone's simulated sensor; answers the phone as it is then."""
        details: JSON = self._http.json("POST", f"{self._path}/sensor/features")
        return details

    # Auto-answer rules: the phone answers matching requests by itself.

    def auto_answer(self, answer: str = "confirm", *, pin: str | None = None, biometric: bool = False,
                    server: str | None = None, user: str | None = None, text: str | None = None,
                    account: str | None = None, count: int | None = None,
                    expires_in: int | None = None) -> Rule:
        """Adds a rule: requests from `server` (and for `user`, with `text` in their text) are
        answered with `answer` ("confirm" or "decline"), the second factor with `pin` or the
        biometric, picking `account`; for `count` answers or `expires_in` seconds. A request no
        rule covers waits for `confirm()` as before."""
        body = _without_none({"answer": answer, "pin": pin, "biometric": biometric or None, "server": server,
                              "user": user, "text": text, "account": account, "count": count,
                              "expiresIn": expires_in})
        return Rule.from_json(self._http.json("POST", f"{self._path}/auto-answer", body=body))

    def auto_answer_rules(self) -> list[Rule]:
        """The phone's rules, in the order they are tried."""
        return [Rule.from_json(r) for r in self._http.json("GET", f"{self._path}/auto-answer")["rules"]]

    def remove_auto_answer(self, rule: Rule | str | None = None) -> None:
        """Removes one rule, or all of them when none is named."""
        path = f"{self._path}/auto-answer"
        if rule is not None:
            path += "/" + quote(rule if isinstance(rule, str) else rule.id, safe="")
        self._http.request("DELETE", path)

    # privacyIDEA (docs/privacyidea.md).

    def privacy_idea_request(self) -> JSON | None:
        """The privacyIDEA enrolment or challenge on the phone's screen, or None; its `waiting`
        lists the phone's other open challenges, newest first."""
        request: JSON | None = self._http.json("GET", f"{self._path}/privacyidea/request")["privacyIDEA"]
        return request

    def answer_privacy_idea(self, accept: bool = True, *, nonce: str | None = None, presence: str | None = None,
                            decline_reason: str | None = None, pin: str | None = None, biometric: bool | None = None,
                            passphrase: str | None = None) -> JSON:
        """Answers the privacyIDEA request on the screen, or the open challenge `nonce` names (one
        listed in the screen's `waiting`): for an enrolment or a container's registration, whether
        to trust its server (with the `passphrase` a container asks for); for a challenge, accept
        (pressing `presence` where it asks for an option, unlocking the phone with `pin` or the
        `biometric` where it asks to) or decline (with `decline_reason`, "unknown_trigger" or
        "cancelled", where privacyIDEA takes one). Returns the request as it ended, or still
        PROCESSING while an unreachable privacyIDEA is tried again; an accept under privacyIDEA's
        `push_code_to_phone` carries the code to type into the login page (`display_code()`)."""
        biometrics = None if biometric is None else ("match" if biometric else "noMatch")
        body = _without_none({"accept": accept, "nonce": nonce, "presence": presence, "declineReason": decline_reason, "pin": pin,
                              "biometrics": biometrics, "passphrase": passphrase})
        request: JSON = self._http.json("POST", f"{self._path}/privacyidea/answer", body=body)["privacyIDEA"]
        return request

    def display_code(self) -> str | None:
        """The code privacyIDEA's `push_code_to_phone` gave the phone for the login it accepted
        last, which the user types into the login page; None when the screen shows none."""
        code = (self.privacy_idea_request() or {}).get("displayCode")
        return code if isinstance(code, str) else None

    def privacy_idea_tokens(self) -> list[JSON]:
        """The phone's privacyIDEA push tokens (serial, label, issuer, server, poll only, …), oldest first."""
        tokens: list[JSON] = self._http.json("GET", f"{self._path}/privacyidea/tokens")["tokens"]
        return tokens

    def poll_privacy_idea(self, serial: str) -> JSON | None:
        """"Check now": asks the push token's privacyIDEA for its open challenges, as the app's poll
        does (a poll-only token gets its challenges only this way); the challenge now on screen,
        or None when none is open."""
        path = f"{self._path}/privacyidea/tokens/{quote(serial, safe='')}/poll"
        request: JSON | None = self._http.json("POST", path, body={})["privacyIDEA"]
        return request

    def containers(self) -> list[JSON]:
        """The phone's privacyIDEA smartphone containers, each with the tokens it holds."""
        containers: list[JSON] = self._http.json("GET", f"{self._path}/privacyidea/containers")["containers"]
        return containers

    def sync_container(self, serial: str) -> JSON:
        """"Sync now": the container's tokens as privacyIDEA has them; what was `added`, `kept`,
        `removed` (by serial) and what `failed`, with the `container` as it is then."""
        path = f"{self._path}/privacyidea/containers/{quote(serial, safe='')}/sync"
        outcome: JSON = self._http.json("POST", path, body={})
        return outcome

    # OTP accounts (otpauth:// key URIs, privacyIDEA's TOTP and HOTP tokens among them).

    def otp_accounts(self) -> list[JSON]:
        """The phone's OTP accounts (kind, issuer, label, …; never a secret), oldest first."""
        accounts: list[JSON] = self._http.json("GET", f"{self._path}/otp-accounts")["accounts"]
        return accounts

    def otp_code(self, account: str) -> str:
        """The OTP account's code now (TOTP) or for its counter (HOTP)."""
        path = f"{self._path}/otp-accounts/{quote(account, safe='')}/code"
        return str(self._http.json("GET", path)["code"])

    # The offline OTP.

    def otp(self, account: str | None = None) -> str:
        """The offline OTP for the session the phone could not fetch (its backend unreachable):
        `account` may be left out when the phone has one account at that server."""
        return str(self._http.json("POST", f"{self._path}/otp", body=_without_none({"account": account}))["otp"])


def _without_none(fields: dict[str, Any]) -> JSON:
    return {key: value for key, value in fields.items() if value is not None}


def _required(flow: Flow | None) -> Flow:
    if flow is None:
        raise NotFoundError("NO_FLOW", "the phone has no flow")
    return flow
