"""What every browser test shares: a headless Chromium through Selenium, one per test, and the
folder screenshots go to.

Environment:
  AUTHPHONE_SCREENSHOTS  folder for screenshots (default artifacts/screenshots)
  AUTHPHONE_DOWNLOADS    folder the browser downloads into (default artifacts/downloads)
"""

import os
import pathlib

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

SCREENSHOTS = pathlib.Path(os.environ.get("AUTHPHONE_SCREENSHOTS", "artifacts/screenshots"))
DOWNLOADS = pathlib.Path(os.environ.get("AUTHPHONE_DOWNLOADS", "artifacts/downloads")).resolve()


@pytest.fixture
def driver():
    """Debian's chromium and chromium-driver: the binary named keeps Selenium Manager off the network."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        opts.add_argument(a)
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    opts.add_experimental_option("prefs", {"download.default_directory": str(DOWNLOADS), "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
