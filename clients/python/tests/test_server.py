"""`AuthPhone.start()`: the binary found by argument, $AUTHPHONE_BINARY or the PATH, run on a free
port in memory until the client closes; a binary that cannot serve is a clear error. A server
started with `--clock manual` moves its time on when the test says."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from authphone import AuthPhone, ConflictError, ServerStartError


def test_a_started_server_answers_until_the_client_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    binary = os.environ["AUTHPHONE_BINARY"]
    monkeypatch.delenv("AUTHPHONE_BINARY")
    monkeypatch.setenv("PATH", str(Path(binary).resolve().parent), prepend=os.pathsep)
    with AuthPhone.start() as ap:
        assert ap.url.startswith("http://127.0.0.1:")
        assert ap.phones() == []  # in memory: a server of its own
    with pytest.raises(httpx.ConnectError):  # stopped
        httpx.get(f"{ap.url}/ready")


def test_a_binary_named_by_argument_wins(tmp_path: Path) -> None:
    with pytest.raises(ServerStartError) as refused:
        AuthPhone.start(tmp_path / "missing")
    assert refused.value.code == "START_FAILED" and "missing is not an executable" in refused.value.message


def test_no_binary_anywhere_says_where_it_looked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHPHONE_BINARY")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ServerStartError, match="AUTHPHONE_BINARY"):
        AuthPhone.start()


def test_a_server_that_refuses_its_options_shows_its_output() -> None:
    with pytest.raises(ServerStartError) as refused:
        AuthPhone.start(args=["--pin-kdf", "nonsense"])
    assert "exited with" in refused.value.message and "nonsense" in refused.value.message


def test_a_manual_clock_moves_on_when_the_test_says_and_a_session_expires() -> None:
    """With `--clock manual` the server's time stands still until `advance()`; a session left
    past its lifetime is then expired, with no sleeping."""
    with AuthPhone.start(args=["--clock", "manual", "--session-lifetime", "60"]) as ap:
        session = ap.backend.start_enrol("erin")
        started = ap.now()
        assert ap.now() == started
        assert ap.advance(61) == started + timedelta(seconds=61)
        assert session.refresh().status == "expired"


def test_the_wall_clock_is_not_moved(authphone: AuthPhone) -> None:
    with pytest.raises(ConflictError) as refused:
        authphone.advance(60)
    assert refused.value.code == "CLOCK_NOT_MANUAL"
