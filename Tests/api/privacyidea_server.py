"""privacyIDEA 3.14 and eduMFA 2.9.5 (a privacyIDEA fork), each installed from PyPI, as real
servers for the tests: the fixtures `privacyidea` and `edumfa`, one each per test session (each
takes seconds to start; the API and browser tests' conftest.py import them), served by gunicorn on
a free loopback port with SQLite in a temporary folder, and stopped afterwards whatever happens.
Each is set up as its administrator would: its manage command makes its keys, tables and
administrator, and the rest goes through its REST API (privacyidea.py): a flat-file user store, a
realm that is the default one, and an enrollment policy for push tokens, poll-only unless a test
switches it to a Firebase gateway. One code serves both; where they differ, it reads the server's
Dialect (dialects.py).

Environment (scripts/api-test.sh and browser-test.sh set them), besides client.py's:
  PRIVACYIDEA_VENV  privacyIDEA's own venv (scripts/lib/test-servers.sh makes it)
  EDUMFA_VENV       eduMFA's own venv (the same; scripts/api-test.sh only)
  PRIVACYIDEA_LOGS  a folder for both servers' logs that outlives the run (default: each one's
                    temporary folder)
"""

import contextlib
import functools
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
from dialects import EDUMFA, PRIVACYIDEA
from privacyidea import POLL_ONLY, PrivacyIDEA
from servers import free_port

ADMIN = "admin"
RESOLVER = "authphone-users"
REALM = "authphone"
PUSH_ENROLLMENT_POLICY = "authphone-push-enrollment"
CONTAINER_POLICY = "authphone-containers"
TIQR_SERVICE, TIQR_SERVICE_NAME = "org.example.authphone", "AuthPhone Test IdP"  # privacyIDEA's tiqr service
# Every user's password in the user store, for policies that check it (otppin=userstore); a
# token's PIN is another thing.
USER_PASSWORD = "user-password"
# One process, as privacyIDEA's own Apache setup runs it (mod_wsgi, processes=1 threads=15), so it
# starts once; threads, since privacyIDEA calls AuthPhone (an FCM send) while AuthPhone's phone
# calls privacyIDEA.
THREADS = 4
START_TIMEOUT = 60  # seconds for gunicorn's first answer, once its worker has imported the server


class PrivacyIDEAServer:
    """A running, configured privacyIDEA (or eduMFA, in its dialect): its URL, its administrator's
    client, users to add."""

    def __init__(self, url, folder, admin, authphone_url, password_hash, timeout):
        self.url = url
        self.folder = folder
        self.admin = admin
        self.dialect = admin.dialect
        self.authphone_url = authphone_url
        self.timeout = timeout
        self.users_file = folder / "users.passwd"
        self._password_hash = password_hash
        self._user_ids = itertools.count(1001)
        self._resolvers = [RESOLVER]
        self._tiqr = False

    def new_user(self, prefix="user"):
        """A user of its own for a test, in the realm the server uses by default. privacyIDEA's user
        store is a file it reads at each request; eduMFA reads a file once, so there the user gets
        a file and a resolver of its own, added to the realm."""
        uid = next(self._user_ids)
        name = f"{prefix}{uid}"
        line = f"{name}:{self._password_hash}:{uid}:{uid}:{name}:/nonexistent:/usr/sbin/nologin\n"
        if not self.dialect.reads_user_store_once:
            with open(self.users_file, "a") as users:
                users.write(line)
            return name
        users_file = self.folder / f"users-{name}.passwd"
        users_file.write_text(line)
        self._resolvers.append(f"{RESOLVER}-{name}")
        self.admin.create_passwd_resolver(self._resolvers[-1], users_file)
        self.admin.create_realm(REALM, self._resolvers)
        return name

    def new_container(self, user):
        """A smartphone container owned by `user` (the realm it checks a user store password in): its serial."""
        return self.admin.init_container(user, REALM)

    def enable_tiqr(self):
        """tiqr tokens enrol and answer at this server's /ttype/tiqr as TIQR_SERVICE; once for the
        session. privacyIDEA 3.14 sets a right tiqr answer in memory only and never commits it
        (docs/privacyidea.md#tiqr): an event handler that runs after /ttype/ and commits (a
        counter) makes the answer stand, as an administrator would set it up."""
        if self._tiqr:
            return
        self.admin.set_config({
            "tiqr.regServer": self.url + "/ttype/tiqr", "tiqr.serviceIdentifier": TIQR_SERVICE,
            "tiqr.serviceDisplayname": TIQR_SERVICE_NAME,
        })
        self.admin.call("POST", "/event", json={
            "name": "authphone-tiqr-commit", "event": "ttype", "handlermodule": "Counter", "action": "increase_counter",
            "position": "post", "option.counter_name": "tiqr_answers", "conditions": {},
        })
        self._tiqr = True

    def set_push_gateway(self, gateway, registration_url=None):
        """The enrollment policy for push tokens: new tokens send their challenges through the
        gateway named, or poll only (POLL_ONLY), and register at this server's /ttype/push
        (eduMFA's edupush tokens: /ttype/edupush), or at `registration_url`."""
        push = self.dialect.push_type
        self.admin.set_policy(PUSH_ENROLLMENT_POLICY, "enrollment", {
            f"{push}_registration_url": registration_url or self.url + self.dialect.push_path,
            f"{push}_ssl_verify": "0",
            f"{push}_firebase_configuration": gateway,
        }, realm=REALM)

    @contextlib.contextmanager
    def firebase_push(self, project):
        """For the block's length, push tokens enrolled send through the server's own Firebase
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


class Venv:
    """A server's own venv, and the environment its programs run in: the server reads its
    configuration file's name from it (privacyIDEA also reads every PRIVACYIDEA_ variable as
    configuration, so the tests' own variables of the server's prefix are left out)."""

    def __init__(self, dialect, config_file, authphone_url):
        variable = dialect.env_prefix + "VENV"
        self.path = pathlib.Path(os.environ[variable]).resolve() if variable in os.environ else None
        if self.path is None or not (self.path / "bin" / "gunicorn").exists():
            pytest.fail(f"no {dialect.name} in {variable} ({self.path}): scripts/api-test.sh installs it and sets it",
                        pytrace=False)
        environment = {key: value for key, value in os.environ.items() if not key.startswith(dialect.env_prefix)}
        self.environment = {**environment, dialect.env_prefix + "CONFIGFILE": str(config_file), "AUTHPHONE_URL": authphone_url}

    def program(self, name):
        return self.path / "bin" / name

    def run(self, program, *args, input=None):
        """A program of the venv, run to its end; its output if it fails."""
        done = subprocess.run([self.program(program), *args], input=input, capture_output=True, text=True,
                              env=self.environment)
        if done.returncode != 0:
            pytest.fail(f"{program} {args[0][:60]} failed ({done.returncode}): {done.stdout}{done.stderr}", pytrace=False)
        return done.stdout


def set_up(dialect, venv, folder, logs, url):
    """The configuration file, then what the server's manage command makes from it (first_start.py
    in its side folder): the encryption key, the audit log's signing keys, the tables and the
    administrator, whose password it returns."""
    (folder / dialect.config_file).write_text(dialect.config.format(
        folder=folder, logs=logs, url=url, secret_key=secrets.token_hex(32), pepper=secrets.token_hex(32),
        node_uuid=uuid.uuid4()))
    password = secrets.token_urlsafe(16)
    venv.run("python", str(dialect.side / "first_start.py"), input=f"{ADMIN}\n{password}\n")
    return password


def hash_password(venv, password):
    """A crypt hash of `password` the flat-file user store checks (passlib, as the server does)."""
    return venv.run("python", "-c", "import sys; from passlib.hash import sha512_crypt; "
                    "print(sha512_crypt.hash(sys.stdin.read()))", input=password).strip()


@contextlib.contextmanager
def gunicorn(dialect, venv, url, port, folder, logs):
    """The server served on 127.0.0.1:`port` until the block ends; yields once it answers."""
    log_path = logs / f"{dialect.package}-gunicorn.log"
    log = open(log_path, "ab")
    process = subprocess.Popen(
        [venv.program("gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", str(THREADS),
         "--no-control-socket", "--chdir", str(dialect.side), "wsgi:application"],
        stdout=log, stderr=subprocess.STDOUT, env=venv.environment, cwd=folder)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, f"gunicorn stopped: {log_path.read_text()}"
            # gunicorn listens before its workers have imported the server: a request waits for them
            with contextlib.suppress(requests.ConnectionError, requests.Timeout):
                if requests.get(url + dialect.ready_path, timeout=max(deadline - time.monotonic(), 0.1)).status_code == 200:
                    break
            assert time.monotonic() < deadline, f"{dialect.name} did not answer {dialect.ready_path} within {START_TIMEOUT} s"
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
def running_server(dialect, authphone_url, timeout):
    """privacyIDEA or eduMFA (`dialect`) started and configured, sending its pushes to
    `authphone_url`; yields a PrivacyIDEAServer and stops the server when the block ends."""
    with tempfile.TemporaryDirectory(prefix=f"{dialect.package}-") as temporary:
        folder = pathlib.Path(temporary)
        venv = Venv(dialect, folder / dialect.config_file, authphone_url)
        logs = pathlib.Path(os.environ.get("PRIVACYIDEA_LOGS", folder))
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        admin_password = set_up(dialect, venv, folder, logs, url)
        password_hash = hash_password(venv, USER_PASSWORD)
        with gunicorn(dialect, venv, url, port, folder, logs):
            admin = PrivacyIDEA.login(url, ADMIN, admin_password, timeout, dialect)
            server = PrivacyIDEAServer(url, folder, admin, authphone_url, password_hash, timeout)
            server.users_file.touch()
            admin.create_passwd_resolver(RESOLVER, server.users_file)
            admin.create_realm(REALM, [RESOLVER])
            admin.set_default_realm(REALM)
            server.set_push_gateway(POLL_ONLY)
            if dialect.containers:
                # smartphone containers register and synchronise at this server's URL, over plain HTTP
                admin.set_policy(CONTAINER_POLICY, "container", {
                    "privacyIDEA_server_url": url, "container_registration_ttl": 10, "container_challenge_ttl": 2,
                    "container_ssl_verify": "False", "container_client_rollover": True,
                })
            yield server


running_privacyidea = functools.partial(running_server, PRIVACYIDEA)


@pytest.fixture(scope="session")
def privacyidea():
    """A configured privacyIDEA (PrivacyIDEAServer) sending its pushes to the server under test."""
    with running_server(PRIVACYIDEA, BASE_URL, TIMEOUT) as server:
        yield server


@pytest.fixture(scope="session")
def edumfa():
    """A configured eduMFA (PrivacyIDEAServer in eduMFA's dialect) sending its pushes to the server under test."""
    with running_server(EDUMFA, BASE_URL, TIMEOUT) as server:
        yield server
