"""Browser test of the device controls: the phone's frame holds only what an authenticator app
shows, and what the device's camera, sensor and OS would do sits in a panel beside the frame
(below it at a phone's width), on the phone page and on the stage.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By

from pages import BASE_URL, click, find, new_phone, rect, screenshot, wait_connected, wait_for, wait_screen

# what the device does, not the app: each lives in the controls, none in the frame
CONTROLS = ["#oob-text", "#oob-open", "#oob-image-pick", "#fault-strip", "#sensor-section", "#device-section", "#settings-section"]


def controls_phone(driver):
    driver.get(BASE_URL + "/")
    return new_phone(driver, "Controls " + uuid.uuid4().hex[:6])["id"]


def check_controls_apart(driver):
    wait_connected(driver, "phone")
    wait_screen(driver, "HOME")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-controls #settings-section"), "the device controls were not drawn")
    for css in CONTROLS:
        assert not driver.find_elements(By.CSS_SELECTOR, ".phone " + css), f"{css} is inside the phone's frame"
        assert driver.find_elements(By.CSS_SELECTOR, "#device-controls " + css), f"{css} is not in the device controls"
    # the app's own content stays in the frame
    for css in ("#accounts, #home-empty", "#inbox-section, #inbox", "#pending-section"):
        assert driver.find_elements(By.CSS_SELECTOR, ", ".join(".phone " + part.strip() for part in css.split(","))), f"{css} left the frame"


def test_the_device_controls_stand_beside_the_frame(driver):
    phone_id = controls_phone(driver)
    driver.set_window_size(1366, 900)
    driver.get(f"{BASE_URL}/phones/{phone_id}")
    check_controls_apart(driver)
    phone, panel = rect(driver, ".phone"), rect(driver, "#device-controls")
    assert panel["left"] >= phone["right"], f"the controls are not beside the frame at 1366 px: {phone} {panel}"
    assert panel["top"] < phone["bottom"]
    screenshot(driver, "device-controls-1366.png")

    # a phone's width: the controls go under the frame
    driver.set_window_size(390, 844)
    driver.get(f"{BASE_URL}/phones/{phone_id}")
    check_controls_apart(driver)
    phone, panel = rect(driver, ".phone"), rect(driver, "#device-controls")
    assert panel["top"] >= phone["bottom"], f"the controls are not below the frame at 390 px: {phone} {panel}"
    screenshot(driver, "device-controls-390.png")


def test_the_stage_frames_each_phone_with_its_controls_beside_it(driver):
    """On the stage the controls are folded away; unfolded, they stand beside the phone."""
    phone_id = controls_phone(driver)
    driver.set_window_size(1366, 900)
    driver.get(f"{BASE_URL}/stage?phones={phone_id}")
    click(driver, ".stage-phone-controls")
    driver.switch_to.frame(find(driver, f'.stage-phone[data-phone-id="{phone_id}"] iframe'))
    check_controls_apart(driver)
    phone, panel = rect(driver, ".phone"), rect(driver, "#device-controls")
    assert panel["left"] >= phone["right"], f"the controls are not beside the frame on the stage: {phone} {panel}"
    overflow = driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the stage's frame scrolls sideways by {overflow} px"
    driver.switch_to.default_content()
