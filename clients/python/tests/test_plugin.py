"""The pytest plugin, run on test files of its own (pytester): its fixtures, and the timeline
kept as a HAR file for a failed test, named in the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from authphone import AuthPhone, NotFoundError

pytest_plugins = ["pytester"]

FAILING_TEST = """
import pathlib

def test_phone_fails(authphone, phone):
    pathlib.Path("phone-id").write_text(phone.id)
    authphone.push.send({"data": {"k": "v"}}, to=phone)
    assert False, "the login page never said Welcome"
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, authphone: AuthPhone, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester whose tests use this session's server."""
    monkeypatch.setenv("AUTHPHONE_URL", authphone.url)
    return pytester


def test_a_failed_tests_timeline_is_kept_and_reported(inner: pytest.Pytester, authphone: AuthPhone) -> None:
    inner.makepyfile(FAILING_TEST)
    result = inner.runpytest("--authphone-har=hars", "--junitxml=report.xml")
    result.assert_outcomes(failed=1)
    har = inner.path / "hars" / "test_a_failed_tests_timeline_is_kept_and_reported.py_test_phone_fails.har"
    assert '"entries"' in har.read_text() and "fcm://device/messages" in har.read_text()
    result.stdout.fnmatch_lines(["*authphone timeline*", f"*kept as hars/{har.name}*"])
    assert f'<property name="authphone_har" value="hars/{har.name}"' in (inner.path / "report.xml").read_text()
    with pytest.raises(NotFoundError):  # the fixture deleted the phone after the test
        authphone.phone((inner.path / "phone-id").read_text())


def test_the_marker_keeps_the_timeline_without_the_option(inner: pytest.Pytester) -> None:
    inner.makepyfile("import pytest\npytestmark = pytest.mark.authphone_har\n" + FAILING_TEST)
    inner.runpytest().assert_outcomes(failed=1)
    assert len(list(Path(inner.path, "authphone-har").glob("*.har"))) == 1


def test_nothing_is_kept_without_a_failure_or_the_request(inner: pytest.Pytester) -> None:
    inner.makepyfile(FAILING_TEST + "\n\ndef test_passes(phone):\n    assert phone.flow() is None\n")
    inner.runpytest("--authphone-har=hars", "-k", "passes").assert_outcomes(passed=1)
    inner.runpytest("-k", "fails").assert_outcomes(failed=1)
    assert not Path(inner.path, "hars").exists() and not Path(inner.path, "authphone-har").exists()
