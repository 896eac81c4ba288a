"""`authphone serve` reads every option from its flag, then `AUTHPHONE_NAME`, then the `--config`
file (JSON or YAML), then its default; a bad value from any of them stops it with a message that
names where it came from; `--help` names every option's variable and the choices of each string
option; `--log-format json` writes one JSON object a line.

Environment: AUTHPHONE_BINARY, the server to start (scripts/api-test.sh sets it).
"""

import json
import re
import subprocess
from datetime import datetime

import requests

from client import TIMEOUT
from servers import BINARY, free_port, serving


def session_lifetime(url):
    """Seconds a new backend session lives on the server at `url`."""
    session = requests.post(f"{url}/api/backend/sessions", json={"type": "enrol", "userId": "configured"},
                            timeout=TIMEOUT).json()
    lifetime = datetime.fromisoformat(session["expiresAt"]) - datetime.fromisoformat(session["createdAt"])
    return round(lifetime.total_seconds())


def test_flag_beats_environment_beats_file_beats_default(tmp_path):
    file_port, env_port, flag_port = free_port(), free_port(), free_port()
    config = tmp_path / "authphone.json"
    config.write_text(json.dumps({"port": file_port, "inMemory": True, "pinKdf": "fast", "sessionLifetime": 120}))
    env = {"AUTHPHONE_PORT": str(env_port), "AUTHPHONE_SESSION_LIFETIME": "90"}

    with serving(tmp_path, ["--config", str(config), "--port", str(flag_port)], env, port=flag_port) as (_, url, _):
        assert session_lifetime(url) == 90  # the variable over the file
        assert requests.get(f"{url}/ready", timeout=TIMEOUT).json()["databases"]["phones"]["storage"] == "memory"
    with serving(tmp_path, ["--config", str(config)], env, port=env_port) as (_, url, _):
        pass
    with serving(tmp_path, ["--config", str(config), "--session-lifetime", "60"], port=file_port) as (_, url, _):
        assert session_lifetime(url) == 60  # the flag over the file


def test_a_yaml_file_and_the_config_variable(tmp_path):
    port = free_port()
    config = tmp_path / "authphone.yaml"
    config.write_text(f"port: {port}\ninMemory: true\npinKdf: fast\nsessionLifetime: 45\nlogFormat: json\n")
    with serving(tmp_path, [], {"AUTHPHONE_CONFIG": str(config)}, port=port) as (_, url, log):
        assert session_lifetime(url) == 45
        assert requests.get(f"{url}/ready", timeout=TIMEOUT).json()["databases"]["backend"]["storage"] == "memory"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(line["message"] == "session started" and line["type"] == "enrol" for line in lines), lines
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)


def refusal(args, env=None):
    started = subprocess.run([BINARY, "serve", *args], env={"PATH": "/usr/bin:/bin", **(env or {})},
                             capture_output=True, timeout=TIMEOUT)
    assert started.returncode != 0
    return started.stderr.decode()


def test_a_bad_value_from_any_source_stops_the_start_and_names_its_source(tmp_path):
    assert "AUTHPHONE_PORT" in refusal([], {"AUTHPHONE_PORT": "eighty"})
    message = refusal(["--in-memory"], {"AUTHPHONE_PIN_KDF": "slow"})
    assert "AUTHPHONE_PIN_KDF" in message and "interactive, moderate, fast" in message
    assert "--port must be between 0 and 65535" in refusal([], {"AUTHPHONE_PORT": "70000"})
    config = tmp_path / "bad.json"
    config.write_text('{"port": "x"}')
    message = refusal(["--config", str(config)])
    assert "AUTHPHONE_PORT" in message and f"'port' in {config}" in message
    config.write_text("[1, 2]")
    assert "is not a configuration file" in refusal(["--config", str(config)])
    assert "cannot read" in refusal(["--config", str(tmp_path / "missing.yaml")])
    assert "--pin-kdf" in refusal(["--pin-kdf", "slow"])
    closed = "postgres://authphone@127.0.0.1:1/authphone?sslmode=disable"
    assert "127.0.0.1:1/authphone cannot be used" in refusal([], {"AUTHPHONE_DATABASE_URL": closed})
    database = ["--database", "postgres://authphone@127.0.0.1:1/authphone"]
    assert "--database-timeout must be between 1 and 300" in refusal([*database, "--database-timeout", "0"])
    assert "--database-connections must be between 1 and 100" in refusal(database, {"AUTHPHONE_DATABASE_CONNECTIONS": "500"})
    assert "--instance-url is for instances that share a --database" in refusal(["--instance-url", "http://10.0.0.2:8080"])
    assert "--instance-url must be an absolute http URL" in refusal([*database, "--instance-url", "ftp://10.0.0.2"])


def test_help_names_every_options_variable_and_the_choices():
    help_text = subprocess.run([BINARY, "serve", "--help"], capture_output=True, timeout=TIMEOUT).stdout.decode()
    options = set(re.findall(r"^\s+--([a-z-]+)", help_text, re.M)) - {"help", "version", "config"}
    assert len(options) >= 20, options
    for option in options:
        assert "AUTHPHONE_" + option.upper().replace("-", "_") in help_text, option
    flat = " ".join(help_text.split())  # the help wraps its lines anywhere
    for choices in ("interactive, moderate, fast", "nextAuth, nevis", "text, json", "trace, debug, info"):
        assert choices in flat, choices
