#!/usr/bin/env bash
# Runs the API test: starts AuthPhone on a free port with a throw-away database, and two
# throw-away variants (sessions that expire after 10 s; phones whose backend is down) for the
# examples only they can answer, checks Public/openapi.yaml against them with pytest, and stops
# them again whatever happens. Tests/api/test_durability.py starts and kills servers of its own;
# the privacyIDEA and eduMFA tests start privacyIDEA and eduMFA (each installed here from PyPI)
# once for the run. A throw-away PostgreSQL (scripts/lib/postgres.sh) runs beside them, its URL in
# AUTHPHONE_TEST_POSTGRES_URL.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/test-servers.sh
source scripts/lib/postgres.sh

prepare_venv Tests/api/requirements.txt
prepare_privacyidea_venv
prepare_edumfa_venv
start_postgres
port=$(free_port)
start_server main "$port" --pin-kdf fast --data-dir "$server_data/db"
expiry_port=$(free_port)
start_server expiry "$expiry_port" --pin-kdf fast --in-memory --session-lifetime 10
offline_port=$(free_port)
dead_port=$(free_port) # nothing listens there
start_server offline "$offline_port" --pin-kdf fast --in-memory --backend-url "http://127.0.0.1:$dead_port"

if ! AUTHPHONE_BINARY="$binary" \
    AUTHPHONE_URL="http://127.0.0.1:$port" \
    AUTHPHONE_EXPIRY_URL="http://127.0.0.1:$expiry_port" \
    AUTHPHONE_OFFLINE_URL="http://127.0.0.1:$offline_port" \
    AUTHPHONE_OFFLINE_BACKEND="http://127.0.0.1:$dead_port" \
    PRIVACYIDEA_VENV="$privacyidea_venv" EDUMFA_VENV="$edumfa_venv" PRIVACYIDEA_LOGS="$server_data" \
    .venv/bin/python -m pytest -q Tests/api; then
  print_server_logs
  exit 1
fi
