"""`authphone serve --tls`: HTTPS with AuthPhone's own certificate authority, made in the data
folder on the first start, as a phone that installed only that CA sees it; plain HTTP on the same
port redirected; a certificate for other names made anew at the next start, the CA kept.

Environment: AUTHPHONE_BINARY, as servers.py says.
"""

import contextlib
import http.client
import json
import os
import pathlib
import socket
import ssl
import stat
import tempfile

import pytest

from client import TIMEOUT, Api, new_phone, new_session, uniq
from device import Device
from document import check_schema, schema
from servers import BINARY, free_port, serving


@contextlib.contextmanager
def tls_server(folder, port, *args):
    """A server with `--tls` on `port`, its data in `folder`/data; ready once plain HTTP is redirected."""
    if not os.access(BINARY, os.X_OK):
        pytest.skip(f"no server to start at {BINARY} (AUTHPHONE_BINARY)")
    with serving(folder, ["--tls", "--data-dir", str(folder / "data"), "--pin-kdf", "fast", *args],
                 port=port, ready_status=307) as (_, _, log):
        yield log


def trusting_the_ca(folder):
    """A client context that trusts AuthPhone's CA and nothing else."""
    return ssl.create_default_context(cafile=str(folder / "data" / "tls" / "ca.crt"))


class HTTPSOnLoopback(http.client.HTTPSConnection):
    """HTTPS to this machine, checked and addressed as `name` (SNI, certificate, Host), as a
    phone on the network reaches the server by its name."""

    def connect(self):
        sock = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def get(port, path, context, name="127.0.0.1", method="GET", body=None):
    connection = HTTPSOnLoopback(name, port, context=context, timeout=TIMEOUT)
    connection.request(method, path, body=body and json.dumps(body), headers={"Content-Type": "application/json"} if body else {})
    response = connection.getresponse()
    body = response.read()
    certificate = connection.sock.getpeercert()
    connection.close()
    return response, body, certificate


def names(certificate):
    return {value for kind, value in certificate["subjectAltName"]}


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as path:
        yield pathlib.Path(path)


def test_https_is_trusted_with_only_the_ca_and_names_the_server(folder):
    port = free_port()
    with tls_server(folder, port, "--port", str(port)):
        response, _, certificate = get(port, "/health", trusting_the_ca(folder))
        assert response.status == 200
        assert {"localhost", "127.0.0.1", "0:0:0:0:0:0:0:1"} <= names(certificate)
        assert get(port, "/health", trusting_the_ca(folder), name="localhost")[0].status == 200
        # the system's CAs alone do not know this one
        with pytest.raises(ssl.SSLCertVerificationError):
            get(port, "/health", ssl.create_default_context())


def test_plain_http_on_the_port_is_redirected_to_https(folder):
    port = free_port()
    with tls_server(folder, port, "--port", str(port)):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        connection.request("GET", "/phones/abc?key=k")
        response = connection.getresponse()
        assert response.status == 307
        assert response.getheader("Location") == f"https://127.0.0.1:{port}/phones/abc?key=k"
        connection.close()

        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        connection.request("GET", "/", headers={"Host": f"evil.example:{port}"})
        response = connection.getresponse()
        assert response.status == 421
        assert json.loads(response.read())["error"]["code"] == "UNKNOWN_HOST"


def test_keys_are_the_owners_alone_and_only_the_certificate_is_served(folder):
    port = free_port()
    with tls_server(folder, port, "--port", str(port)):
        tls = folder / "data" / "tls"
        for key in ("ca.key", "server.key"):
            assert stat.S_IMODE((tls / key).stat().st_mode) == 0o600
        response, body, _ = get(port, "/tls/ca.crt", trusting_the_ca(folder))
        assert response.status == 200
        assert response.getheader("Content-Type") == "application/x-x509-ca-cert"
        assert body == ssl.PEM_cert_to_DER_cert((tls / "ca.crt").read_text())
        response, body, _ = get(port, "/tls/ca.mobileconfig", trusting_the_ca(folder))
        assert response.getheader("Content-Type") == "application/x-apple-aspen-config"
        assert b"com.apple.security.root" in body
        assert b"PRIVATE KEY" not in body


def test_a_certificate_for_other_names_is_made_anew_and_the_ca_kept(folder):
    port = free_port()
    with tls_server(folder, port, "--port", str(port)):
        pass
    ca = (folder / "data" / "tls" / "ca.crt").read_bytes()
    public_url = f"https://authphone.test:{port}"
    with tls_server(folder, port, "--port", str(port), "--host", "0.0.0.0", "--public-url", public_url) as log:
        assert "made anew: it is not for authphone.test" in log.read_text()
        assert (folder / "data" / "tls" / "ca.crt").read_bytes() == ca
        response, body, certificate = get(port, "/api/phones", trusting_the_ca(folder), name="authphone.test")
        assert "authphone.test" in names(certificate)
        # listening off loopback, HTTPS does not stand in for the access key (the probes need none)
        assert response.status == 401
        assert json.loads(body)["error"]["code"] == "ACCESS_KEY_REQUIRED"


def test_use_your_phone_links_the_https_phone_page_and_the_ca(folder):
    port = free_port()
    with tls_server(folder, port, "--port", str(port)):
        response, body, _ = get(port, "/api/phones", trusting_the_ca(folder), method="POST", body={"name": "Real"})
        assert response.status == 201, body
        phone = json.loads(body)
        response, body, _ = get(port, f"/api/phones/{phone['id']}/link", trusting_the_ca(folder))
        link = json.loads(body)
        check_schema(link, schema("PhoneLink"), "the phone's link")
        assert link == {"url": f"https://127.0.0.1:{port}/phones/{phone['id']}", "secure": True, "loopbackOnly": True,
                        "certificateAuthority": {"certificate": "/tls/ca.crt", "profile": "/tls/ca.mobileconfig"}}
        response, body, _ = get(port, f"/api/phones/{phone['id']}/link/qr.svg", trusting_the_ca(folder))
        assert response.getheader("Content-Type") == "image/svg+xml" and body.startswith(b"<svg")


def test_the_backend_pushes_through_the_servers_own_https(folder):
    """The backend reaches the push endpoint at the server's own HTTPS address, trusting its CA."""
    port = free_port()
    with tls_server(folder, port, "--port", str(port)):
        api = Api(f"https://127.0.0.1:{port}")
        api.http.verify = str(folder / "data" / "tls" / "ca.crt")
        api.http.trust_env = False  # a CA bundle named in the environment would stand in for it
        phone = new_phone(api, "Pushed over HTTPS")
        user = uniq("tls")
        Device(api).enrol_user(user, examples=False)  # a login needs a user with an account
        session = new_session(api, "login", user)
        _, pushed = api.call("pushSession", path={"id": session["id"]}, body={"pushToken": phone["fcmToken"]}, expect=200)
        assert pushed["dispatch"] == "dispatched", pushed
