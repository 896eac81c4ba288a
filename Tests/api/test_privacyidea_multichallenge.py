"""privacyIDEA's enrolment during login (`enroll_via_multichallenge`): a user without a token logs
in with the user store's password, privacyIDEA answers with an enrolment code in the login itself
(`detail.link`), the phone scans it, and the login finishes, for a push token, TOTP, HOTP and a
smartphone container. privacyIDEA 3.14 (privacyidea_server.py) decides: `/validate/check` with
the transaction id is the proof.

Environment: as client.py and privacyidea_server.py say.
"""

import contextlib

import pytest

from client import new_phone
from privacyidea_server import USER_PASSWORD


@contextlib.contextmanager
def enrolling_in_the_login(privacyidea, user, kind):
    """For the block's length, `user` logs in with the user store's password while holding no
    token (`passthru=userstore`), and privacyIDEA then enrols `kind` in the login."""
    actions = {"passthru": "userstore", "enroll_via_multichallenge": kind}
    with privacyidea.admin.policy("enrol-in-login", "authentication", actions, user=user):
        yield


def scanned(api, phone, link, status):
    return api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": link}, expect=status)[1]


def accepted_on_the_phone(api, phone, started, kind):
    assert (started["privacyIDEA"]["kind"], started["privacyIDEA"]["state"]) == (kind, "WAIT_FOR_INPUT"), started
    done = api.call("answerPrivacyIDEA", path={"id": phone["id"]}, body={"accept": True}, expect=200)[1]["privacyIDEA"]
    assert (done["state"], done.get("outcome")) == ("DONE", "ENROLLED"), done


@pytest.mark.parametrize("kind", ["TOTP", "HOTP", "PUSH", "SMARTPHONE"])
def test_a_login_enrols_the_phone_and_finishes(api, privacyidea, kind):
    user = privacyidea.new_user("login-enrols")
    phone = new_phone(api, f"privacyIDEA enrolled in login {kind}")
    with enrolling_in_the_login(privacyidea, user, kind):
        first = privacyidea.admin.validate_check(user, USER_PASSWORD)
        assert not first.accepted and first.detail.get("enroll_via_multichallenge"), first
        link, transaction = first.detail["link"], first.transaction_id
        if kind in ("TOTP", "HOTP"):
            account = scanned(api, phone, link, 201)["otpAccount"]
            code = api.call("getOTPCode", path={"id": phone["id"], "account": account["id"]}, expect=200)[1]["code"]
            finished = privacyidea.admin.validate_check(user, code, transaction)
        else:
            # the phone's registration answers privacyIDEA's challenge; the login page then asks again
            accepted_on_the_phone(api, phone, scanned(api, phone, link, 202), "ENROLMENT" if kind == "PUSH" else "CONTAINER")
            finished = privacyidea.admin.validate_check(user, "", transaction)
        assert finished.accepted, finished
    if kind == "SMARTPHONE":
        containers = api.call("listContainers", path={"id": phone["id"]}, expect=200)[1]["containers"]
        assert [c["serial"] for c in containers] == [first.detail["serial"]]
        assert privacyidea.admin.container(first.detail["serial"])["info"]["registration_state"] == "registered"
