"""Browser test of the auto-answer card in the device controls: a rule added with its form shows in
the list, answers the next request by itself (the flow log and the timeline say "automatic (rule …)"), and goes
with two taps of Delete.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pages import BASE_URL, call, click, find, flow_log_text, new_phone, open_payload, wait_connected, wait_for, wait_screen


def test_a_rule_added_on_the_card_answers_and_is_deleted(driver):
    driver.get(BASE_URL + "/")
    phone_id = new_phone(driver, "Rules " + uuid.uuid4().hex[:6])["id"]
    driver.get(f"{BASE_URL}/phones/{phone_id}")
    wait_connected(driver, "phone")
    wait_screen(driver, "HOME")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-controls #auto-answer-section #no-auto-answer-rules"), "no card")

    Select(find(driver, "#auto-answer-answer")).select_by_value("decline")
    find(driver, "#auto-answer-user").send_keys("mallory")
    click(driver, "#auto-answer-add")
    row = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#auto-answer-rules .auto-answer-rule"), "the rule is not listed")[0]
    assert "decline · user mallory" in row.text
    rule_id = row.get_attribute("data-rule-id")
    assert call(driver, "GET", f"/api/phones/{phone_id}/auto-answer")["rules"][0]["id"] == rule_id

    # the next request for mallory is declined with nobody touching the screen
    session = call(driver, "POST", "/api/backend/sessions", {"type": "enrol", "userId": "mallory"})
    open_payload(driver, session["qrText"])
    wait_for(driver, lambda d: "automatic (rule" in flow_log_text(d), "the flow log does not say the rule answered")
    wait_for(driver, lambda d: call(d, "GET", f"/api/backend/sessions/{session['id']}")["status"] == "canceled", "not declined")
    # the phone's timeline marks the exchange the rule's answer caused (its abandon)
    wait_for(driver, lambda d: "automatic (rule" in d.execute_script("return document.querySelector('.tl-list')?.textContent || ''"),
             "the timeline does not mark the automatic exchange")

    click(driver, f"#auto-answer-delete-{rule_id}")
    click(driver, f"#auto-answer-delete-{rule_id}")
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#auto-answer-rules .auto-answer-rule"), "the rule is still listed")
    assert call(driver, "GET", f"/api/phones/{phone_id}/auto-answer") == {"rules": []}
