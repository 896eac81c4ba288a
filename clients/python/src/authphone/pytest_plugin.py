"""The pytest plugin (registered by the package's `pytest11` entry point).

Fixtures: `authphone`, one client per test session, of the server at $AUTHPHONE_URL or else of
one `AuthPhone.start()` runs; `phone`, a fresh phone per test, deleted after it. With
`--authphone-har=DIR`, or for a test marked `authphone_har`, a failed test's `phone` timeline is
kept as DIR/<test>.har, named in the failure report, its `user_properties` and its `extras`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .client import AuthPhone
from .errors import AuthPhoneError
from .phone import Phone

HAR_OPTION = "--authphone-har"
HAR_MARKER = "authphone_har"
DEFAULT_HAR_DIR = "authphone-har"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("authphone")
    group.addoption(HAR_OPTION, metavar="DIR", default=None,
                    help="keep the timeline of a failed test's phone as DIR/<test>.har (every test)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{HAR_MARKER}: keep the timeline of the test's phone as a HAR file if it fails "
                   f"(in {HAR_OPTION}'s folder, else ./{DEFAULT_HAR_DIR})")


@pytest.fixture(scope="session")
def authphone() -> Iterator[AuthPhone]:
    """The client of the server at $AUTHPHONE_URL, or of one started for the test session."""
    url = os.environ.get("AUTHPHONE_URL")
    with AuthPhone(url) if url else AuthPhone.start() as client:
        yield client


@pytest.fixture
def phone(authphone: AuthPhone, request: pytest.FixtureRequest) -> Iterator[Phone]:
    """A new phone named after the test, deleted after it."""
    new = authphone.new_phone(_phone_name(request.node.name))
    yield new
    try:
        new.delete()
    except AuthPhoneError:
        pass  # the test deleted it itself


def _phone_name(test_name: str) -> str:
    return re.sub(r"\s+", " ", test_name)[:64]


def _har_folder(item: pytest.Item) -> Path | None:
    chosen = item.config.getoption(HAR_OPTION)
    if chosen is None and item.get_closest_marker(HAR_MARKER) is None:
        return None
    return Path(chosen or DEFAULT_HAR_DIR)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call" or not report.failed:
        return
    folder = _har_folder(item)
    funcargs = getattr(item, "funcargs", {})
    client, failed_phone = funcargs.get("authphone"), funcargs.get("phone")
    if folder is None or not isinstance(client, AuthPhone) or not isinstance(failed_phone, Phone):
        return
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (re.sub(r"[^\w.-]+", "_", item.nodeid).strip("_") + ".har")
    try:
        client.timeline_har(failed_phone, path)
    except (AuthPhoneError, OSError) as error:
        report.sections.append(("authphone timeline", f"not kept: {error}"))
        return
    item.user_properties.append(("authphone_har", str(path)))  # the teardown report carries them to junitxml
    if report.user_properties is not item.user_properties:
        report.user_properties.append(("authphone_har", str(path)))
    extras = getattr(report, "extras", [])
    extras.append({"name": "AuthPhone timeline (HAR)", "format_type": "url", "content": str(path),
                   "mime_type": None, "extension": None})
    report.extras = extras  # type: ignore[attr-defined]
    report.sections.append(("authphone timeline", f"the phone's timeline is kept as {path}"))
