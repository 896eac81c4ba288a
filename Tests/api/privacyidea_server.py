"""privacyIDEA 3.14, installed from PyPI, as a real server for the tests: the fixture `privacyidea`,
one per test session (it takes seconds to start; the API and browser tests' conftest.py import it),
served by gunicorn on a free loopback port with SQLite in a temporary
folder, and stopped afterwards whatever happens. It is set up as its administrator would:
pi-manage makes its keys, tables and administrator, and the rest goes through its REST API
(privacyidea.py): a flat-file user store, a realm that is the default one, and an enrollment
policy for push tokens, poll-only unless a test switches it to a Firebase gateway.

Environment (scripts/api-test.sh and browser-test.sh set both), besides client.py's:
  PRIVACYIDEA_VENV  privacyIDEA's own venv (scripts/lib/test-servers.sh makes it)
  PRIVACYIDEA_LOGS  a folder for its logs that outlives the run (default: its temporary folder)
"""

import contextlib
import itertools
import os
import pathlib
import secrets
import signal
import subprocess
import tempfile
import time
import uuid

import pytest
import requests

from client import BASE_URL, TIMEOUT
from privacyidea import POLL_ONLY, PrivacyIDEA
from servers import free_port

HERE = pathlib.Path(__file__).resolve().parent
VENV = pathlib.Path(os.environ["PRIVACYIDEA_VENV"]).resolve() if "PRIVACYIDEA_VENV" in os.environ else None
PRIVACYIDEA_SIDE = HERE / "privacyidea_side"  # what runs in privacyIDEA's venv
ADMIN = "admin"
RESOLVER = "authphone-users"
REALM = "authphone"
PUSH_ENROLLMENT_POLICY = "authphone-push-enrollment"
CONTAINER_POLICY = "authphone-containers"
# Every user's password in the user store, for policies that check it (otppin=userstore); a
# token's PIN is another thing.
USER_PASSWORD = "user-password"
# One process, as privacyIDEA's own Apache setup runs it (mod_wsgi, processes=1 threads=15), so it
# starts once; threads, since privacyIDEA calls AuthPhone (an FCM send) while AuthPhone's phone
# calls privacyIDEA.
THREADS = 4
START_TIMEOUT = 60  # seconds for gunicorn's first answer, once its worker has imported privacyIDEA

CONFIG = """\
SQLALCHEMY_DATABASE_URI = "sqlite:///{folder}/privacyidea.sqlite"
SECRET_KEY = "{secret_key}"
PI_PEPPER = "{pepper}"
PI_ENCFILE = "{folder}/enckey"
PI_AUDIT_KEY_PRIVATE = "{folder}/audit-private.pem"
PI_AUDIT_KEY_PUBLIC = "{folder}/audit-public.pem"
PI_LOGFILE = "{logs}/privacyidea.log"
PI_LOGLEVEL = 30
PI_NODE = "authphone-tests"
PI_NODE_UUID = "{node_uuid}"
PI_BASE_URL = "{url}"
"""


class PrivacyIDEAServer:
    """A running, configured privacyIDEA: its URL, its administrator's client, users to add."""

    def __init__(self, url, folder, admin, authphone_url, password_hash, timeout):
        self.url = url
        self.folder = folder
        self.admin = admin
        self.authphone_url = authphone_url
        self.timeout = timeout
        self.users_file = folder / "users.passwd"
        self._password_hash = password_hash
        self._user_ids = itertools.count(1001)

    def new_user(self, prefix="user"):
        """A user of its own for a test, in the realm privacyIDEA uses by default (its user store
        is a file privacyIDEA reads at each request)."""
        uid = next(self._user_ids)
        name = f"{prefix}{uid}"
        with open(self.users_file, "a") as users:
            users.write(f"{name}:{self._password_hash}:{uid}:{uid}:{name}:/nonexistent:/usr/sbin/nologin\n")
        return name

    def new_container(self, user):
        """A smartphone container owned by `user` (the realm it checks a user store password in): its serial."""
        return self.admin.init_container(user, REALM)

    def set_push_gateway(self, gateway, registration_url=None):
        """The enrollment policy for push tokens: new tokens send their challenges through the
        gateway named, or poll only (POLL_ONLY), and register at this server's /ttype/push (or at
        `registration_url`)."""
        self.admin.set_policy(PUSH_ENROLLMENT_POLICY, "enrollment", {
            "push_registration_url": registration_url or self.url + "/ttype/push",
            "push_ssl_verify": "0",
            "push_firebase_configuration": gateway,
        }, realm=REALM)

    @contextlib.contextmanager
    def firebase_push(self, project):
        """For the block's length, push tokens enrolled send through privacyIDEA's Firebase
        provider with the service account AuthPhone gives for `project`; yields the gateway's name."""
        response = requests.get(f"{self.authphone_url}/api/push/projects/{project}/service-account", timeout=self.timeout)
        response.raise_for_status()
        service_account = self.folder / f"{project}-service-account.json"
        service_account.write_bytes(response.content)
        gateway = f"authphone-{project}"
        self.admin.create_firebase_gateway(gateway, service_account)
        try:
            self.set_push_gateway(gateway)
            yield gateway
        finally:
            self.set_push_gateway(POLL_ONLY)
            self.admin.delete_gateway(gateway)


    @contextlib.contextmanager
    def sms_through_authphone(self):
        """For the block's length, privacyIDEA's SMS tokens send their codes through its
        HttpSMSProvider, pointed at AuthPhone's generic SMS gateway with the account AuthPhone
        issues (the settings docs/sms.md gives); yields the gateway's name."""
        response = requests.get(f"{self.authphone_url}/api/sms/account", timeout=self.timeout)
        response.raise_for_status()
        account = response.json()
        gateway = "authphone-sms"
        self.admin.create_http_sms_gateway(gateway, {
            "URL": account["gatewayURL"], "HTTP_METHOD": "POST", "USERNAME": account["accountSid"],
            "PASSWORD": account["authToken"], "CHECK_SSL": "no", "to": "{phone}", "text": "{otp}", "from": "privacyIDEA",
        })
        self.admin.set_config({"sms.identifier": gateway})
        try:
            yield gateway
        finally:
            self.admin.set_config({"sms.identifier": ""})
            self.admin.delete_gateway(gateway)


def run_in_venv(environment, program, *args, input=None):
    """A program of privacyIDEA's venv, run to its end; its output if it fails."""
    done = subprocess.run([VENV / "bin" / program, *args], input=input, capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        pytest.fail(f"{program} {args[0][:60]} failed ({done.returncode}): {done.stdout}{done.stderr}", pytrace=False)
    return done.stdout


def privacyidea_environment(config_file, authphone_url):
    """The environment privacyIDEA's programs run in. privacyIDEA reads every PRIVACYIDEA_ variable
    as configuration, so the tests' own are left out."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PRIVACYIDEA_")}
    return {**environment, "PRIVACYIDEA_CONFIGFILE": str(config_file), "AUTHPHONE_URL": authphone_url}


def set_up(folder, logs, url, environment):
    """The configuration file, then what pi-manage makes from it (privacyidea_side/first_start.py):
    the encryption key, the audit log's signing keys, the tables and the administrator, whose
    password it returns."""
    (folder / "pi.cfg").write_text(CONFIG.format(
        folder=folder, logs=logs, url=url, secret_key=secrets.token_hex(32), pepper=secrets.token_hex(32),
        node_uuid=uuid.uuid4()))
    password = secrets.token_urlsafe(16)
    run_in_venv(environment, "python", str(PRIVACYIDEA_SIDE / "first_start.py"), input=f"{ADMIN}\n{password}\n")
    return password


def hash_password(environment, password):
    """A crypt hash of `password` the flat-file user store checks (passlib, as privacyIDEA does)."""
    return run_in_venv(environment, "python", "-c", "import sys; from passlib.hash import sha512_crypt; "
                       "print(sha512_crypt.hash(sys.stdin.read()))", input=password).strip()


@contextlib.contextmanager
def gunicorn(url, port, folder, logs, environment):
    """privacyIDEA served on 127.0.0.1:`port` until the block ends; yields once it answers."""
    log = open(logs / "privacyidea-gunicorn.log", "ab")
    process = subprocess.Popen(
        [VENV / "bin" / "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", str(THREADS),
         "--no-control-socket", "--chdir", str(PRIVACYIDEA_SIDE), "wsgi:application"],
        stdout=log, stderr=subprocess.STDOUT, env=environment, cwd=folder)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, f"gunicorn stopped: {(logs / 'privacyidea-gunicorn.log').read_text()}"
            # gunicorn listens before its workers have imported privacyIDEA: a request waits for them
            with contextlib.suppress(requests.ConnectionError, requests.Timeout):
                if requests.get(url + "/healthz/", timeout=max(deadline - time.monotonic(), 0.1)).status_code == 200:
                    break
            assert time.monotonic() < deadline, f"privacyIDEA did not answer /healthz/ within {START_TIMEOUT} s"
            time.sleep(0.1)
        yield
    finally:
        process.send_signal(signal.SIGINT)  # gunicorn's quick shutdown: no waiting out kept-alive connections
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@contextlib.contextmanager
def running_privacyidea(authphone_url, timeout):
    """privacyIDEA started and configured, sending its pushes to `authphone_url`; yields a
    PrivacyIDEAServer and stops the server when the block ends."""
    if VENV is None or not (VENV / "bin" / "gunicorn").exists():
        pytest.fail(f"no privacyIDEA in PRIVACYIDEA_VENV ({VENV}): scripts/api-test.sh installs it and sets it", pytrace=False)
    with tempfile.TemporaryDirectory(prefix="privacyidea-") as temporary:
        folder = pathlib.Path(temporary)
        logs = pathlib.Path(os.environ.get("PRIVACYIDEA_LOGS", folder))
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        environment = privacyidea_environment(folder / "pi.cfg", authphone_url)
        admin_password = set_up(folder, logs, url, environment)
        password_hash = hash_password(environment, USER_PASSWORD)
        with gunicorn(url, port, folder, logs, environment):
            admin = PrivacyIDEA.login(url, ADMIN, admin_password, timeout)
            server = PrivacyIDEAServer(url, folder, admin, authphone_url, password_hash, timeout)
            server.users_file.touch()
            admin.create_passwd_resolver(RESOLVER, server.users_file)
            admin.create_realm(REALM, [RESOLVER])
            admin.set_default_realm(REALM)
            server.set_push_gateway(POLL_ONLY)
            # smartphone containers register and synchronise at this server's URL, over plain HTTP
            admin.set_policy(CONTAINER_POLICY, "container", {
                "privacyIDEA_server_url": url, "container_registration_ttl": 10, "container_challenge_ttl": 2,
                "container_ssl_verify": "False", "container_client_rollover": True,
            })
            yield server


@pytest.fixture(scope="session")
def privacyidea():
    """A configured privacyIDEA (PrivacyIDEAServer) sending its pushes to the server under test."""
    with running_privacyidea(BASE_URL, TIMEOUT) as server:
        yield server
