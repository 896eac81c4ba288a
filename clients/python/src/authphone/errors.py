"""The exceptions the client raises: every refusal of the server carries its stable `code` and
its `message`, so a test can assert on the code rather than on prose."""

from __future__ import annotations

from typing import Any


class AuthPhoneError(Exception):
    """A refusal or failure, with the API's error code (`PHONE_NOT_FOUND`, …) and message.

    `status` is the HTTP status of the refusal (None where no request was refused), `body` the
    error object as the server sent it (with `sdkCode` where the failure has one).
    """

    def __init__(self, code: str, message: str, status: int | None = None,
                 body: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.body: dict[str, Any] = body or {}


class BadRequestError(AuthPhoneError):
    """The request was refused as it stands (400, 413, 415, 422): a bad field, an unknown field, bad JSON."""


class NotFoundError(AuthPhoneError):
    """What the request names does not exist (404): an unknown phone, session, message or rule."""


class ConflictError(AuthPhoneError):
    """The request does not fit the current state (409): no flow waits for that action, a flow is active."""


class ServerError(AuthPhoneError):
    """The server or a part behind it failed (5xx): a backend that cannot be reached, storage gone."""


class WaitTimeout(AuthPhoneError, TimeoutError):
    """What a `wait_…` call waited for did not happen in time (code `TIMEOUT`); the message says what was last seen."""

    def __init__(self, message: str) -> None:
        super().__init__("TIMEOUT", message)


class ServerStartError(AuthPhoneError):
    """`AuthPhone.start()` could not run the server (code `START_FAILED`); the message has the server's output."""

    def __init__(self, message: str) -> None:
        super().__init__("START_FAILED", message)


def error_for(status: int, code: str, message: str, body: dict[str, Any]) -> AuthPhoneError:
    """The exception for a refusal answered with `status`."""
    kind: type[AuthPhoneError]
    if status == 404:
        kind = NotFoundError
    elif status == 409:
        kind = ConflictError
    elif status >= 500:
        kind = ServerError
    elif 400 <= status < 500:
        kind = BadRequestError
    else:
        kind = AuthPhoneError
    return kind(code, message, status, body)
