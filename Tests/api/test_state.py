"""State a CI job controls: `POST /api/reset` refused from a foreign page with nothing changed,
and `authphone reset --data-dir` on a stopped server's folder.

Environment: AUTHPHONE_URL (the running server) and AUTHPHONE_BINARY (scripts/api-test.sh sets both).
"""

import subprocess

import requests

from servers import BINARY, serving
from test_openapi import BASE_URL, FOREIGN_ORIGIN, TIMEOUT


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
