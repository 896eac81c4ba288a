"""The server's answers as small read-only values: a phone's flow, what a hand-over started, an
auto-answer rule, a text on a phone and the SMS gateway's account. Each keeps the whole JSON in `data` for anything the attributes leave out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

FINAL_STATES = ("DONE", "ERROR")


@dataclass(frozen=True)
class Flow:
    """One FlowUpdate: the phone's flow as it is now (docs/protocol.md has every field)."""

    id: str
    type: str
    """ENROL, LOGIN, SIGN_TRANSACTION, …"""
    state: str
    """PROCESSING, WAIT_FOR_INPUT, DONE or ERROR."""
    interaction: str | None
    """What the flow waits for while WAIT_FOR_INPUT: CONFIRM, CONFIRM_TRANSACTION, VERIFY_SECOND_FACTOR, SET_SECOND_FACTOR."""
    error: str | None
    """The error code of a flow that ended in ERROR (USER_CANCELED, PIN_BLOCKED, …)."""
    automatic_rule: str | None
    """The id of the auto-answer rule that caused this update, if one did."""
    data: JSON = field(repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> Flow:
        return cls(id=data["id"], type=data["type"], state=data["state"],
                   interaction=data.get("currentInteraction", {}).get("type"),
                   error=data.get("error", {}).get("code"),
                   automatic_rule=data.get("automatic", {}).get("rule"), data=data)

    @property
    def ended(self) -> bool:
        """DONE or ERROR: nothing more happens in this flow."""
        return self.state in FINAL_STATES

    def shows(self, what: str) -> bool:
        """Whether the flow is at `what`: an interaction type (CONFIRM, …) or a state (DONE, …)."""
        return what == self.state or (self.state == "WAIT_FOR_INPUT" and what == self.interaction)


@dataclass(frozen=True)
class Started:
    """What a scanned code or an opened push started: a flow, privacyIDEA's request on the
    screen, or an imported OTP account (an otpauth:// key URI); exactly one is set."""

    flow: Flow | None
    privacy_idea: JSON | None
    otp_account: JSON | None

    @classmethod
    def from_json(cls, data: JSON) -> Started:
        flow = data.get("flow")
        return cls(flow=Flow.from_json(flow) if flow else None, privacy_idea=data.get("privacyIDEA"),
                   otp_account=data.get("otpAccount"))


@dataclass(frozen=True)
class Rule:
    """An auto-answer rule as the server keeps it (the PIN is never echoed)."""

    id: str
    answer: str
    """confirm or decline."""
    second_factor: str | None
    """PIN or BIOMETRIC, where the rule answers the second factor."""
    remaining: int | None
    """Answers left, for a rule with a count."""
    data: JSON = field(repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> Rule:
        return cls(id=data["id"], answer=data["answer"], second_factor=data.get("secondFactor"),
                   remaining=data.get("remaining"), data=data)


@dataclass(frozen=True)
class TextMessage:
    """A text (SMS) in a phone's Messages app."""

    id: str
    sender: str
    """Whom it is from (the API's `from`): a number, or a name such as "Bank"."""
    text: str
    received_at: str
    """When the phone got it, as the server writes it (ISO 8601, UTC)."""
    code: str | None
    """The one-time code the server recognised in the text, or None."""
    data: JSON = field(repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> TextMessage:
        return cls(id=data["id"], sender=data["from"], text=data["text"], received_at=data["receivedAt"],
                   code=data.get("code"), data=data)


@dataclass(frozen=True)
class SMSAccount:
    """The credentials the SMS gateway issued: senders authenticate with HTTP basic auth,
    `account_sid` as the user and `auth_token` as the password."""

    account_sid: str
    auth_token: str = field(repr=False)
    gateway_url: str
    """The generic gateway (`…/sms/send`)."""
    twilio_base_url: str
    """Where a Twilio library is pointed instead of `https://api.twilio.com`."""
    data: JSON = field(repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> SMSAccount:
        return cls(account_sid=data["accountSid"], auth_token=data["authToken"], gateway_url=data["gatewayURL"],
                   twilio_base_url=data["twilioBaseURL"], data=data)
