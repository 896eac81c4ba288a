"""Browser test of what a session started on the console asks of the phone: a transaction whose
exact text the phone shows and the user signs, the strings and logo the phone announces, and the
steps a login skips; and the card's timeline of a session whose every attempt was refused.

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import base64
import uuid

from selenium.webdriver.common.by import By

from client import payload_of
from device import Device
from pages import (
    PIN, TIMEOUT, backend_session, call, click, create_phone, enrol_by_qr, enter_pin, find, flow_log_text, go_home,
    new_phone, open_console, open_payload, screenshot, start_session, visible, wait_console_status, wait_for,
    wait_screen, wait_visible,
)

# A red 1×1 PNG.
LOGO_PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")


def test_sign_transaction(driver, windows):
    """A transaction for a pre-selected account: the phone shows its exact text, the user signs it
    and gives the PIN; the console shows it signed, with the message the user typed."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"dave-{suffix}"
    transaction = "Pay 120.00 EUR to ACME Ltd\nIBAN CH93 0076 2011 6238 5295 7\n  reference: order 42"
    driver.set_script_timeout(TIMEOUT)

    open_console(driver, windows)
    enrol_sid, _ = enrol_by_qr(driver, windows, user_id, "Dave Example", f"Transaction test {suffix}")
    account_id = backend_session(driver, enrol_sid).get("accountId")
    assert account_id, "the enrolment gave no account id"

    driver.switch_to.window(windows["console"])
    sid, qr = start_session(driver, "transaction", user_id, transaction=transaction, account_id=account_id)
    assert find(driver, "#session-transaction-text").get_property("textContent") == transaction

    driver.switch_to.window(windows["phone"])
    open_payload(driver, qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "SIGN_TRANSACTION"
    choices = driver.find_elements(By.CSS_SELECTOR, "input.account-choice")
    assert len(choices) == 1 and choices[0].get_attribute("value") == account_id, "the pre-selected account is not the only choice"
    wait_visible(driver, "#account-preselected", "the pre-selection is not shown")
    find(driver, "#user-input").send_keys("invoice 2026-114")
    click(driver, "#confirm")

    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM_TRANSACTION")
    # beside the screen, the diagram highlights the same step, the ones before it done
    wait_visible(driver, '#flow-diagram .fd-node[data-node="CONFIRM_TRANSACTION"][aria-current="step"][data-status="waiting"]',
                 "the flow diagram does not highlight CONFIRM_TRANSACTION")
    assert find(driver, '#flow-diagram .fd-node[data-node="CONFIRM"]').get_attribute("data-status") == "completed"
    shown = find(driver, "#transaction-text")
    assert shown.get_property("textContent") == transaction, "the phone does not show the exact text"
    screenshot(driver, "transaction-confirm.png")
    click(driver, "#confirm")

    # the second factor cannot be skipped
    wait_screen(driver, "WAIT_FOR_INPUT", "VERIFY_SECOND_FACTOR")
    assert "sign the transaction" in find(driver, "#screen").text
    enter_pin(driver, PIN)
    wait_screen(driver, "DONE")
    assert "Transaction signed" in find(driver, "#flow-done").text
    assert PIN not in flow_log_text(driver)

    driver.switch_to.window(windows["console"])
    wait_console_status(driver, sid, "signed")
    assert find(driver, "#session-user-input").text == "invoice 2026-114"
    assert "yes" in find(driver, "#session-meta").text
    session = backend_session(driver, sid)
    assert session["transactionSigned"] is True and session["transaction"] == transaction and session["accountId"] == account_id
    screenshot(driver, "console-transaction.png")


def test_the_console_sets_what_the_phone_announces(driver, windows, tmp_path):
    """Seed 001's announceInfo, set per session on the console: the phone's confirmation shows
    the session's own strings and logo instead of the server's defaults."""
    suffix = uuid.uuid4().hex[:10]
    logo = tmp_path / "logo.png"
    logo.write_bytes(LOGO_PNG)

    open_console(driver, windows)
    _, enrol_qr = start_session(driver, "enrol", f"hana-{suffix}", "Hana Example",
                                announce="Shop: ACME Ltd\nOrder: 42", logo_path=logo)
    create_phone(driver, windows, f"Announced {suffix}")
    open_payload(driver, enrol_qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    info = wait_visible(driver, "#announce-info")
    assert "ACME Ltd" in info.text and "42" in info.text
    assert "Service" not in info.text, "the server's default was shown instead"
    wait_for(driver, lambda d: d.execute_script(
        "const i = document.getElementById('announce-logo'); return !!i && i.complete && i.naturalWidth === 1;"),
        "the logo was not shown")
    screenshot(driver, "announce-info.png")
    click(driver, "#cancel")
    wait_screen(driver, "ERROR")


def test_the_console_skips_steps_per_session(driver, windows):
    """Seed 001's configuration, set per session on the console: a login that skips the
    confirmation and the second factor ends on the phone by itself; one that skips only the
    second factor asks for the confirmation alone."""
    suffix = uuid.uuid4().hex[:10]
    user_id = f"ivan-{suffix}"

    open_console(driver, windows)
    enrol_by_qr(driver, windows, user_id, "Ivan Example", f"Skipping {suffix}")
    driver.switch_to.window(windows["console"])
    # an enrolment cannot skip its steps: the choices show for a login only
    assert find(driver, "#session-type").get_property("value") == "enrol"
    assert not visible(driver, "#session-skip-confirmation") and not visible(driver, "#session-skip-second-factor")
    sid, qr = start_session(driver, "login", user_id, skip_confirmation="true", skip_second_factor="true")
    driver.switch_to.window(windows["phone"])
    open_payload(driver, qr)
    wait_screen(driver, "DONE")
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, sid, "loggedin")

    sid, qr = start_session(driver, "login", user_id, skip_confirmation="false", skip_second_factor="true")
    driver.switch_to.window(windows["phone"])
    go_home(driver)
    open_payload(driver, qr)
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    click(driver, "#confirm")
    wait_screen(driver, "DONE")
    driver.switch_to.window(windows["console"])
    wait_console_status(driver, sid, "loggedin")


def test_the_cards_timeline_shows_refused_redeems(driver, windows):
    """An enrolment QR code another device used first: each of the phone's tries is refused, and
    the card's timeline lists those refusals instead of saying "No exchanges yet"."""
    suffix = uuid.uuid4().hex[:10]
    driver.set_script_timeout(TIMEOUT)
    open_console(driver, windows)
    sid, qr = start_session(driver, "enrol", f"kim-{suffix}", "Kim Example")
    # a device of the test's own, not one of this server's phones: its redeem is on no timeline
    taken = call(driver, "POST", "/api/backend/redeem", Device(None).redeeming(payload_of(qr)["nma_data"]["token"]))
    assert taken.get("sessionId") == sid, taken
    phone = new_phone(driver, f"Too late {suffix}")
    for _ in range(3):
        refused = call(driver, "POST", f"/api/phones/{phone['id']}/oob", {"qr": qr})
        assert refused.get("error", {}).get("code") == "ENROL_QR_EXPIRED", refused

    wait_for(driver, lambda d: find(d, "#session-timeline").get_attribute("data-count") == "3",
             "the card's timeline does not show the three refused redeems")
    hops = driver.find_elements(By.CSS_SELECTOR, "#session-timeline .tl-hop")
    assert [(h.get_attribute("data-from"), h.get_attribute("data-to"), h.get_attribute("data-ok")) for h in hops] == [("phone", "backend", "false")] * 3
    assert [h.find_element(By.CSS_SELECTOR, ".tl-status").text for h in hops] == ["410"] * 3
    assert not visible(driver, "#session-timeline .tl-empty"), "the timeline still says there are no exchanges"
