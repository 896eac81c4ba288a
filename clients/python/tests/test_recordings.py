"""A walk recorded through the client, kept as a pytest file, and that file run in this venv (the
package installed afresh) against a server of its own: the recording's promise end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from authphone import AuthPhone, ConflictError

from support import PIN, user

WRONG = "975311"


def test_a_walk_recorded_runs_again_as_its_pytest_file(tmp_path: Path) -> None:
    with AuthPhone.start(args=["--clock", "manual"]) as ap:
        recording = ap.recordings.start("Enrol, a push login with a wrong PIN, an expiry")
        with pytest.raises(ConflictError) as twice:
            ap.recordings.start()
        assert twice.value.code == "RECORDING_UNDER_WAY"
        phone = ap.new_phone("Recorded")
        erin = user("erin")
        enrol = ap.backend.start_enrol(erin)
        phone.scan(enrol)
        phone.confirm()
        phone.enter_pin(PIN)
        assert enrol.wait_outcome() == "enrolled"
        login = ap.backend.start_login(erin, push_to=phone)
        phone.open_push()
        phone.confirm()
        assert phone.enter_pin(WRONG).data["previousInteractionResult"]["type"] == "PIN_FAIL"  # type: ignore[union-attr]
        phone.enter_pin(PIN)
        assert login.wait_outcome() == "loggedin"
        late = ap.backend.start_login(erin)
        ap.advance(301)
        assert late.refresh().status == "expired"
        recording.stop()

        assert recording.state == "stopped"
        assert [r.id for r in ap.recordings.list()] == [recording.id]
        scenario = recording.scenario()
        steps = [(step["do"], step.get("pin"), step.get("outcome")) for step in scenario["steps"]]
        assert steps == [
            ("createPhone", None, None), ("startSession", None, None), ("scan", None, None), ("act", None, None),
            ("act", "new", None), ("sessionOutcome", None, "enrolled"),
            ("startSession", None, None), ("openPush", None, None), ("act", None, None), ("act", "wrong", None),
            ("act", "enrolled", None), ("sessionOutcome", None, "loggedin"),
            ("startSession", None, None), ("advanceClock", None, None), ("sessionOutcome", None, "expired"),
        ]
        test_file = tmp_path / "test_recorded_walk.py"
        text = recording.pytest(test_file)
        for digits in (PIN, WRONG):
            assert digits not in json.dumps(scenario) and digits not in text
        recording.delete()
        assert ap.recordings.list() == []

    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file.name],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
