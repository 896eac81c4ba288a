"""The server's event stream (`GET /api/events`, Server-Sent Events) read with httpx: what the
`wait_…` calls wait on instead of polling. A dropped connection is resumed from the last event
seen (`Last-Event-ID`), so no event is lost while the server still keeps it."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from ._http import Http, refusal
from .errors import WaitTimeout


@dataclass(frozen=True)
class Event:
    """One event: its `id` (increasing across the server), `kind` (interaction, flowEnded,
    flowUpdate, push, session, privacyIDEA, sms, or gap after a resume lost events) and its JSON."""

    id: int | None
    kind: str
    data: dict[str, Any]


# A connection silent for three of the server's 15 s keep-alives is taken as dropped.
SILENCE_LIMIT = 45.0


def _names(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


class _Connection:
    """One open stream whose lines a thread reads into a queue, so that a read waits exactly
    the time it has left, whatever keep-alives come meanwhile; None in the queue: it ended."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for line in self.response.iter_lines():
                self.lines.put(line)
        except Exception:  # dropped, silent too long, or closed by the reader: it connects again
            pass
        finally:
            self.lines.put(None)

    def close(self) -> None:
        self.response.close()


class EventStream:
    """The events that match the filters, from now on (or after `last_event_id`), as an iterator.

    Each read waits at most `timeout` seconds for the next event (WaitTimeout then). Use it as a
    context manager, or call `close()`; a read after a close (or a dropped connection) connects
    again, resuming after the last event seen.
    """

    def __init__(self, http: Http, *, phone: str | Sequence[str] | None = None,
                 session: str | Sequence[str] | None = None, kind: str | Sequence[str] | None = None,
                 last_event_id: int | None = None, timeout: float = 30.0) -> None:
        self._http = http
        self._params = {"phone": _names(phone), "session": _names(session), "kind": _names(kind)}
        self.last_event_id = last_event_id
        self.timeout = timeout
        self._connection: _Connection | None = None
        self._connect()

    def _connect(self) -> None:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        request = self._http.client.build_request(
            "GET", "/api/events", params=self._params, headers=headers,
            timeout=httpx.Timeout(10.0, read=SILENCE_LIMIT))
        response = self._http.client.send(request, stream=True)
        if response.status_code >= 400:
            response.read()
            response.close()
            raise refusal(response)
        self._connection = _Connection(response)

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> Event:
        return self._read(time.monotonic() + self.timeout)

    def _read(self, deadline: float) -> Event:
        """The next event, or WaitTimeout at `deadline`."""
        fields: dict[str, str] = {}
        data: list[str] = []
        while True:
            line = self._next_line(deadline)
            if line.startswith(":"):
                continue  # a comment: the keep-alive
            if line:
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data":
                    data.append(value)
                else:
                    fields[name] = value
                continue
            if not data and "event" not in fields:
                continue
            event_id = int(fields["id"]) if fields.get("id", "").isdigit() else None
            if event_id is not None:
                self.last_event_id = event_id
            return Event(event_id, fields.get("event", "message"), json.loads("\n".join(data) or "{}"))

    def _next_line(self, deadline: float) -> str:
        """The next line; a connection the server or the network dropped is opened again from the last event seen."""
        while True:
            if self._connection is None:
                self._connect()
            assert self._connection is not None
            try:
                line = self._connection.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise WaitTimeout(f"no event in {self.timeout:g} s") from None
            if line is not None:
                return line
            self.close()

    def until(self, matches: Callable[[Event], bool], what: str, timeout: float) -> Event:
        """The first event that `matches`; WaitTimeout naming `what` and the last event seen after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        last: Event | None = None
        while True:
            try:
                event = self._read(deadline)
            except WaitTimeout:
                seen = f"the last event was {last.kind} {json.dumps(last.data)[:300]}" if last else "no event came"
                raise WaitTimeout(f"waited {timeout:g} s for {what}; {seen}") from None
            if matches(event):
                return event
            last = event

    def close(self) -> None:
        """Closes the connection; reading on opens it again after the last event seen."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
