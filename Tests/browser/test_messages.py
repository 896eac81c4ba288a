"""Browser test: a text sent to the phone's number through the SMS gateway (docs/sms.md) raises
a banner over the screen with its sender, text and "Copy code"; the Messages app lists it on the
home screen, and "Copy code" puts the code on the clipboard.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

import requests

from pages import BASE_URL, TIMEOUT, click, create_phone, find, phone_screenshot, rect, wait_for, wait_visible

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
