#!/usr/bin/env bash
# Runs the browser test: starts AuthPhone on a free port with a throw-away database, drives it
# with headless Chromium through Selenium, and stops it again whatever happens (privacyIDEA too,
# for the tests that ask for it). Arguments go to pytest: scripts/browser-test.sh -k stage runs
# the tests whose names say stage.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/test-servers.sh

prepare_venv Tests/browser/requirements.txt
prepare_privacyidea_venv
port=$(free_port)
start_server main "$port" --data-dir "$server_data/db"

mkdir -p artifacts/screenshots
if ! AUTHPHONE_URL="http://127.0.0.1:$port" AUTHPHONE_SCREENSHOTS=artifacts/screenshots \
    PRIVACYIDEA_VENV="$privacyidea_venv" PRIVACYIDEA_LOGS="$server_data" \
    .venv/bin/python -m pytest -q Tests/browser "$@"; then
  print_server_logs
  exit 1
fi
