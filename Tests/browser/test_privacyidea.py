"""Browser test: the phone page as privacyIDEA's authenticator, against privacyIDEA 3.14 itself
(Tests/api/privacyidea_server.py). privacyIDEA's QR text pasted into the phone's box enrols a
push token once the user accepts the server; "Check now" brings a login's challenge, shown as
privacyIDEA words it; Accept lets privacyIDEA's /validate/check through. With presence options
the user presses the one the login page shows; a forged challenge is shown refused.

privacyIDEA's answers are the proof (the token's rollout state, /validate/check). The servers are
started by the caller (scripts/browser-test.sh); pages.py has the helpers. The challenge screen
is kept as artifacts/screenshots/privacyidea-challenge.png (docs/images has a copy).
"""

import json
import urllib.parse
import uuid

from selenium.webdriver.common.by import By

from pages import call, click, create_phone, find, flow_log_text, go_home, open_payload, phone_screenshot, visible, wait_for, wait_screen, wait_visible
from servers import free_port

ENROLMENT = '[data-flow-type="PRIVACYIDEA_ENROLMENT"]'
CHALLENGE = '[data-flow-type="PRIVACYIDEA_CHALLENGE"]'


# Notes each privacyIDEA attempt line as it appears, with its time since the note began.
SEE_ATTEMPTS = """
window.seenAttempts = [];
window.watchedFrom = performance.now();
new MutationObserver(() => {
  const line = document.querySelector('#privacyidea-attempts');
  if (line && !seenAttempts.some((a) => a.attempt === line.dataset.attempt)) {
    seenAttempts.push({attempt: line.dataset.attempt, text: line.textContent, after: performance.now() - watchedFrom});
  }
}).observe(document.body, {subtree: true, childList: true, characterData: true});
"""


def token_row(serial):
    return f'#privacyidea-tokens .privacyidea-token[data-serial="{serial}"]'


def enrol_on_the_page(driver, privacyidea, user):
    """Pastes privacyIDEA's enrolment QR text, accepts its server and goes home; returns the serial."""
    serial, qr_text = privacyidea.admin.init_push_token(user)
    open_payload(driver, qr_text)
    wait_screen(driver, "WAIT_FOR_INPUT", extra=ENROLMENT)
    assert f"Add a privacyIDEA token from {privacyidea.url}?" in find(driver, "#screen").text
    assert find(driver, "#privacyidea-serial").text == serial
    phone_screenshot(driver, "privacyidea-enrolment.png")
    click(driver, "#accept")
    wait_screen(driver, "DONE", extra=ENROLMENT)
    assert find(driver, "#privacyidea-done").get_attribute("data-outcome") == "ENROLLED"
    assert "Token added" in find(driver, "#privacyidea-done").text
    go_home(driver)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, token_row(serial)), "the token is not on the home screen")
    return serial


def phone_checked_by_hand(driver, windows, name):
    """A phone whose poll-only tokens are checked only by "Check now" (its own poll every 10 s
    could bring a challenge while a test reaches for the button)."""
    phone_id = create_phone(driver, windows, name)
    call(driver, "PUT", f"/api/phones/{phone_id}/settings", {"pollPushTokens": False})
    return phone_id


def check_now(driver, serial):
    """Presses the token's "Check now"; waits for the challenge it brings."""
    click(driver, f"{token_row(serial)} .privacyidea-poll")
    wait_screen(driver, "WAIT_FOR_INPUT", extra=CHALLENGE)


def test_a_push_token_enrolled_on_the_page_logs_in_when_the_phone_accepts(driver, windows, privacyidea):
    phone_checked_by_hand(driver, windows, f"privacyIDEA page {uuid.uuid4().hex[:8]}")
    user = privacyidea.new_user("page")
    title, question = "ACME login", "Log in to the ACME intranet with your token {serial}?"
    serial = enrol_on_the_page(driver, privacyidea, user)
    token = privacyidea.admin.token(serial)
    assert (token.rollout_state, token.active) == ("enrolled", True)
    assert privacyidea.url in find(driver, token_row(serial)).text

    with privacyidea.admin.policy("page-question", "authentication", {"push_text_on_mobile": question, "push_title_on_mobile": title},
                                  user=user):
        login = privacyidea.admin.validate_check(user, "")
        assert (login.accepted, login.authentication) == (False, "CHALLENGE"), login
        check_now(driver, serial)
        # privacyIDEA's words, its tags filled in by privacyIDEA
        assert find(driver, "#privacyidea-title").text == title
        assert find(driver, "#privacyidea-question").text == question.format(serial=serial)
        phone_screenshot(driver, "privacyidea-challenge.png")
        click(driver, "#accept")
        wait_screen(driver, "DONE", extra=CHALLENGE)
    assert find(driver, "#privacyidea-done").get_attribute("data-outcome") == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", login.transaction_id).accepted

    # the flow log has each change of both requests
    rows = [(e.get_attribute("data-kind"), e.get_attribute("data-state")) for e in driver.find_elements(By.CSS_SELECTOR, "#flow-log .privacyidea-row")]
    assert rows[0] == ("CHALLENGE", "DONE") and ("ENROLMENT", "WAIT_FOR_INPUT") in rows, rows
    assert serial in flow_log_text(driver)

    # back home, a poll with nothing waiting says so; delete asks for a second tap
    go_home(driver)
    click(driver, f"{token_row(serial)} .privacyidea-poll")
    wait_for(driver, lambda d: "Nothing waiting" in find(d, f"{token_row(serial)} .privacyidea-poll-note").text, "the empty poll says nothing")
    phone_screenshot(driver, "privacyidea-home.png")
    click(driver, f"#privacyidea-delete-{serial}")
    assert find(driver, f"#privacyidea-delete-{serial}").text == "Tap again: delete"
    click(driver, f"#privacyidea-delete-{serial}")
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, token_row(serial)), "the token was not deleted")
    # with its last token gone, privacyIDEA's app leaves the home screen
    assert not find(driver, "#privacyidea-section").is_displayed()


def presence_answer(check):
    """The option privacyIDEA's login page shows the user (its reply's `presence_answer`)."""
    for challenge in [check.detail, *check.detail.get("multi_challenge", [])]:
        if challenge.get("presence_answer"):
            return challenge["presence_answer"]
    raise AssertionError(f"privacyIDEA's reply names no presence answer: {check.detail}")


def test_the_presence_option_the_login_shows_logs_in_and_a_forged_challenge_is_refused(driver, windows, privacyidea):
    phone_checked_by_hand(driver, windows, f"privacyIDEA presence {uuid.uuid4().hex[:8]}")
    user = privacyidea.new_user("presence-page")
    serial = enrol_on_the_page(driver, privacyidea, user)

    with privacyidea.admin.policy("page-presence", "authentication", {"push_require_presence": True}, user=user):
        login = privacyidea.admin.validate_check(user, "")
        check_now(driver, serial)
        options = [b.get_attribute("data-option") for b in driver.find_elements(By.CSS_SELECTOR, "#presence-options .presence-option")]
        right = presence_answer(login)
        assert right in options and len(options) >= 2, options
        assert not driver.find_elements(By.CSS_SELECTOR, "#accept"), "a plain Accept beside the options"
        click(driver, f'#presence-options .presence-option[data-option="{right}"]')
        wait_screen(driver, "DONE", extra=CHALLENGE)
    assert find(driver, "#privacyidea-done").get_attribute("data-outcome") == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", login.transaction_id).accepted

    # A challenge privacyIDEA did not sign, pushed and opened at once: plainly refused, nothing to accept.
    go_home(driver)
    forged = {"nonce": "FORGEDNONCEFORGEDNONCE", "question": "Log in to your bank?", "serial": serial, "title": "privacyIDEA",
              "sslverify": "0", "url": privacyidea.url + "/ttype/push", "signature": "A" * 816}
    click(driver, "#oob-open-at-once")
    open_payload(driver, json.dumps({"data": forged}))
    wait_screen(driver, "ERROR", extra=CHALLENGE)
    assert find(driver, "#flow-error").get_attribute("data-code") == "PUSH_CHALLENGE_FORGED"
    assert find(driver, "#privacyidea-error-words").text == "This request is not signed by privacyIDEA: refused"
    assert "Refused" in find(driver, "#flow-error").text and "Log in to your bank?" in find(driver, "#flow-error").text
    assert not driver.find_elements(By.CSS_SELECTOR, "#accept, .presence-option")
    click(driver, "#flow-error summary")
    assert find(driver, "#privacyidea-error-code").text == "PUSH_CHALLENGE_FORGED"
    phone_screenshot(driver, "privacyidea-forged.png")

    # another, pasted into the inbox: the phone opens it as it arrives, shows the refusal, and
    # drops it from the inbox, as privacyIDEA's app drops a push it cannot take
    go_home(driver)
    click(driver, "#oob-open-at-once")
    open_payload(driver, json.dumps({"data": {**forged, "nonce": "FORGEDNONCEFORGEDNONCE2"}}))
    wait_screen(driver, "ERROR", extra=CHALLENGE)
    assert find(driver, "#flow-error").get_attribute("data-code") == "PUSH_CHALLENGE_FORGED"
    wait_for(driver, lambda d: not visible(d, "#push-banner") and not d.find_elements(By.CSS_SELECTOR, "#inbox .inbox-item"),
             "the refused push left a notification")


def test_a_pushed_challenge_goes_on_screen_and_leaves_no_banner(driver, windows, privacyidea):
    """privacyIDEA pushes a data message: the phone's app puts the challenge on screen at once, and
    the notification that brought it is gone, not left as a banner over the challenge's title."""
    phone_checked_by_hand(driver, windows, f"privacyIDEA pushed {uuid.uuid4().hex[:8]}")
    user = privacyidea.new_user("pushed-page")
    with privacyidea.firebase_push("authphone"):
        serial = enrol_on_the_page(driver, privacyidea, user)
        login = privacyidea.admin.validate_check(user, "")
        wait_screen(driver, "WAIT_FOR_INPUT", extra=CHALLENGE)
        wait_for(driver, lambda d: not visible(d, "#push-banner"), "the challenge's push stays as a banner over it", timeout=3)
        assert not visible(driver, "#inbox-section"), "the opened push is still in the inbox"
        click(driver, "#accept")
        wait_screen(driver, "DONE", extra=CHALLENGE)
    assert privacyidea.admin.validate_check(user, "", login.transaction_id).accepted, serial


def test_a_privacyidea_that_refuses_connections_shows_each_attempt(driver, windows, privacyidea):
    """Nothing listens at the enrolment's address: each attempt is refused at once (not after a
    10 s connect deadline) and is on the screen with why and the wait, then the error; the
    phone's timeline has each attempt, to privacyIDEA, numbered."""
    phone_id = phone_checked_by_hand(driver, windows, f"privacyIDEA refused {uuid.uuid4().hex[:8]}")
    _, qr_text = privacyidea.admin.init_push_token(privacyidea.new_user("refused-page"))
    dead = free_port()
    open_payload(driver, qr_text.replace(urllib.parse.quote(privacyidea.url), urllib.parse.quote(f"http://127.0.0.1:{dead}")))
    wait_screen(driver, "WAIT_FOR_INPUT", extra=ENROLMENT)
    # the waits between attempts are jittered (up to 1, 2 and 4 s), so a line may show only briefly:
    # the page notes each as it comes
    driver.execute_script(SEE_ATTEMPTS)
    click(driver, "#accept")
    wait_screen(driver, "ERROR", extra=ENROLMENT, timeout=20)
    seen = driver.execute_script("return {attempts: window.seenAttempts, took: performance.now() - window.watchedFrom}")
    assert [a["attempt"] for a in seen["attempts"]] == ["1", "2", "3"], seen
    for a in seen["attempts"]:
        assert a["text"].startswith(f"Attempt {a['attempt']} of 4 failed: ") and f"127.0.0.1:{dead} was refused" in a["text"], a
    # four attempts, each refused at once, and the waits between them (at most 1 + 2 + 4 s)
    assert seen["took"] < 7000 + 4 * 2000, f"the four attempts took {seen['took']:.0f} ms"
    hops = [hop for hop in call(driver, "GET", f"/api/phones/{phone_id}/timeline")["hops"] if hop["to"] == "privacyIDEA"]
    assert [hop["attempt"] for hop in hops] == [1, 2, 3, 4], hops
    # each refused at once, not after a connect deadline (the first attempt's wait before it is
    # the token's RSA key being made, a second or more)
    assert all(hop["durationMs"] < 1000 for hop in hops), [hop["durationMs"] for hop in hops]


def test_a_poll_only_token_is_checked_by_itself_and_a_decline_can_say_not_me(driver, windows, privacyidea):
    """With polling on (the default) the phone finds a poll-only token's login by itself, as
    privacyIDEA's app does; privacyIDEA 3.14 takes a reason with a decline, and "Not me" reaches
    it as a login the user did not start."""
    create_phone(driver, windows, f"privacyIDEA polling {uuid.uuid4().hex[:8]}")
    user = privacyidea.new_user("polling-page")
    serial = enrol_on_the_page(driver, privacyidea, user)
    login = privacyidea.admin.validate_check(user, "")
    # nobody presses "Check now": the phone's own poll, every 10 s, brings the challenge
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#screen[data-state="WAIT_FOR_INPUT"]{CHALLENGE}'),
             "the phone's own poll brought no challenge", timeout=25)
    assert find(driver, "#decline-cancel").is_displayed() and not driver.find_elements(By.CSS_SELECTOR, "#decline")
    click(driver, "#decline-not-me")
    wait_screen(driver, "DONE", extra=CHALLENGE)
    assert find(driver, "#privacyidea-done").get_attribute("data-outcome") == "DECLINED"
    assert "did not start this login" in find(driver, "#privacyidea-decline-reason").text
    assert privacyidea.admin.poll_transaction(login.transaction_id) == "declined"
    assert serial in flow_log_text(driver)


def test_with_unlock_asked_an_accept_takes_the_phones_biometric_first(driver, windows, privacyidea):
    """The phone's `unlockPushTokens` setting: Accept leads to the phone's own lock; an
    unrecognised finger sends nothing, a recognised one lets privacyIDEA's login through."""
    phone_id = phone_checked_by_hand(driver, windows, f"privacyIDEA unlock {uuid.uuid4().hex[:8]}")
    call(driver, "PUT", f"/api/phones/{phone_id}/settings", {"unlockPushTokens": True})
    user = privacyidea.new_user("unlock-page")
    serial = enrol_on_the_page(driver, privacyidea, user)
    login = privacyidea.admin.validate_check(user, "")
    check_now(driver, serial)
    click(driver, "#accept")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#privacyidea-unlock") and d.find_elements(By.CSS_SELECTOR, "#bio-prompt"), "no biometric prompt to unlock")
    assert not driver.find_elements(By.CSS_SELECTOR, "#privacyidea-unlock #pin-pad"), "a PIN pad on a phone without a PIN"
    click(driver, "#bio-no-match")
    wait_for(driver, lambda d: find(d, "#toast").get_attribute("data-code") == "UNLOCK_FAILED", "the failed unlock was not said")
    assert find(driver, "#privacyidea-unlock").is_displayed()
    assert privacyidea.admin.poll_transaction(login.transaction_id) == "pending"
    # the prompt comes again, as it comes first
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#bio-prompt"), "no second biometric prompt")
    click(driver, "#bio-match")
    wait_screen(driver, "DONE", extra=CHALLENGE)
    assert find(driver, "#privacyidea-done").get_attribute("data-outcome") == "ACCEPTED"
    assert privacyidea.admin.validate_check(user, "", login.transaction_id).accepted


def test_of_two_open_logins_the_newest_is_on_screen_and_the_older_opens_from_its_list(driver, windows, privacyidea):
    """A user who logged in twice: "Check now" shows the newest login, the older listed under it;
    the older opens from the list and its accept logs in that login only."""
    phone_checked_by_hand(driver, windows, f"privacyIDEA twice {uuid.uuid4().hex[:8]}")
    user = privacyidea.new_user("page-twice")
    serial = enrol_on_the_page(driver, privacyidea, user)
    older = privacyidea.admin.validate_check(user, "")
    newer = privacyidea.admin.validate_check(user, "")
    check_now(driver, serial)
    listed = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#privacyidea-waiting .waiting-request"), "no list of the older login")
    assert len(listed) == 1 and "1 more open request" in find(driver, "#privacyidea-waiting").text
    listed[0].click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#waiting-back"), "the older login did not open")
    assert not driver.find_elements(By.CSS_SELECTOR, "#privacyidea-waiting .waiting-request")
    click(driver, "#accept")
    wait_screen(driver, "DONE", extra=CHALLENGE)
    assert find(driver, "#privacyidea-done").get_attribute("data-outcome") == "ACCEPTED"
    assert privacyidea.admin.poll_transaction(older.transaction_id) == "accept"
    assert privacyidea.admin.poll_transaction(newer.transaction_id) == "pending"
    # the newer is still listed, and opens to be declined
    click(driver, "#privacyidea-waiting .waiting-request")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#waiting-back"), "the newer login did not open")
    # privacyIDEA 3.14 takes a reason with a decline: "Not me"
    click(driver, "#decline-not-me")
    wait_for(driver, lambda d: find(d, "#privacyidea-done").get_attribute("data-outcome") == "DECLINED", "the newer was not declined")
    assert not privacyidea.admin.validate_check(user, "", newer.transaction_id).accepted
