"""Acknowledged writes survive `kill -9` (security figure 24).

A real `authphone serve` on a throw-away folder acknowledges wrong PINs, an offline OTP login and a
push waiting in a phone's inbox; it is killed with SIGKILL right after the last answer, started again
over the same files, and everything acknowledged is still so: the failure count, the OTP step used
(another session's code of that step is refused), the server flag, the inbox. Each SQLite file then
passes `PRAGMA integrity_check`.

Environment: AUTHPHONE_BINARY, the server to start (scripts/api-test.sh sets it).
"""

import contextlib
import os
import signal
import sqlite3

from client import TIMEOUT, Api, new_phone, new_session
from device import Device, otp_step
from servers import serving

DATABASES = ("phones.sqlite", "backend.sqlite", "push.sqlite")


@contextlib.contextmanager
def serving_data(folder):
    """`authphone serve` on a free port over `folder`, until the block ends (or kills it first)."""
    with serving(folder, ["--pin-kdf", "fast", "--data-dir", str(folder)]) as (process, url, _):
        yield process, Api(url)


def test_acknowledged_writes_survive_kill_9(tmp_path):
    with serving_data(tmp_path) as (process, api):
        api.call("setServerFlags", body={"flags": {"ENABLE_OTP": True}}, expect=200)
        device = Device(api)
        account = device.enrol_user("alice", examples=False, otp=True)
        login = new_session(api, "login", "alice")
        device.redeem(login, None)
        device.confirm(login["id"], None, account)
        for count in (1, 2):
            answer = device.verify(login["id"], account, None, right=False)
            assert answer["result"] == "rejected" and answer["secondFactor"]["failedAttempts"] == count

        step = otp_step()
        offline = new_session(api, "login", "alice")
        _, done = api.call("otpLogin", path={"id": offline["id"]}, body={"otp": device.otp(account, offline, step)}, expect=200)
        assert done["otplogin"]

        phone = new_phone(api)
        api.call("sendPush", "send", path={"project": "authphone"}, merge={"message": {"token": phone["fcmToken"]}}, expect=200)
        inbox = api.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"]
        assert len(inbox) == 1
        process.send_signal(signal.SIGKILL)
        process.wait(TIMEOUT)
    assert os.path.exists(tmp_path / "backend.sqlite-wal"), "the kill left no write-ahead log to recover"

    with serving_data(tmp_path) as (_, api):
        device.api = api
        assert api.call("getServerFlags", expect=200)[1]["flags"]["ENABLE_OTP"] is True
        again = new_session(api, "login", "alice")
        device.redeem(again, None)
        counted = device.confirm(again["id"], None, account)["secondFactor"]
        assert (counted["failedAttempts"], counted["isBlocked"]) == (2, False)

        # the step stays used: its code for another session is refused (it is right, and in time,
        # as the step is at most the previous one by now)
        replay = new_session(api, "login", "alice")
        _, refused = api.call("otpLogin", path={"id": replay["id"]}, body={"otp": device.otp(account, replay, step)}, expect=403)
        assert refused["error"]["code"] == "OTP_REJECTED"
        assert api.call("getSession", path={"id": offline["id"]}, expect=200)[1]["otplogin"]

        assert api.call("getInbox", path={"id": phone["id"]}, expect=200)[1]["messages"] == inbox

        for name in DATABASES:
            with contextlib.closing(sqlite3.connect(tmp_path / name)) as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)], name
