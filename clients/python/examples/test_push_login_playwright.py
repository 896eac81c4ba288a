"""The same login page driven by Playwright for Python (from PyPI) with the system Chromium
(`executable_path`: Playwright's own browser download is not needed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect, sync_playwright


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser.new_page()
        browser.close()


def test_the_phone_approves_the_login(page: Page, login_page: str, approving_user: str) -> None:
    page.goto(login_page)
    page.fill("#user", approving_user)
    page.click("#login")
    expect(page.locator("h1")).to_have_text(f"Welcome, {approving_user}", timeout=30_000)
