"""What privacyIDEA 3.14 and eduMFA 2.9.5, a privacyIDEA fork, say differently, for the code that
starts, configures and talks to either (privacyidea_server.py, privacyidea.py): one Dialect each.
Everything else, the REST API, the push protocol and the tests' way of setting them up, is the
same (docs/testing.md; /ttype/<push type> and <push type>_ policy actions follow from the type).
"""

import dataclasses
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


@dataclasses.dataclass(frozen=True)
class Dialect:
    name: str  # as the server names itself: in messages, and the push codes' default issuer
    package: str  # its Python package: its Firebase and SMS providers' module paths, its side folder, its logs
    env_prefix: str  # the tests' variables for it ({env_prefix}VENV) and its configuration file's variable
    config_file: str  # the configuration file's name in the server's temporary folder
    config: str  # the configuration file, formatted with folder, logs, url, secret_key, pepper and node_uuid
    ready_path: str  # answers 200 once gunicorn's worker has imported the server
    admin_header: str  # the header an administrator's JWT goes in
    policy_needs_realm: bool  # POST /policy refuses a policy without `realm` ("" for every realm)
    push_type: str  # the push token type: /token/init's type, /ttype/<type>, <type>_ policy actions
    containers: bool  # smartphone containers (privacyIDEA 3.10 and later)
    # Reads its flat-file user store's file once per process (eduMFA keeps resolvers app-wide), so a
    # user added later needs a resolver of its own; privacyIDEA reads the file at each request.
    reads_user_store_once: bool

    @property
    def side(self):
        """The folder of what runs in the server's venv (first_start.py, wsgi.py)."""
        return HERE / f"{self.package}_side"

    @property
    def push_path(self):
        """Where push tokens register, poll and answer."""
        return f"/ttype/{self.push_type}"

    def provider(self, name):
        """The module path of one of its SMS providers (FirebaseProvider sends pushes)."""
        return f"{self.package}.lib.smsprovider.{name}.{name}"


PRIVACYIDEA = Dialect(
    name="privacyIDEA", package="privacyidea", env_prefix="PRIVACYIDEA_", config_file="pi.cfg",
    config="""\
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
""",
    ready_path="/healthz/", admin_header="PI-Authorization", policy_needs_realm=False, push_type="push",
    containers=True, reads_user_store_once=False)

# eduMFA has neither a node UUID nor a base URL setting, and no /healthz/ (its web UI at / answers).
EDUMFA = Dialect(
    name="eduMFA", package="edumfa", env_prefix="EDUMFA_", config_file="edumfa.cfg",
    config="""\
SQLALCHEMY_DATABASE_URI = "sqlite:///{folder}/edumfa.sqlite"
SECRET_KEY = "{secret_key}"
EDUMFA_PEPPER = "{pepper}"
EDUMFA_ENCFILE = "{folder}/enckey"
EDUMFA_AUDIT_KEY_PRIVATE = "{folder}/audit-private.pem"
EDUMFA_AUDIT_KEY_PUBLIC = "{folder}/audit-public.pem"
EDUMFA_LOGFILE = "{logs}/edumfa.log"
EDUMFA_LOGLEVEL = 30
EDUMFA_NODE = "authphone-tests"
""",
    ready_path="/", admin_header="Authorization", policy_needs_realm=True, push_type="edupush",
    containers=False, reads_user_store_once=True)
