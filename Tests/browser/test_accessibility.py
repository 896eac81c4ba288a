"""Accessibility: axe-core, as selenium-axe-python bundles it, finds no serious or critical issue on
the index, console, stage and phone pages, in the light theme and the dark one (the pages follow
the system's prefers-color-scheme, which Chromium emulates here). The phone page is checked on its
PIN pad and on its home screen listing an account; the stage with that phone on it, in its frame.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium_axe_python import Axe

from pages import BASE_URL, PIN, call, choose_pin, click, go_home, new_phone, wait_connected, wait_for, wait_screen, wait_visible

# the stage's phone is ready once the page in its frame shows the home screen
FRAMED_HOME = "const f = document.querySelector('.stage-phone iframe'); return !!f?.contentDocument?.querySelector('#screen[data-state=HOME]')"


def serious_issues(driver, page):
    """axe's serious and critical violations on the page in view, its frames too: one line each."""
    axe = Axe(driver)
    for frame in driver.find_elements(By.TAG_NAME, "iframe"):
        driver.switch_to.frame(frame)
        axe.inject()
        driver.switch_to.default_content()
    axe.inject()
    violations = [v for v in axe.run()["violations"] if v["impact"] in ("serious", "critical")]
    # a target in a frame is the frame's selector, then the element's inside it
    return [f"{page}: {v['id']} ({v['impact']}, {v['help']}) at " + ", ".join(" >> ".join(n["target"]) for n in v["nodes"])
            for v in violations]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_accessibility_issue(driver, theme):
    # the pages' colours follow prefers-color-scheme (Public/css/base.css)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})
    driver.get(BASE_URL + "/")
    phone = new_phone(driver, f"Axe {theme}")
    session = call(driver, "POST", "/api/backend/sessions", {"type": "enrol", "userId": "axe-" + uuid.uuid4().hex[:8], "displayName": "Axe Example"})
    driver.get(BASE_URL + "/")
    wait_visible(driver, f'li[data-phone-id="{phone["id"]}"]', "the new phone is not listed")
    issues = serious_issues(driver, "index")

    driver.get(BASE_URL + "/console")
    wait_connected(driver, "console")
    wait_visible(driver, f'#sessions tr[data-session-id="{session["id"]}"]', "the session is not listed")
    issues += serious_issues(driver, "console")

    driver.get(f"{BASE_URL}/phones/{phone['id']}")
    wait_screen(driver, "HOME")
    call(driver, "POST", f"/api/phones/{phone['id']}/oob", {"qr": session["qrText"]})
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    click(driver, "#confirm")
    wait_visible(driver, '#pin-pad[data-phase="choose"]', "the PIN pad is not shown")
    issues += serious_issues(driver, "phone (PIN pad)")
    choose_pin(driver, PIN)
    wait_screen(driver, "DONE")
    go_home(driver)
    wait_visible(driver, "#accounts li", "the new account is not listed")
    issues += serious_issues(driver, "phone (home)")

    driver.get(f"{BASE_URL}/stage?phones={phone['id']}")
    wait_connected(driver, "stage")
    wait_for(driver, lambda d: d.execute_script(FRAMED_HOME), "the phone on stage shows no home screen")
    issues += serious_issues(driver, "stage")

    assert not issues, f"axe in the {theme} theme:\n" + "\n".join(issues)
