"""`AuthPhone`: a client of one AuthPhone server, or of one it runs itself."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from urllib.parse import quote

from ._http import JSON, Http
from .backend import Backend, Session
from .events import EventStream
from .phone import Phone
from .push import Push
from .recordings import Recordings
from .server import LocalServer, find_binary
from .sms import SMSGateway


class AuthPhone:
    """A client of the AuthPhone server at `url`: its phones, its demo `backend`, its `push`
    service, its `sms` gateway, its `recordings`.

    Use it as a context manager (or call `close()`); one made by `start()` stops its server then.
    """

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        self._http = Http(url, timeout)
        self.url = self._http.base_url
        self.backend = Backend(self._http)
        self.push = Push(self._http)
        self.sms = SMSGateway(self._http)
        self.recordings = Recordings(self._http)
        self._server: LocalServer | None = None

    @classmethod
    def start(cls, binary: str | os.PathLike[str] | None = None, *, args: Sequence[str] = (),
              ready_within: float = 30.0) -> AuthPhone:
        """Runs `authphone serve --in-memory` on a free loopback port (the binary: `binary`, else
        $AUTHPHONE_BINARY, else `authphone` on the PATH; `args` added to its command line), waits
        until it answers /ready, and answers a client of it that stops it on `close()`."""
        server = LocalServer(find_binary(binary), args, ready_within)
        client = cls(server.url)
        client._server = server
        return client

    def __repr__(self) -> str:
        return f"AuthPhone({self.url!r})"

    def new_phone(self, name: str, *, number: str | None = None) -> Phone:
        """A new phone named `name` (1 to 64 characters on one line), with the phone number
        `number` (E.164, `+447700900123`) or else the next free one the server hands out. A number
        another phone has is refused (ConflictError `NUMBER_TAKEN`), one not in E.164 form too
        (BadRequestError `INVALID_NUMBER`)."""
        body = {"name": name} if number is None else {"name": name, "number": number}
        return Phone(self._http, self._http.json("POST", "/api/phones", body=body))

    def phone(self, phone_id: str) -> Phone:
        """An existing phone by its id."""
        return Phone(self._http, self._http.json("GET", f"/api/phones/{quote(phone_id, safe='')}"))

    def phones(self) -> list[Phone]:
        """Every phone, oldest first."""
        return [Phone(self._http, data) for data in self._http.json("GET", "/api/phones")["phones"]]

    def events(self, *, phone: Phone | str | Sequence[Phone | str] | None = None,
               session: Session | str | Sequence[Session | str] | None = None,
               kind: str | Sequence[str] | None = None, last_event_id: int | None = None,
               timeout: float = 30.0) -> EventStream:
        """The server's events (`GET /api/events`) for these phones, sessions and kinds, from now
        on or after `last_event_id`; each read waits at most `timeout` seconds."""
        return EventStream(self._http, phone=_ids(phone), session=_ids(session), kind=kind,
                           last_event_id=last_event_id, timeout=timeout)

    def now(self) -> datetime:
        """The server's time: the wall clock's, or a manual clock's (`serve --clock manual`)."""
        return _time(self._http.json("GET", "/api/clock")["now"])

    def advance(self, seconds: float) -> datetime:
        """Moves a manual clock (`serve --clock manual`) `seconds` on, instead of waiting: every
        rule that reads the time sees the new one, and waits reach their end. Answers the new time.
        A server that keeps the wall clock's time refuses (ConflictError `CLOCK_NOT_MANUAL`)."""
        return _time(self._http.json("POST", "/api/clock", body={"advanceSeconds": seconds})["now"])

    def reset(self) -> None:
        """Erases every phone, session, push, text, fault and timeline entry (`POST /api/reset`);
        recordings stay."""
        self._http.request("POST", "/api/reset")

    def add_fault(self, fault: JSON) -> str:
        """Makes the network fail on purpose (the body of `POST /api/faults`: `{"target": "backend",
        "kind": "unreachable", "count": 1}`, …; docs/behaviour.md has them all); answers its id."""
        return str(self._http.json("POST", "/api/faults", body=fault)["id"])

    def remove_fault(self, fault: str) -> None:
        """Lifts one fault by its id."""
        self._http.request("DELETE", f"/api/faults/{quote(fault, safe='')}")

    def clear_faults(self) -> None:
        """Lifts every fault."""
        self._http.request("DELETE", "/api/faults")

    def timeline_har(self, of: Phone | Session, path: str | os.PathLike[str] | None = None) -> JSON:
        """Every exchange of a phone or a session as an HTTP Archive (HAR 1.2), redacted; also
        written to `path` when given."""
        kind = "phones" if isinstance(of, Phone) else "backend/sessions"
        har: JSON = self._http.json("GET", f"/api/{kind}/{quote(of.id, safe='')}/timeline",
                                    params={"format": "har"})
        if path is not None:
            with open(path, "w", encoding="utf-8") as file:
                json.dump(har, file, indent=1)
        return har

    def close(self) -> None:
        """Closes the connections, and stops the server `start()` ran."""
        self._http.close()
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> AuthPhone:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _ids(items: Phone | Session | str | Sequence[Phone | Session | str] | None) -> list[str] | None:
    if items is None:
        return None
    many = [items] if isinstance(items, (str, Phone, Session)) else items
    return [item if isinstance(item, str) else item.id for item in many]
