"""The Python client's privacyIDEA calls (clients/python) against privacyIDEA 3.14 itself
(Tests/api/privacyidea_server.py), as a developer's test would drive the phone: "Check now" on a
poll-only token, the display code of `push_code_to_phone`, the token, container and OTP account
lists, a container's sync and an account's code. They live with the browser tests, whose venv holds
the client (its plugin's `phone`) and the privacyIDEA fixture; no browser is opened.
"""


def test_a_poll_only_token_is_checked_and_its_display_code_logs_in(privacyidea, phone):
    user = privacyidea.new_user("client")
    serial, qr_text = privacyidea.admin.init_push_token(user)
    assert phone.scan(qr_text).privacy_idea["state"] == "WAIT_FOR_INPUT"
    assert phone.answer_privacy_idea(True)["outcome"] == "ENROLLED"
    assert [token["serial"] for token in phone.privacy_idea_tokens()] == [serial]
    assert phone.poll_privacy_idea(serial) is None, "nothing is open before the login"
    with privacyidea.admin.policy("client-code-to-phone", "authentication", {"push_code_to_phone": True}, user=user):
        started = privacyidea.admin.validate_check(user, "")
        shown = phone.poll_privacy_idea(serial)
        assert shown is not None and (shown["kind"], shown["state"]) == ("CHALLENGE", "WAIT_FOR_INPUT"), shown
        assert phone.answer_privacy_idea(True)["outcome"] == "ACCEPTED"
        code = phone.display_code()
        assert code is not None and privacyidea.admin.validate_check(user, code, started.transaction_id).accepted


def test_a_containers_token_arrives_by_sync_and_its_code_is_accepted(privacyidea, phone):
    user = privacyidea.new_user("client-container")
    container = privacyidea.new_container(user)
    assert phone.scan(privacyidea.admin.container_code(container)).privacy_idea["kind"] == "CONTAINER"
    assert phone.answer_privacy_idea(True)["outcome"] == "ENROLLED"
    totp, _ = privacyidea.admin.init_totp(user)
    privacyidea.admin.add_to_container(container, totp)
    assert phone.sync_container(container)["added"] == [totp]
    [held] = [c for c in phone.containers() if c["serial"] == container]
    account = held["tokens"][0]["otpAccountId"]
    assert [a["id"] for a in phone.otp_accounts()] == [account]
    assert privacyidea.admin.validate_check(user, phone.otp_code(account)).accepted
