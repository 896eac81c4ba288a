"""Browser test: privacyIDEA's own web login, approved by an AuthPhone phone's auto-answer rule
(issue 30, example (b)). The user types the password of privacyIDEA's user store into
privacyIDEA's login page (its web UI at its own URL); privacyIDEA checks it against the user's push
token, pushes the challenge through AuthPhone's FCM endpoint, and its page waits, polling
/validate/polltransaction; the phone's rule for privacyIDEA's origin accepts the challenge as it
arrives, and the page goes on to the user's own view.

Two of privacyIDEA's policies make its web login need the token: `login_mode=privacyIDEA` (scope
webui: the login is privacyIDEA's /validate/check) and `otppin=userstore` (scope authentication:
the user store's password is the token's PIN, so it triggers the push).

The phone is the Python client's (clients/python; its pytest plugin gives `phone`); the servers
are started by the caller (scripts/browser-test.sh).
"""

from pages import click, find, wait_for
from privacyidea_server import REALM, USER_PASSWORD

# privacyIDEA's page waits up to 300 s for the push; the phone answers as the push arrives.
LOGGED_IN_WITHIN = 30


def test_privacyideas_web_login_goes_through_when_the_phones_rule_accepts_the_push(driver, windows, privacyidea, phone):
    user = privacyidea.new_user("web-login")
    admin = privacyidea.admin
    with privacyidea.firebase_push("authphone"), \
            admin.policy("web-login-by-token", "webui", {"login_mode": "privacyIDEA"}, user=user), \
            admin.policy("web-login-password-as-pin", "authentication", {"otppin": "userstore"}, user=user):
        _, qr_text = admin.init_push_token(user)
        assert phone.scan(qr_text).privacy_idea["state"] == "WAIT_FOR_INPUT", "the phone did not ask to trust privacyIDEA"
        assert phone.answer_privacy_idea(True)["outcome"] == "ENROLLED"
        phone.auto_answer("confirm", server=privacyidea.url, count=1)

        windows["privacyidea"] = driver.current_window_handle
        driver.get(privacyidea.url)
        find(driver, "#username").send_keys(user)
        find(driver, "#password").send_keys(USER_PASSWORD)
        click(driver, 'button.login-btn[type="submit"]')
        # privacyIDEA's header names who is logged in
        wait_for(driver, lambda d: f"{user} @ {REALM}" in find(d, "body").text, "privacyIDEA's page did not log the user in",
                 timeout=LOGGED_IN_WITHIN)
    assert "/login" not in driver.current_url, driver.current_url
    assert phone.auto_answer_rules() == [], "the rule's one answer was not used"
