"""Browser test of the stage: enrol, login, transaction and a push login walked entirely on
/stage, each session sent to the phone on stage with one click (no payload typed or pasted).

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

import json
import time
import uuid

from haralyzer import HarParser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pages import (
    BASE_URL, DOWNLOADS, PIN, TIMEOUT, call, click, confirm_with_pin, fill_starter, find, go_home, open_stage,
    screenshot, visible, wait_for, wait_screen, wait_visible,
)


def new_phone_on_stage(driver):
    """Takes every phone off the stage and puts a new one on: returns its id."""
    for button in driver.find_elements(By.CSS_SELECTOR, ".stage-phone-off"):
        button.click()
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, ".stage-phone"), "phones still on stage")
    click(driver, "#stage-new-phone")
    frame = wait_visible(driver, ".stage-phone", "the new phone is not on stage")
    phone_id = frame.get_attribute("data-phone-id")
    assert f"phones={phone_id}" in driver.current_url, "the stage's address does not name its phone"
    return phone_id


def start(driver, kind, user_id, display_name=None, transaction=None):
    """Starts a session with the stage's session starter; returns its id once the card shows it."""
    previous = find(driver, "#session-card").get_attribute("data-session-id")
    fill_starter(driver, kind, user_id, display_name, transaction)

    def shown(d):
        sid = find(d, "#session-card").get_attribute("data-session-id")
        return sid if sid and sid != previous else False

    sid = wait_for(driver, shown, f"the {kind} session is not on the card")
    assert find(driver, "#session-status").get_attribute("data-status") == "pending"
    # while it waits: a live countdown to its expiry, and the phone to send it to
    wait_for(driver, lambda d: ":" in find(d, "#session-countdown-value").text, "no countdown to expiry")
    assert not visible(driver, "#session-outcome"), "an outcome shown before the end"
    assert find(driver, "#session-codes").get_property("open"), "a new session's QR code and link are folded away"
    assert find(driver, "#session-link").get_attribute("href").endswith("/console/sessions/" + sid)
    return sid


def on_phone(driver, phone_id):
    driver.switch_to.frame(find(driver, f'.stage-phone[data-phone-id="{phone_id}"] iframe'))


def outcome(driver, text):
    wait_for(driver, lambda d: visible(d, "#session-outcome") and find(d, "#session-outcome").text.startswith(text), f"outcome never became {text}")
    assert not visible(driver, "#session-countdown"), "the countdown stays after the end"
    assert not visible(driver, "#session-send"), "a finished session is still offered to phones"
    # nothing is left to scan: the QR code, its text, the link and the account fold under the outcome
    assert not find(driver, "#session-codes").get_property("open"), "an ended session's QR code and link stay on show"
    assert not visible(driver, "#session-qr-text") and not visible(driver, "#session-deep-link")


def downloaded(name):
    """The file the browser downloaded under that name, once it is complete."""
    path = DOWNLOADS / name
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if path.exists() and not (DOWNLOADS / (name + ".crdownload")).exists():
            return path
        time.sleep(0.1)
    raise AssertionError(f"{name} was not downloaded")


def check_har(path, sid, user_id):
    """The HAR file as a real HAR consumer (haralyzer) reads it: version 1.2 and the push login's
    exchanges in order, none holding the PIN or a key."""
    text = path.read_text()
    assert PIN not in text
    data = json.loads(text)
    assert data["log"]["version"] == "1.2"
    entries = [entry for page in HarParser(data).pages for entry in page.entries]
    route = [(e.request.method, e.request.url.rsplit("/", 1)[-1], e.status) for e in entries]
    assert route == [
        ("POST", "messages:send", 200),
        ("POST", "messages", 200),
        ("POST", "redeem", 200),
        ("POST", "confirm", 200),
        ("POST", "verify", 200),
    ], route
    assert all(e.raw_entry["_authphone"]["sessionId"] == sid for e in entries)
    assert all(e.startTime is not None for e in entries)
    verify = entries[-1].request.raw_entry["postData"]["text"]
    assert "‹redacted›" in verify and "Signature" in verify


def test_enrol_login_transaction_and_push_on_the_stage(driver, windows):
    suffix = uuid.uuid4().hex[:10]
    user_id = f"stella-{suffix}"
    driver.get(BASE_URL + "/")
    windows["stage"] = driver.current_window_handle
    click(driver, "#stage-link")
    wait_for(driver, lambda d: d.current_url.startswith(BASE_URL + "/stage"), "the home page's stage link")
    open_stage(driver)
    assert find(driver, ".topnav .nav-stage").get_attribute("href").endswith("/stage")
    phone_id = new_phone_on_stage(driver)
    on_phone(driver, phone_id)
    wait_screen(driver, "HOME")
    assert not visible(driver, ".topbar"), "the framed phone shows its page's navigation"
    driver.switch_to.default_content()

    # enrol: the card's "Open on phone" hands the QR code to the phone on stage
    start(driver, "enrol", user_id, display_name="Stella Example")
    assert Select(find(driver, "#session-phone")).first_selected_option.get_attribute("value") == phone_id
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver, new_pin=True)
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Enrolled")

    # login, the same way; the offline-OTP form stays away while ENABLE_OTP is off
    call(driver, "PUT", "/api/backend/server-flags", {"flags": {"ENABLE_OTP": False}})
    start(driver, "login", user_id)
    assert not visible(driver, "#otp-form"), "the OTP form is offered while ENABLE_OTP is off"
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver)
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Logged in")
    screenshot(driver, "stage-login.png")

    # a transaction: the phone shows the text, then its confirmation
    start(driver, "transaction", user_id, transaction="Pay 12.00 EUR to the stage")
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver, steps=("CONFIRM", "CONFIRM_TRANSACTION"))
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Signed")

    # a login pushed from the card: the banner on the phone opens it
    sid = start(driver, "login", user_id)
    click(driver, "#push-to-phone")
    wait_for(driver, lambda d: find(d, "#session-dispatch").get_attribute("data-dispatch") == "dispatched", "the push was not dispatched")
    on_phone(driver, phone_id)
    banner = wait_visible(driver, "#push-banner", "the pushed session's banner is not shown")
    assert user_id in banner.text
    click(driver, "#push-banner")
    confirm_with_pin(driver)
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Logged in")
    driver.set_window_size(1600, 1000)
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", find(driver, ".stage-grid"))
    screenshot(driver, "stage-push.png")

    # its timeline: five exchanges across the three lanes, bodies on a click, and a HAR file
    wait_for(driver, lambda d: find(d, "#session-timeline").get_attribute("data-count") == "5", "the timeline does not show five exchanges")
    lanes = [(r.get_attribute("data-from"), r.get_attribute("data-to")) for r in driver.find_elements(By.CSS_SELECTOR, "#session-timeline .tl-hop")]
    assert lanes == [("backend", "push"), ("push", "phone"), ("phone", "backend"), ("phone", "backend"), ("phone", "backend")], lanes
    click(driver, "#session-timeline .tl-hop:last-child .tl-arrow")
    details = wait_visible(driver, "#session-timeline .tl-hop:last-child .tl-details", "the exchange's bodies are not shown")
    assert "‹redacted›" in details.text and PIN not in details.text
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", find(driver, "#session-timeline"))
    screenshot(driver, "stage-timeline.png")
    click(driver, "#session-timeline .tl-download-har")
    check_har(downloaded(f"session-{sid}.har"), sid, user_id)

    # the session's own link opens the console on it
    driver.get(f"{BASE_URL}/console/sessions/{sid}")
    wait_for(driver, lambda d: find(d, "#session-card").get_attribute("data-session-id") == sid, "the session's link does not show it")
    outcome(driver, "Logged in")


def brightness(css_colour):
    """The mean of an rgb()/rgba() colour's three channels."""
    channels = css_colour[css_colour.index("(") + 1 : css_colour.index(")")].split(",")[:3]
    return sum(float(c) for c in channels) / 3


def test_dark_mode_follows_the_system(driver):
    """With the system set to dark, the pages are dark; the phone's own screen stays light."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert brightness(background) < 60, background
    card = driver.execute_script("return getComputedStyle(document.querySelector('.session-starter')).backgroundColor")
    assert brightness(card) < 60, card
    on_phone(driver, phone_id)
    wait_screen(driver, "HOME")
    screen = driver.execute_script("return getComputedStyle(document.querySelector('.phone-screen')).backgroundColor")
    text = driver.execute_script("return getComputedStyle(document.getElementById('screen')).color")
    assert brightness(screen) > 200 and brightness(text) < 100, (screen, text)
    driver.switch_to.default_content()
    screenshot(driver, "stage-dark.png")


def test_a_qr_picture_dropped_on_the_phone_scans_it(driver):
    """A picture of the session's QR code dropped onto the phone opens the session, as its camera
    would: here the card's own QR code, drawn as PNG, dropped on the phone on stage."""
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    sid = start(driver, "enrol", f"drop-{uuid.uuid4().hex[:10]}", display_name="Drop Example")
    assert not visible(driver, ".stage-phone[data-controls]"), "the phone's device controls are not folded away"
    click(driver, ".stage-phone-controls")
    on_phone(driver, phone_id)
    wait_screen(driver, "HOME")
    # the ids and the token the panel shows shortened are copied whole
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": BASE_URL, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    phone = call(driver, "GET", f"/api/phones/{phone_id}")
    for button, value in (("#copy-phone-id", phone["id"]), ("#copy-device-id", phone["deviceId"]), ("#copy-fcm-token", phone["fcmToken"])):
        click(driver, button)
        wait_for(driver, lambda d: find(d, button).text == "Copied", f"{button} did not copy")
        copied = driver.execute_async_script("const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done(String(e)));")
        assert copied == value, (button, copied)
    drop_script = """
        const [sid, done] = arguments;
        const image = new Image();
        image.onload = () => {
          const canvas = document.createElement("canvas");
          canvas.width = canvas.height = 600;
          const context = canvas.getContext("2d");
          context.fillStyle = "#fff";
          context.fillRect(0, 0, 600, 600);
          if (sid) context.drawImage(image, 50, 50, 500, 500);
          canvas.toBlob((blob) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([blob], "qr.png", { type: "image/png" }));
            const phone = document.querySelector(".phone");
            phone.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
            done(phone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true })));
          }, "image/png");
        };
        image.onerror = () => done("the QR code did not load");
        image.src = sid ? "/api/backend/sessions/" + encodeURIComponent(sid) + "/qr.svg" : "/favicon.svg";
        """
    # a blank picture: the phone says there is no QR code in it, in a toast
    driver.execute_async_script(drop_script, None)
    toast = wait_visible(driver, "#toast", "no toast for a picture without a QR code")
    assert toast.get_attribute("data-code"), toast.text
    dropped = driver.execute_async_script(drop_script, sid)
    assert dropped is False, f"the phone did not take the drop: {dropped}"  # false: the page handled it
    wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
    assert find(driver, "#screen").get_attribute("data-flow-type") == "ENROL"
    # the toast about the blank picture went with the screen it was about (within its 7 s)
    assert not visible(driver, "#toast"), "a toast outlived the screen it was about"
    click(driver, "#cancel")
    driver.switch_to.default_content()


def test_a_pushed_enrolment_goes_to_the_phone_on_stage(driver):
    """The starter's push goes to the phone on stage unless another is chosen: an enrolment
    pushed from the stage reaches its banner without picking the phone."""
    open_stage(driver)
    phone_id = new_phone_on_stage(driver)
    token = call(driver, "GET", f"/api/phones/{phone_id}")["fcmToken"]
    Select(find(driver, "#session-delivery")).select_by_value("push")
    wait_for(driver, lambda d: Select(find(d, "#session-push-phone")).first_selected_option.get_attribute("value") == token,
             "the push does not go to the phone on stage")
    user_id = f"pushed-{uuid.uuid4().hex[:10]}"
    fill_starter(driver, "enrol", user_id, display_name="Pia Pushed")
    wait_for(driver, lambda d: find(d, "#session-dispatch").get_attribute("data-dispatch") == "dispatched", "the enrolment was not pushed")
    on_phone(driver, phone_id)
    assert "Pia Pushed" in wait_visible(driver, "#push-banner", "the pushed enrolment's banner is not shown").text
