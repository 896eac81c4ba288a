"""privacyIDEA's smartphone containers on the phone: registered in a real privacyIDEA 3.14
(privacyidea_server.py) from the `pia://container/…` code, synchronised (tokens privacyIDEA
adds arrive and validate, tokens it removes leave), and what is refused.

Environment: as client.py and privacyidea_server.py say.
"""

import concurrent.futures
import re

import pytest

from client import new_phone, registered_container
from privacyidea import POLL_ONLY
from privacyidea_server import USER_PASSWORD


def holdings(api, phone, serial):
    containers = api.call("listContainers", path={"id": phone["id"]}, expect=200)[1]["containers"]
    return {token["serial"]: token for container in containers if container["serial"] == serial for token in container["tokens"]}


def sync(api, phone, serial):
    return api.call("syncContainer", path={"id": phone["id"], "serial": serial}, body={}, expect=200)[1]


def code_of(api, phone, account):
    return api.call("getOTPCode", path={"id": phone["id"], "account": account}, expect=200)[1]["code"]


def holding_one(api, privacyidea, name, enrol):
    """A new phone whose registered container holds one token that `enrol` (an admin's init_…)
    made for the container's user, synchronised onto the phone: (user, phone, container, token)."""
    user = privacyidea.new_user("container")
    phone = new_phone(api, f"privacyIDEA {name}")
    serial = registered_container(api, privacyidea, phone, user)
    token, _ = enrol(user)
    privacyidea.admin.add_to_container(serial, token)
    assert sync(api, phone, serial)["added"] == [token]
    return user, phone, serial, token


def test_a_registered_container_gets_the_servers_tokens_and_loses_the_removed(api, privacyidea):
    user = privacyidea.new_user("container")
    phone = new_phone(api, "privacyIDEA container phone")
    serial = registered_container(api, privacyidea, phone, user)
    container = privacyidea.admin.container(serial)
    assert container["info"]["registration_state"] == "registered", container["info"]
    assert container["info"]["device"] == "AuthPhone privacyIDEA container phone", container["info"]
    assert holdings(api, phone, serial) == {}

    hotp, _ = privacyidea.admin.init_hotp(user)
    totp, _ = privacyidea.admin.init_totp(user)
    for token in (hotp, totp):
        privacyidea.admin.add_to_container(serial, token)
    first = sync(api, phone, serial)
    assert sorted(first["added"]) == sorted([hotp, totp]) and first["failed"] == [], first
    held = holdings(api, phone, serial)
    assert {token: held[token]["type"] for token in held} == {hotp: "hotp", totp: "totp"}, held

    # the codes the phone shows are the secrets privacyIDEA handed the container
    check = privacyidea.admin.validate_check(user, code_of(api, phone, held[totp]["otpAccountId"]))
    assert check.accepted, check
    check = privacyidea.admin.validate_check(user, code_of(api, phone, held[hotp]["otpAccountId"]))
    assert check.accepted, check

    # a sync lists what the phone holds: privacyIDEA keeps those, and a token it removed leaves
    privacyidea.admin.remove_from_container(serial, totp)
    second = sync(api, phone, serial)
    assert (second["added"], second["kept"], second["removed"]) == ([], [hotp], [totp]), second
    assert list(holdings(api, phone, serial)) == [hotp]
    accounts = api.call("listOTPAccounts", path={"id": phone["id"]}, expect=200)[1]["accounts"]
    assert [account["id"] for account in accounts] == [held[hotp]["otpAccountId"]], "the removed token's account left"
    assert second["container"]["syncedAt"] >= first["container"]["syncedAt"]


def test_syncs_asked_at_once_are_one_and_the_token_keeps_its_secret(api, privacyidea):
    """"Sync now" pressed while the page's own sync runs: the second is answered with the first's
    outcome, not run beside it (it would list a token the first had not yet kept, and
    privacyIDEA would give that token a new secret again)."""
    user = privacyidea.new_user("container")
    phone = new_phone(api, "privacyIDEA syncs at once")
    serial = registered_container(api, privacyidea, phone, user)
    hotp, _ = privacyidea.admin.init_hotp(user)
    privacyidea.admin.add_to_container(serial, hotp)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda _: sync(api, phone, serial), range(2)))
    assert [answer["added"] for answer in answers] == [[hotp], [hotp]], answers
    hops = api.call("getPhoneTimeline", path={"id": phone["id"]}, expect=200)[1]["hops"]
    synchronized = [hop for hop in hops if hop["url"].endswith("/container/synchronize")]
    assert len(synchronized) == 2, "one sync at registration, one for the two asked at once"
    held = holdings(api, phone, serial)
    assert privacyidea.admin.validate_check(user, code_of(api, phone, held[hotp]["otpAccountId"])).accepted


def test_a_push_token_added_to_the_container_is_registered(api, privacyidea):
    _, phone, serial, push = holding_one(api, privacyidea, "container push phone", privacyidea.admin.init_push_token)
    assert privacyidea.admin.token(push).rollout_state == "enrolled"
    assert [token["serial"] for token in api.call("listPushTokens", path={"id": phone["id"]}, expect=200)[1]["tokens"]] == [push]
    assert sync(api, phone, serial)["kept"] == [push], "a token the phone holds is not enrolled again"


def test_a_push_token_of_another_server_is_not_taken_from_a_container(api, privacyidea):
    """The phone trusted the container's server: a push token the container hands it that
    registers elsewhere (here the same privacyIDEA by another name) is refused, and nothing kept."""
    _, phone, serial, _ = holding_one(api, privacyidea, "container foreign push phone", privacyidea.admin.init_totp)
    user = privacyidea.admin.container(serial)["users"][0]["user_name"]
    foreign = privacyidea.url.replace("127.0.0.1", "localhost") + "/ttype/push"
    privacyidea.set_push_gateway(POLL_ONLY, registration_url=foreign)
    try:
        push, _ = privacyidea.admin.init_push_token(user)
        privacyidea.admin.add_to_container(serial, push)
        synced = sync(api, phone, serial)
    finally:
        privacyidea.set_push_gateway(POLL_ONLY)
    assert synced["added"] == [] and [(f["serial"], f["error"]["code"]) for f in synced["failed"]] == [(push, "CONTAINER_TOKEN_FOREIGN")]
    assert api.call("listPushTokens", path={"id": phone["id"]}, expect=200)[1]["tokens"] == []


def test_a_passphrase_privacyidea_keeps_is_asked_for_and_signed(api, privacyidea):
    user = privacyidea.new_user("container-pass")
    phone = new_phone(api, "privacyIDEA passphrase phone")
    asked = {"passphrase_prompt": "The word from your letter", "passphrase_response": "marmalade"}
    serial = privacyidea.new_container(user)
    path = {"id": phone["id"]}
    started = api.call("startOutOfBand", path=path, body={"qr": privacyidea.admin.container_code(serial, **asked)}, expect=202)[1]
    assert started["privacyIDEA"]["passphrasePrompt"] == "The word from your letter", started
    missing = api.call("answerPrivacyIDEA", path=path, body={"accept": True}, expect=400)[1]
    assert missing["error"]["code"] == "PASSPHRASE_REQUIRED", missing
    wrong = api.call("answerPrivacyIDEA", path=path, body={"accept": True, "passphrase": "jam"}, expect=200)[1]["privacyIDEA"]
    assert (wrong["state"], wrong["error"]["code"]) == ("ERROR", "PRIVACYIDEA_REFUSED"), wrong
    assert privacyidea.admin.container(serial)["info"]["registration_state"] == "client_wait"
    assert api.call("listContainers", path=path, expect=200)[1]["containers"] == []

    again = registered_container(api, privacyidea, new_phone(api, "privacyIDEA passphrase phone 2"), user, passphrase="marmalade", **asked)
    assert privacyidea.admin.container(again)["info"]["registration_state"] == "registered"


def test_the_user_stores_password_is_sent_where_the_code_says_so(api, privacyidea):
    user = privacyidea.new_user("container-user-pass")
    phone = new_phone(api, "privacyIDEA user store phone")
    serial = registered_container(api, privacyidea, phone, user, passphrase=USER_PASSWORD, passphrase_user=True)
    assert privacyidea.admin.container(serial)["info"]["registration_state"] == "registered"


@pytest.mark.parametrize("change, code", [
    (("key_algorithm=secp384r1", "key_algorithm=secp256r1"), "INVALID_CONTAINER_CODE"),
    ((r"time=\d{4}", "time=2001"), "CONTAINER_CODE_EXPIRED"),
    (("nonce=", "nonce_=",), "INVALID_CONTAINER_CODE"),
])
def test_a_wrong_container_code_is_refused_and_changes_nothing(api, privacyidea, change, code):
    phone = new_phone(api, "privacyIDEA wrong container code")
    text = re.sub(change[0], change[1], privacyidea.admin.container_code(privacyidea.new_container(privacyidea.new_user("wrong"))))
    refused = api.call("startOutOfBand", path={"id": phone["id"]}, body={"qr": text}, expect=400)[1]
    assert refused["error"]["code"] == code, refused
    assert api.call("getPrivacyIDEARequest", path={"id": phone["id"]}, expect=200)[1]["privacyIDEA"] is None


def test_a_sync_of_a_container_the_phone_does_not_hold_is_refused(api):
    phone = new_phone(api, "privacyIDEA no container")
    refused = api.call("syncContainer", "unknownContainer", path={"id": phone["id"], "serial": "SMPH00000000"}, body={}, expect=404)[1]
    assert refused["error"]["code"] == "UNKNOWN_CONTAINER", refused


def test_a_rollover_moves_the_container_and_the_old_phones_copy_stops(api, privacyidea):
    user, old, serial, hotp = holding_one(api, privacyidea, "old phone", privacyidea.admin.init_hotp)

    code = api.call("rolloverContainer", path={"id": old["id"], "serial": serial}, body={}, expect=200)[1]["code"]
    assert code.startswith(f"pia://container/{serial}?"), code
    assert privacyidea.admin.container(serial)["info"]["registration_state"] == "rollover"
    new = new_phone(api, "privacyIDEA new phone")
    path = {"id": new["id"]}
    assert api.call("startOutOfBand", path=path, body={"qr": code}, expect=202)[1]["privacyIDEA"]["state"] == "WAIT_FOR_INPUT"
    done = api.call("answerPrivacyIDEA", path=path, body={"accept": True}, expect=200)[1]["privacyIDEA"]
    assert (done["state"], done.get("outcome")) == ("DONE", "ENROLLED"), done
    assert privacyidea.admin.container(serial)["info"]["registration_state"] == "registered"

    # the new phone's first sync brought the token with a new secret, which privacyIDEA accepts
    moved = holdings(api, new, serial)
    assert list(moved) == [hotp], moved
    check = privacyidea.admin.validate_check(user, code_of(api, new, moved[hotp]["otpAccountId"]))
    assert check.accepted, check
    refused = api.call("syncContainer", "movedAway", path={"id": old["id"], "serial": serial}, body={}, expect=502)[1]
    assert refused["error"]["code"] == "PRIVACYIDEA_REFUSED" and "signature" in refused["error"]["message"], refused


def test_a_rollover_of_a_container_the_phone_does_not_hold_is_refused(api, privacyidea):
    holder = new_phone(api, "privacyIDEA holder")
    serial = registered_container(api, privacyidea, holder, privacyidea.new_user("not-mine"))
    stranger = new_phone(api, "privacyIDEA stranger")
    refused = api.call("rolloverContainer", path={"id": stranger["id"], "serial": serial}, body={}, expect=404)[1]
    assert refused["error"]["code"] == "UNKNOWN_CONTAINER", refused
    assert privacyidea.admin.container(serial)["info"]["registration_state"] == "registered"


def test_unregistering_forgets_the_container_and_keeps_its_tokens(api, privacyidea):
    _, phone, serial, totp = holding_one(api, privacyidea, "leaving phone", privacyidea.admin.init_totp)
    account = holdings(api, phone, serial)[totp]["otpAccountId"]

    api.call("unregisterContainer", path={"id": phone["id"], "serial": serial}, expect=204)
    assert "registration_state" not in privacyidea.admin.container(serial)["info"]
    assert api.call("listContainers", "noContainers", path={"id": phone["id"]}, expect=200)[1]["containers"] == []
    accounts = api.call("listOTPAccounts", path={"id": phone["id"]}, expect=200)[1]["accounts"]
    assert [a["id"] for a in accounts] == [account], "the container's token stays on the phone"
    gone = api.call("syncContainer", path={"id": phone["id"], "serial": serial}, body={}, expect=404)[1]
    assert gone["error"]["code"] == "UNKNOWN_CONTAINER", gone
