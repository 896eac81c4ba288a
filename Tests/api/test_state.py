"""State a CI job controls: `POST /api/reset` refused from a foreign page with nothing changed,
`authphone reset --data-dir` on a stopped server's folder, and `authphone export` / `import` /
`serve --seed`: phones enrolled with the command line, exported, reset and imported (or seeded)
log in again as the same phones.

Environment: AUTHPHONE_URL (the running server) and AUTHPHONE_BINARY (scripts/api-test.sh sets both).
"""

import json
import os
import subprocess

import requests

from client import BASE_URL, FOREIGN_ORIGIN, PIN, TIMEOUT, Api, enrol_phone, enrolled_token, new_phone, registered_container, uniq
from privacyidea_phone import answer_named, enrolled_identity, tiqr_login
from privacyidea_server import REALM
from servers import BINARY, serving

PASSPHRASE = "a passphrase for the CI job"


def phones(url):
    return requests.get(f"{url}/api/phones", timeout=TIMEOUT).json()["phones"]


def test_a_foreign_page_cannot_reset_or_delete():
    phone = requests.post(f"{BASE_URL}/api/phones", json={"name": "Kept"}, timeout=TIMEOUT).json()
    for method, path in (("POST", "/api/reset"), ("DELETE", f"/api/phones/{phone['id']}")):
        answer = requests.request(method, BASE_URL + path, timeout=TIMEOUT,
                                  headers={"Content-Type": "application/json", "Origin": FOREIGN_ORIGIN})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "FORBIDDEN_ORIGIN", path
    assert phone["id"] in {p["id"] for p in phones(BASE_URL)}


def test_reset_a_data_folder_from_the_command_line(tmp_path):
    data = tmp_path / "data"
    with serving(tmp_path, ["--pin-kdf", "fast", "--data-dir", str(data)]) as (_, url, _):
        requests.post(f"{url}/api/phones", json={"name": "Before"}, timeout=TIMEOUT).raise_for_status()
        session = requests.post(f"{url}/api/backend/sessions", json={"type": "enrol", "userId": "ci"}, timeout=TIMEOUT)
        server_key = session.json()["qrText"]  # a session of the server, for its count below
        assert server_key
    done = subprocess.run([BINARY, "reset", "--data-dir", str(data)], capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr.decode()
    with serving(tmp_path, ["--pin-kdf", "fast", "--data-dir", str(data)]) as (_, url, _):
        assert phones(url) == []
        assert requests.get(f"{url}/api/backend/sessions", timeout=TIMEOUT).json()["sessions"] == []
    refused = subprocess.run([BINARY, "reset", "--data-dir", str(tmp_path / "nothing")], capture_output=True,
                             timeout=TIMEOUT)
    assert refused.returncode != 0 and b"holds no AuthPhone database" in refused.stderr
    assert not (tmp_path / "nothing").exists()


def run(*args, env=None):
    """The command's exit code, standard output and standard error, with no passphrase in the
    environment unless `env` gives one."""
    environment = {k: v for k, v in os.environ.items() if k != "AUTHPHONE_EXPORT_PASSPHRASE"}
    done = subprocess.run([BINARY, *map(str, args)], capture_output=True, timeout=TIMEOUT, env={**environment, **(env or {})})
    return done.returncode, done.stdout.decode().strip(), done.stderr.decode().strip()


def ok(*args, env=None):
    code, out, err = run(*args, env=env)
    assert code == 0, f"{args}: {err}"
    return out


def log_in(url, phone, user):
    """A login the phone's side of which is the command line alone."""
    login = requests.post(f"{url}/api/backend/sessions", json={"type": "login", "userId": user}, timeout=TIMEOUT).json()
    assert ok("phone", "open", phone, "--qr", login["qrText"], "--server", url) == "WAIT_FOR_INPUT CONFIRM"
    assert ok("phone", "confirm", phone, "--server", url) == "WAIT_FOR_INPUT VERIFY_SECOND_FACTOR"
    assert ok("phone", "pin", phone, PIN, "--server", url) == "DONE"
    assert requests.get(f"{url}/api/backend/sessions/{login['id']}", timeout=TIMEOUT).json()["status"] == "loggedin"


def phones_with_accounts(url):
    return sorted(
        (p["id"], p["name"], tuple(a["id"] for a in requests.get(f"{url}/api/phones/{p['id']}", timeout=TIMEOUT).json()["accounts"]))
        for p in phones(url))


def test_export_reset_import_gives_the_same_phones_that_log_in(tmp_path):
    data, state = tmp_path / "data", tmp_path / "state.json"
    passphrase = tmp_path / "passphrase"
    passphrase.write_text(PASSPHRASE + "\n")
    serve = ["--pin-kdf", "fast", "--data-dir", str(data)]
    with serving(tmp_path, serve) as (_, url, _):
        for name, user in ((uniq("Exported"), uniq("ci")), (uniq("Also exported"), uniq("ci"))):
            ok("phone", "create", name, "--server", url)
            enrol = requests.post(f"{url}/api/backend/sessions", json={"type": "enrol", "userId": user}, timeout=TIMEOUT).json()
            assert ok("phone", "open", name, "--qr", enrol["qrText"], "--server", url) == "WAIT_FOR_INPUT CONFIRM"
            ok("phone", "confirm", name, "--server", url)
            assert ok("phone", "pin", name, PIN, "--server", url) == "DONE"
        before = phones_with_accounts(url)
        first_phone, first_user = name, user

    # the passphrase never on the command line: without a source, a refusal that says where it goes
    code, _, err = run("export", "--data-dir", data, "--out", state)
    assert code == 1 and err.startswith("EXPORT_PASSPHRASE_MISSING") and not state.exists()
    ok("export", "--data-dir", data, "--out", state, "--passphrase-file", passphrase)
    exported = json.loads(state.read_text())
    assert (exported["format"], exported["version"]) == ("authphone-export", 1)
    assert sorted(p["id"] for p in exported["state"]["phones"]) == sorted(p[0] for p in before)
    assert PIN not in state.read_text() and oct(state.stat().st_mode & 0o777) == "0o600"

    # a wrong passphrase, or a file changed after it was sealed, changes nothing, even with --replace
    code, _, err = run("import", "--data-dir", data, "--in", state, "--replace", env={"AUTHPHONE_EXPORT_PASSPHRASE": PASSPHRASE + "!"})
    assert code == 1 and err.startswith("EXPORT_CANNOT_OPEN"), err
    changed = tmp_path / "changed.json"
    changed.write_text(state.read_text().replace(exported["state"]["phones"][0]["name"], "Someone else's"))
    code, _, err = run("import", "--data-dir", data, "--in", changed, "--replace", "--passphrase-file", passphrase)
    assert code == 1 and err.startswith("EXPORT_TAMPERED"), err
    again = tmp_path / "again.json"
    ok("export", "--data-dir", data, "--out", again, "--passphrase-file", passphrase)
    assert json.loads(again.read_text())["state"] == exported["state"]

    ok("reset", "--data-dir", data)
    ok("import", "--data-dir", data, "--in", state, env={"AUTHPHONE_EXPORT_PASSPHRASE": PASSPHRASE})
    # once there are phones, another import must be asked to replace them
    code, _, err = run("import", "--data-dir", data, "--in", state, "--passphrase-file", passphrase)
    assert code == 1 and err.startswith("EXPORT_TARGET_NOT_EMPTY"), err
    with serving(tmp_path, serve) as (_, url, _):
        assert phones_with_accounts(url) == before
        log_in(url, first_phone, first_user)

    # a CI job's fresh server, seeded from the file: named by the variable, its passphrase file by the config file
    config = tmp_path / "authphone.yaml"
    config.write_text(f"seedPassphraseFile: {passphrase}\n")
    seeded = ["--pin-kdf", "fast", "--in-memory", "--config", str(config)]
    with serving(tmp_path, seeded, env={"AUTHPHONE_SEED": str(state)}) as (_, url, _):
        assert phones_with_accounts(url) == before
        log_in(url, first_phone, first_user)


def exported_and_seeding(tmp_path):
    """`authphone export` of the stopped server's folder `tmp_path/data` with the tests' passphrase:
    its first phone as the file shows it, the file's text, and the arguments that seed a fresh
    in-memory server from the file."""
    state, passphrase = tmp_path / "state.json", tmp_path / "passphrase"
    passphrase.write_text(PASSPHRASE + "\n")
    ok("export", "--data-dir", tmp_path / "data", "--out", state, "--passphrase-file", passphrase)
    text = state.read_text()
    seeded = ["--pin-kdf", "fast", "--in-memory", "--seed", str(state), "--seed-passphrase-file", str(passphrase)]
    return json.loads(text)["state"]["phones"][0], text, seeded


def test_a_phones_privacyidea_token_travels_in_the_export_and_answers_where_it_is_seeded(tmp_path, privacyidea):
    """A phone's privacyIDEA push token (its key sealed), the server its user accepted and its PIN's
    key are in the export: the seeded server answers privacyIDEA's next login as the phone did,
    unlocked with the PIN, and enrols another token from that server without asking again."""
    user = privacyidea.new_user("exported")
    with serving(tmp_path, ["--pin-kdf", "fast", "--data-dir", str(tmp_path / "data")]) as (_, url, _):
        api = Api(url)
        phone = new_phone(api, "privacyIDEA exported")
        path = {"id": phone["id"]}
        enrol_phone(api, phone, uniq("pin"))  # a PIN the phone unlocks its tokens with
        api.call("updatePhoneSettings", path=path, body={"unlockPushTokens": True}, expect=200)
        serial = enrolled_token(api, privacyidea, phone, user)
    exported, text, seeded = exported_and_seeding(tmp_path)
    assert [t["serial"] for t in exported["privacyIDEATokens"]] == [serial]
    assert [s["origin"] for s in exported["privacyIDEAServers"]] == [privacyidea.url]
    assert "tokenKey" not in json.dumps(exported) and "BEGIN PRIVATE" not in text

    with serving(tmp_path, seeded) as (_, url, _):
        api = Api(url)
        assert [t["serial"] for t in api.call("listPushTokens", path=path, expect=200)[1]["tokens"]] == [serial]
        started = privacyidea.admin.validate_check(user, "")
        shown = api.call("pollPushToken", "lockedChallenge", path={**path, "serial": serial}, expect=200)[1]["privacyIDEA"]
        assert (shown["kind"], shown["state"]) == ("CHALLENGE", "WAIT_FOR_INPUT") and "PIN" in shown["unlockWith"], shown
        unlocked = api.call("answerPrivacyIDEA", path=path, body={"accept": True, "pin": PIN}, expect=200)[1]["privacyIDEA"]
        assert unlocked["outcome"] == "ACCEPTED", unlocked
        assert privacyidea.admin.validate_check(user, "", started.transaction_id).accepted
        enrolled_token(api, privacyidea, phone, privacyidea.new_user("exported"), server_accepted=True)


def test_a_phones_privacyidea_container_travels_in_the_export_and_syncs_where_it_is_seeded(tmp_path, privacyidea):
    """A phone's privacyIDEA container (its key sealed) and the OTP account it holds are in the
    export: the seeded server synchronises it with privacyIDEA as the phone did, keeping the token."""
    user = privacyidea.new_user("exported")
    with serving(tmp_path, ["--pin-kdf", "fast", "--data-dir", str(tmp_path / "data")]) as (_, url, _):
        api = Api(url)
        phone = new_phone(api, "privacyIDEA container exported")
        path = {"id": phone["id"]}
        serial = registered_container(api, privacyidea, phone, user)
        hotp, _ = privacyidea.admin.init_hotp(user)
        privacyidea.admin.add_to_container(serial, hotp)
        assert api.call("syncContainer", path={**path, "serial": serial}, body={}, expect=200)[1]["added"] == [hotp]
    exported, _, seeded = exported_and_seeding(tmp_path)
    assert [(c["serial"], [t["serial"] for t in c["tokens"]]) for c in exported["privacyIDEAContainers"]] == [(serial, [hotp])]
    assert "signingKey" not in json.dumps(exported)

    with serving(tmp_path, seeded) as (_, url, _):
        synced = Api(url).call("syncContainer", path={**path, "serial": serial}, body={}, expect=200)[1]
        assert (synced["added"], synced["kept"], synced["removed"]) == ([], [hotp], []), synced


def test_a_phones_tiqr_identity_travels_in_the_export_and_answers_where_it_is_seeded(tmp_path, privacyidea):
    """A phone's tiqr identity (its OCRA secret sealed) is in the export: the seeded server answers
    privacyIDEA's next tiqr login as the phone did."""
    privacyidea.enable_tiqr()
    user = privacyidea.new_user("tiqrexported")
    with serving(tmp_path, ["--pin-kdf", "fast", "--data-dir", str(tmp_path / "data")]) as (_, url, _):
        api = Api(url)
        phone = new_phone(api, "tiqr exported")
        path = {"id": phone["id"]}
        serial = enrolled_identity(api, privacyidea, phone, user)
    exported, _, seeded = exported_and_seeding(tmp_path)
    assert [(i["serial"], i["identity"]) for i in exported["tiqrIdentities"]] == [(serial, f"{user}_{REALM}")]
    assert "secret" not in json.dumps(exported)

    with serving(tmp_path, seeded) as (_, url, _):
        api = Api(url)
        login, code = tiqr_login(privacyidea, user)
        api.call("startOutOfBand", path=path, body={"qr": code}, expect=202)
        accepted = answer_named(api, phone, accept=True)
        assert accepted["outcome"] == "ACCEPTED", accepted
        assert privacyidea.admin.validate_check(user, "", login.transaction_id).accepted


def test_a_seed_that_does_not_open_stops_the_start(tmp_path):
    state = tmp_path / "state.json"
    state.write_text('{"format": "authphone-export", "version": 99}')
    done = subprocess.run([BINARY, "serve", "--in-memory", "--port", "0", "--seed", str(state)], capture_output=True,
                          timeout=TIMEOUT, env={**os.environ, "AUTHPHONE_EXPORT_PASSPHRASE": PASSPHRASE})
    assert done.returncode != 0 and b"EXPORT_VERSION_UNSUPPORTED" in done.stderr
