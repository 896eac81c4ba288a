"""The push service (`ap.push`): send a push as a backend's Firebase client does, and read the log
of every message it received."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._http import JSON, Http

if TYPE_CHECKING:
    from .phone import Phone

PROJECT = "authphone"


class Push:
    """The FCM-compatible push service."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def send(self, message: JSON, *, to: Phone | None = None, validate_only: bool = False) -> str:
        """Sends an FCM v1 `message` (`{"token": …, "data": {…}, "notification": {…}}`), to
        phone `to` when given (its token); answers the message's name. FCM's refusals raise with
        FCM's code (`UNREGISTERED`, `INVALID_ARGUMENT`, …)."""
        if to is not None:
            message = {**message, "token": to.fcm_token}
        body: JSON = {"message": message}
        if validate_only:
            body["validate_only"] = True
        return str(self._http.json("POST", f"/v1/projects/{PROJECT}/messages:send", body=body)["name"])

    def messages(self, *, phone: Phone | None = None, target: str | None = None, outcome: str | None = None,
                 limit: int | None = None) -> list[JSON]:
        """The push log, newest first: to `phone` (its current token) or the raw `target`, with
        `outcome` (banner, inbox, opened, UNREGISTERED, …), at most `limit`."""
        params: dict[str, Any] = {"phone": phone.id if phone else None, "target": target, "outcome": outcome,
                                  "limit": limit}
        answer = self._http.json("GET", "/api/push/messages",
                                 params={k: v for k, v in params.items() if v is not None})
        messages: list[JSON] = answer["messages"]
        return messages

    def clear(self) -> None:
        """Empties the push log."""
        self._http.request("DELETE", "/api/push/messages")
