"""Texts (SMS): the SMS gateway as a sender uses it (`ap.sms`: its account, a text sent, its log),
and a phone's Messages app (`phone.messages`: list, clear, and wait for a text and its code)."""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._http import JSON, Http
from .errors import AuthPhoneError
from .events import Event, EventStream
from .models import SMSAccount, TextMessage

if TYPE_CHECKING:
    from .phone import Phone

DEFAULT_WAIT = 30.0


class SMSGateway:
    """The SMS gateway (`ap.sms`): what senders such as a backend or privacyIDEA text phones through."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def account(self) -> SMSAccount:
        """The account senders authenticate with (`GET /api/sms/account`)."""
        return SMSAccount.from_json(self._http.json("GET", "/api/sms/account"))

    def send(self, to: Phone | str, text: str, *, sender: str | None = None) -> JSON:
        """Texts `text` to phone `to` (or to an E.164 number, `+447700900000`) as a sender does:
        through the generic gateway (`POST /sms/send`) with the account's credentials, from
        `sender` (a number or a name; the gateway's default when None). Answers the gateway's
        `{"id", "status", "to"}`: status `delivered`, or what a fault made of it (`delayed`, …).
        Refusals raise with the gateway's code (`NUMBER_UNKNOWN`, `TEXT_MISSING`, …)."""
        account = self.account()
        body = {"to": _number(to), "text": text, **({"from": sender} if sender is not None else {})}
        answer: JSON = self._http.json("POST", "/sms/send", body=body,
                                       auth=(account.account_sid, account.auth_token))
        return answer

    def log(self, *, to: Phone | str | None = None, limit: int | None = None) -> list[JSON]:
        """The gateway's log of every text it was handed, newest first: to phone or number `to`,
        at most `limit`. Each has `id`, `receivedAt`, `door`, `outcome`, and where known `to`,
        `from`, `text`, `phoneId` and the refusal's `error`."""
        params: dict[str, Any] = {"to": None if to is None else _number(to), "limit": limit}
        texts: list[JSON] = self._http.json("GET", "/api/sms/log",
                                            params={k: v for k, v in params.items() if v is not None})["texts"]
        return texts

    def clear_log(self) -> None:
        """Empties the gateway's log (the phones keep their texts)."""
        self._http.request("DELETE", "/api/sms/log")


class Messages:
    """A phone's Messages app (`phone.messages`): the texts it received."""

    def __init__(self, http: Http, phone: Phone) -> None:
        self._http = http
        self._phone = phone
        self._path = f"/api/phones/{quote(phone.id, safe='')}/messages"

    def __repr__(self) -> str:
        return f"Messages(phone={self._phone.name!r}, number={self._phone.number!r})"

    def list(self) -> builtins.list[TextMessage]:
        """The phone's texts, newest first."""
        return [TextMessage.from_json(m) for m in self._http.json("GET", self._path)["messages"]]

    def clear(self) -> None:
        """Deletes the phone's texts."""
        self._http.request("DELETE", self._path)

    def wait_for(self, pattern: str | re.Pattern[str] | None = None, *, timeout: float = DEFAULT_WAIT,
                 seen: Iterable[TextMessage | str] | None = None) -> str:
        """Waits for a text as `wait_for_text` does and answers its code: the pattern's first
        group when it has groups, else the one-time code the server recognised in the text. A
        text without one (or whose first group took no part in the match) raises
        AuthPhoneError `NO_CODE`."""
        regex = _compiled(pattern)
        message = self.wait_for_text(regex, timeout=timeout, seen=seen)
        if regex is not None and regex.groups:
            match = regex.search(message.text)
            code = match.group(1) if match else None
            if code is None:
                raise AuthPhoneError("NO_CODE", f"/{regex.pattern}/ matched the text to {self._phone.number} "
                                                f"without its first group: {message.text!r}")
            return code
        if message.code is None:
            raise AuthPhoneError("NO_CODE", f"the text from {message.sender} to {self._phone.number} carries no code "
                                            f"AuthPhone recognises: {message.text!r} (a pattern with a group picks one)")
        return message.code

    def wait_for_text(self, pattern: str | re.Pattern[str] | None = None, *, timeout: float = DEFAULT_WAIT,
                      seen: Iterable[TextMessage | str] | None = None) -> TextMessage:
        """Waits on the event stream for a text whose text `pattern` finds (`re.search`; any text
        when None) and answers it. The texts on the phone when the call begins do not count, so
        after a request that sends a new text, that one is answered, not an older one. For a
        text that may have come before the call (sent by a request made just before it), pass
        `seen`: the texts (or their ids) that do not count, say `phone.messages.list()` read
        before that request, or `()` for none; of the texts already there, the oldest that
        matches counts. WaitTimeout after `timeout` seconds, naming the phone's number, the
        pattern and the last text seen."""
        regex = _compiled(pattern)
        if seen is None:
            known = {m.id for m in self.list()}
        else:
            known = {s if isinstance(s, str) else s.id for s in seen}

        def first_new(texts: Iterable[TextMessage]) -> TextMessage | None:
            """The first text in `texts` not yet looked at that matches; marks each as looked at."""
            for message in texts:
                if message.id not in known:
                    known.add(message.id)
                    if regex is None or regex.search(message.text):
                        return message
            return None

        wanted = f"a text to {self._phone.name} ({self._phone.number})"
        if regex is not None:
            wanted += f" matching /{regex.pattern}/"
        with EventStream(self._http, phone=self._phone.id, kind="sms", timeout=timeout) as events:
            found = first_new(reversed(self.list()))  # one that came before the stream opened
            if found is not None:
                return found

            def arrived(event: Event) -> bool:
                nonlocal found
                if event.kind == "gap":  # events were lost: the texts as they are now decide
                    found = first_new(reversed(self.list()))
                else:
                    found = first_new([TextMessage.from_json(event.data["sms"])])
                return found is not None

            events.until(arrived, wanted, timeout)
        assert found is not None
        return found


def _compiled(pattern: str | re.Pattern[str] | None) -> re.Pattern[str] | None:
    return re.compile(pattern) if isinstance(pattern, str) else pattern


def _number(to: Phone | str) -> str:
    return to if isinstance(to, str) else to.number
