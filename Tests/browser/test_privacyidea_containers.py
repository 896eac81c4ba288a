"""Browser test: a privacyIDEA smartphone container registered on the phone page, against
privacyIDEA 3.14 itself (Tests/api/privacyidea_server.py). The container's code pasted into the
phone's box asks to accept the server and for the passphrase privacyIDEA keeps; once registered,
the phone synchronises: the container shows on the home screen as a group of its tokens, its TOTP
token among the OTP accounts with the code privacyIDEA accepts. "Sync now" brings a token added on
the server and takes away one removed there.

privacyIDEA's answers are the proof (the container's registration state, /validate/check). The
servers are started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By

from pages import call, click, create_phone, find, go_home, open_payload, phone_screenshot, wait_for, wait_screen

CONTAINER = '[data-flow-type="PRIVACYIDEA_CONTAINER"]'


def test_a_container_registered_on_the_page_brings_its_tokens(driver, windows, privacyidea):
    phone_id = create_phone(driver, windows, f"privacyIDEA container page {uuid.uuid4().hex[:8]}")
    user = privacyidea.new_user("container-page")
    serial = privacyidea.new_container(user)
    totp, _ = privacyidea.admin.init_totp(user)
    privacyidea.admin.add_to_container(serial, totp)
    code = privacyidea.admin.container_code(serial, passphrase_prompt="The word from your letter", passphrase_response="quince")

    open_payload(driver, code)
    wait_screen(driver, "WAIT_FOR_INPUT", extra=CONTAINER)
    assert f"Register this phone as a privacyIDEA container from {privacyidea.url}?" in find(driver, "#screen").get_property("textContent")
    assert find(driver, "#privacyidea-serial").get_property("textContent") == serial
    assert "The word from your letter" in find(driver, "#screen").get_property("textContent")
    find(driver, "#privacyidea-passphrase").send_keys("quince")
    phone_screenshot(driver, "privacyidea-container.png")
    click(driver, "#accept")
    wait_screen(driver, "DONE", extra=CONTAINER)
    assert "Container registered" in find(driver, "#privacyidea-done").get_property("textContent")
    assert privacyidea.admin.container(serial)["info"]["registration_state"] == "registered"

    # the first synchronisation brought the container's TOTP token as an OTP account, in the container's group
    go_home(driver)
    row = '#otp-accounts .otp-account[data-kind="totp"]'
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, row), "the container's TOTP token is not on the home screen")
    assert totp in find(driver, row).get_property("textContent")
    group = f'#privacyidea-containers .privacyidea-container[data-serial="{serial}"]'
    assert chips(driver, group) == [totp]
    account = call(driver, "GET", f"/api/phones/{phone_id}/privacyidea/containers")["containers"][0]["tokens"][0]["otpAccountId"]
    shown = call(driver, "GET", f"/api/phones/{phone_id}/otp-accounts/{account}/code")["code"]
    assert privacyidea.admin.validate_check(user, shown).accepted

    # "Sync now": a token added on the server arrives, one removed there leaves
    hotp, _ = privacyidea.admin.init_hotp(user)
    privacyidea.admin.add_to_container(serial, hotp)
    privacyidea.admin.remove_from_container(serial, totp)
    click(driver, f"#privacyidea-sync-{serial}")
    wait_for(driver, lambda d: chips(d, group) == [hotp], "the sync did not show on the container")
    note = find(driver, f"{group} .privacyidea-sync-note").get_property("textContent")
    assert f"added {hotp}" in note and f"removed {totp}" in note, note
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, row), "the removed token's account is still shown")
    phone_screenshot(driver, "privacyidea-container-synced.png")


def chips(driver, group):
    """The serials of the tokens the container's group on the home screen shows."""
    return [chip.get_attribute("data-serial") for chip in driver.find_elements(By.CSS_SELECTOR, f"{group} .container-token")]
