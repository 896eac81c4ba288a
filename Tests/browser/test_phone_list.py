"""Browser test of the list of phones and a phone's own link: a link to no phone says so and
leads back, and a phone deleted from the list is gone.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By

from pages import BASE_URL, find, wait_for, wait_visible


def test_an_unknown_phone_link_says_so(driver):
    """A stale or made-up phone link shows the page's own "No such phone" screen and a way back."""
    driver.get(f"{BASE_URL}/phones/no-such-phone")
    title = wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, '#screen[data-state="NOT_FOUND"] .screen-title'),
                     "the No such phone screen")
    assert title.text == "No such phone"
    assert driver.find_element(By.CSS_SELECTOR, "#screen .error-code").text == "PHONE_NOT_FOUND"
    driver.find_element(By.LINK_TEXT, "All phones").click()
    wait_for(driver, lambda d: d.current_url.rstrip("/") == BASE_URL, "the way back to all phones")


def test_delete_a_phone_from_the_list(driver):
    """A phone on the list goes after a second tap on its Delete (the first only asks)."""
    name = f"Doomed {uuid.uuid4().hex[:8]}"
    driver.get(BASE_URL)
    find(driver, "#new-phone-name").send_keys(name)
    find(driver, "#create-phone").click()
    wait_for(driver, lambda d: "/phones/" in d.current_url, "the new phone's page")
    phone_id = driver.current_url.rstrip("/").rsplit("/", 1)[-1]
    driver.get(BASE_URL)
    button = wait_visible(driver, f"#delete-phone-{phone_id}")
    button.click()
    assert button.text == "Tap again: delete this phone"
    assert driver.find_elements(By.CSS_SELECTOR, f'li[data-phone-id="{phone_id}"]')
    button.click()
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f'li[data-phone-id="{phone_id}"]'),
             "the deleted phone leaving the list")
    driver.get(f"{BASE_URL}/phones/{phone_id}")
    wait_visible(driver, '#screen[data-state="NOT_FOUND"]', "the deleted phone's page saying it is gone")
