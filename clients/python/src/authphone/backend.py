"""The demo backend as a relying party uses it: start enrolment, login and transaction sessions
and wait for how they end."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._http import JSON, Http
from .events import EventStream

if TYPE_CHECKING:
    from .phone import Phone

# The statuses a session does not leave.
OUTCOMES = ("enrolled", "loggedin", "signed", "completed", "failed", "canceled", "expired")


class Session:
    """A backend session: `id`, `type`, `user`, `qr_text`, `deep_link`, and `status` as last read."""

    def __init__(self, http: Http, data: JSON) -> None:
        self._http = http
        self.id: str = data["id"]
        self.type: str = data["type"]
        self.user: str = data["userId"]
        self.qr_text: str = data["qrText"]
        self.deep_link: str = data["deepLink"]
        self.data = data

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, type={self.type!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        """pending, redeemed, confirmed, …, then one of OUTCOMES."""
        return str(self.data["status"])

    def refresh(self) -> Session:
        """Reads the session again (`GET /api/backend/sessions/{id}`)."""
        self.data = self._http.json("GET", f"/api/backend/sessions/{quote(self.id, safe='')}")
        return self

    def push_to(self, phone: Phone) -> Session:
        """Pushes the running session to `phone` (`POST /api/backend/sessions/{id}/push`)."""
        self.data = self._http.json("POST", f"/api/backend/sessions/{quote(self.id, safe='')}/push",
                                    body={"pushToken": phone.fcm_token})
        return self

    def wait_outcome(self, *, timeout: float = 30.0) -> str:
        """Waits on the event stream until the session ends and answers its status (loggedin,
        enrolled, signed, completed, failed, canceled, expired); WaitTimeout after `timeout` seconds."""
        with EventStream(self._http, session=self.id, kind="session", timeout=timeout) as events:
            if self.refresh().status in OUTCOMES:
                return self.status
            event = events.until(lambda e: e.kind == "gap" or e.data["session"]["status"] in OUTCOMES,
                                 f"session {self.id} to end", timeout)
        if event.kind == "gap":
            return self.wait_outcome(timeout=timeout)
        self.data = event.data["session"]
        return self.status


class Backend:
    """The demo backend (`ap.backend`)."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def start_enrol(self, user: str, *, display_name: str | None = None, push_to: Phone | None = None,
                    **fields: Any) -> Session:
        """Starts an enrolment of `user`: scan its `qr_text`, or with `push_to` it is pushed to that phone."""
        return self.start("enrol", user, displayName=display_name, push_to=push_to, **fields)

    def start_login(self, user: str, *, push: bool = False, push_to: Phone | None = None,
                    account: str | None = None, **fields: Any) -> Session:
        """Starts a login of `user`: scan its `qr_text`, or with `push` it is pushed to every phone
        the user enrolled (with `push_to`, to that phone only); `account` to offer no choice."""
        return self.start("login", user, accountId=account, delivery="push" if push else None,
                          push_to=push_to, **fields)

    def start_transaction(self, user: str, text: str, *, push: bool = False, push_to: Phone | None = None,
                          **fields: Any) -> Session:
        """Starts a transaction for `user` whose `text` the phone shows and signs."""
        return self.start("transaction", user, transaction=text, delivery="push" if push else None,
                          push_to=push_to, **fields)

    def start(self, kind: str, user: str, *, push_to: Phone | None = None, **fields: Any) -> Session:
        """Starts a session of `kind` with any other field of `POST /api/backend/sessions`
        (`announceInfo`, `skipConfirmation`, …), by its API name."""
        body = {"type": kind, "userId": user, **{k: v for k, v in fields.items() if v is not None}}
        if push_to is not None:
            body["pushToken"] = push_to.fcm_token
        return Session(self._http, self._http.json("POST", "/api/backend/sessions", body=body))

    def unblock_pin(self, user: str) -> int:
        """Unblocks the PIN of `user`'s phones, as the administrator does; answers how many were blocked."""
        answer: JSON = self._http.json("POST", "/api/backend/unblock-pin", body={"userId": user})
        return int(answer["unblockedDevices"])

    def session(self, session_id: str) -> Session:
        """A session by its id."""
        return Session(self._http, self._http.json("GET", f"/api/backend/sessions/{quote(session_id, safe='')}"))
