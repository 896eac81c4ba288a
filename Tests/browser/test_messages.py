"""Browser test: a text sent to the phone's number through the SMS gateway (docs/sms.md) raises
a banner over the screen with its sender, text and "Copy code"; the Messages app lists it on the
home screen, and "Copy code" puts the code on the clipboard.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

import requests
from selenium.webdriver.support.ui import Select

from pages import BASE_URL, TIMEOUT, click, create_phone, find, open_console, phone_screenshot, rect, wait_for, wait_visible

READ_CLIPBOARD = "const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, e => done('error: ' + e));"


def send_text(to, text, sender="ACME Bank"):
    """A text through the generic door, as a sender's gateway settings send it."""
    account = requests.get(BASE_URL + "/api/sms/account", timeout=TIMEOUT).json()
    response = requests.post(account["gatewayURL"], data={"to": to, "text": text, "from": sender},
                             auth=(account["accountSid"], account["authToken"]), timeout=TIMEOUT)
    assert response.status_code == 200, response.text


def test_a_text_raises_a_banner_and_its_code_can_be_copied(driver, windows):
    create_phone(driver, windows, f"Messages phone {uuid.uuid4().hex[:8]}")
    number = find(driver, "#home-phone-number").get_property("textContent")
    assert number.startswith("+4477009"), number
    assert not find(driver, "#messages-section").is_displayed()
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": BASE_URL, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})

    send_text(number, "Your ACME code is 314159. Do not share it.")
    wait_visible(driver, "#text-banner", "the text raised no banner")
    assert find(driver, "#text-banner-from").get_property("textContent") == "ACME Bank"
    assert "314159" in find(driver, "#text-banner-text").get_property("textContent")
    assert find(driver, "#text-banner-copy").get_attribute("data-code") == "314159"
    island, app_row = rect(driver, ".island"), rect(driver, "#text-banner .push-app")
    assert app_row["top"] >= island["bottom"], f"the island covers the banner's app row: {island} over {app_row}"
    phone_screenshot(driver, "sms-banner")  # docs/images/sms-banner.png

    wait_visible(driver, "#messages-section", "the Messages app does not show on the home screen")
    row = "#messages .message"
    assert find(driver, row).get_attribute("data-code") == "314159"
    assert "Your ACME code is 314159" in find(driver, row + " .message-text").get_property("textContent")
    click(driver, row + " .copy-code")
    wait_for(driver, lambda d: find(d, row + " .copy-code").get_attribute("data-copied") == "true", "Copy code did not copy")
    assert driver.execute_async_script(READ_CLIPBOARD) == "314159"

    # a text without a code offers nothing to copy; the newest is on top
    send_text(number, "Your parcel is on its way.", sender="Courier")
    wait_for(driver, lambda d: len(d.find_elements("css selector", row)) == 2, "the second text is not listed")
    assert find(driver, row).get_attribute("data-code") == ""
    assert not find(driver, row).find_elements("css selector", ".copy-code")


def test_the_console_holds_texts_back_and_the_phone_gets_them_late(driver, windows):
    """The console's faults card sets the SMS gateway's faults: a delayed text shows up on the
    phone once its delay is over, and the card lists the fault in words."""
    open_console(driver, windows)
    create_phone(driver, windows, f"Late texts {uuid.uuid4().hex[:8]}")
    number = find(driver, "#home-phone-number").get_property("textContent")
    driver.switch_to.window(windows["console"])
    Select(find(driver, "#fault-target")).select_by_value("sms")
    Select(find(driver, "#fault-kind")).select_by_value("delayText")
    delay = wait_visible(driver, "#fault-delay", "the delay's field is not shown for delayed texts")
    delay.clear()
    delay.send_keys("2")
    count = find(driver, "#fault-count")
    count.clear()
    count.send_keys("1")
    click(driver, "#fault-add")
    row = wait_visible(driver, '#faults .fault-row[data-kind="delayText"]', "the fault is not listed")
    assert "The SMS gateway delivers texts 2 s late" in row.text, row.text

    send_text(number, "Your late code is 662607")
    driver.switch_to.window(windows["phone"])
    assert not find(driver, "#messages-section").is_displayed()
    wait_visible(driver, "#messages-section", "the delayed text never arrived")
    assert find(driver, "#messages .message").get_attribute("data-code") == "662607"
