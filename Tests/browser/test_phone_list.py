"""Browser test of the list of phones and a phone's own link: a link to no phone says so and
leads back, and a phone deleted from the list is gone.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By

from pages import BASE_URL, find, new_phone, visible, wait_for, wait_screen, wait_visible


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


def test_a_phone_page_has_its_navigation_unless_framed(driver):
    """Opened on its own, a phone's page has the site's navigation; in the stage's frame
    (`?framed`) it does not."""
    driver.get(BASE_URL)
    phone = new_phone(driver, f"Alone {uuid.uuid4().hex[:8]}")
    driver.get(f"{BASE_URL}/phones/{phone['id']}")
    wait_screen(driver, "HOME")
    assert find(driver, "body").get_attribute("data-framed") is None, "a phone opened on its own is marked framed"
    assert visible(driver, ".topbar .nav-stage"), "a phone opened on its own has no navigation"
    driver.get(f"{BASE_URL}/phones/{phone['id']}?framed")
    wait_screen(driver, "HOME")
    assert not visible(driver, ".topbar"), "the framed phone shows its page's navigation"


def test_the_list_at_a_phones_width_keeps_names_and_dates_apart(driver):
    """At 390 px a phone's name, its device and its date each have their own room."""
    driver.get(BASE_URL)
    new_phone(driver, f"Presenter's second phone {uuid.uuid4().hex[:8]}")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    driver.get(BASE_URL)
    wait_visible(driver, ".phone-item")
    overlaps = driver.execute_script("""
        const apart = (a, b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
        // where the text is drawn, which may spill out of its box
        const drawn = (node) => { const range = document.createRange(); range.selectNodeContents(node); return range.getBoundingClientRect(); };
        const found = [];
        for (const item of document.querySelectorAll('.phone-item')) {
          const parts = ['.phone-name', '.phone-sub', '.phone-created', '.chevron', 'button'].map((css) => item.querySelector(css)).filter(Boolean);
          for (const [i, a] of parts.entries()) for (const b of parts.slice(i + 1)) {
            if (!apart(drawn(a), drawn(b))) found.push(a.className + ' / ' + b.className);
          }
          if (item.scrollWidth > item.clientWidth) found.push('the row is wider than the list');
        }
        return found;""")
    assert not overlaps, overlaps
