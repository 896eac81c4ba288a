"""What every browser test shares: a headless Chromium through Selenium, one per test, and the
test's tabs by name, each screenshot when the test fails (pages.py has the helpers); and the API
tests' privacyIDEA, one per test session (Tests/api/privacyidea_server.py)."""

import pathlib
import sys

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from pages import DOWNLOADS, screenshot_windows

sys.path.append(str(pathlib.Path(__file__).resolve().parents[1] / "api"))
from privacyidea_server import privacyidea  # noqa: E402, F401 (a fixture)

# The outcome of a test's own body, kept on the test for its fixtures' teardown.
CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[CALL_REPORT] = report


@pytest.fixture
def driver():
    """Debian's chromium and chromium-driver: the binary named keeps Selenium Manager off the network."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        opts.add_argument(a)
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    # safe browsing on: without it Chromium holds a download of a type it counts as dangerous (a
    # recording's pytest file, .py) as "Unconfirmed ….crdownload", waiting for a click on Keep
    opts.add_experimental_option("prefs", {"download.default_directory": str(DOWNLOADS), "download.prompt_for_download": False,
                                           "safebrowsing.enabled": True})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def windows(driver, request):
    """The test's tabs by name ("console", "phone", …): if the test fails, each is screenshot as
    failure-NAME.png before the browser closes."""
    handles = {}
    yield handles
    report = request.node.stash.get(CALL_REPORT, None)
    if report is not None and report.failed:
        screenshot_windows(driver, handles)
