"""A login page that needs push approval, driven by Selenium with the system Chromium (Debian's
chromium and chromium-driver); the phone approves by an auto-answer rule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"  # named, so Selenium Manager stays off the network
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def test_the_phone_approves_the_login(browser: webdriver.Chrome, login_page: str, approving_user: str) -> None:
    browser.get(login_page)
    browser.find_element(By.ID, "user").send_keys(approving_user)
    browser.find_element(By.ID, "login").click()
    heading = WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1")))
    assert heading.text == f"Welcome, {approving_user}"
