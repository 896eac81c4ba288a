#!/usr/bin/env bash
# Runs the API test: starts AuthPhone on a free port with a throw-away database, and two
# throw-away variants (sessions that expire after 10 s; phones whose backend is down) for the
# examples only they can answer, checks Public/openapi.yaml against them with pytest, and stops
# them again whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=.build/debug/authphone
[[ -x "$binary" ]] || { echo "build first: swift build --build-tests" >&2; exit 1; }

python3 -m venv .venv >/dev/null
.venv/bin/pip install -q --disable-pip-version-check -r Tests/api/requirements.txt pytest

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
data=$(mktemp -d)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$data"
}
trap cleanup EXIT

logs() {
  for log in "$data"/*.log; do echo "--- $(basename "$log" .log) server log ---"; cat "$log"; done
}

# start NAME PORT ARGS…: serves in the background and waits until /health answers.
start() {
  local name=$1 port=$2
  shift 2
  "$binary" serve --port "$port" --pin-kdf fast "$@" >"$data/$name.log" 2>&1 &
  local pid=$!
  servers+=("$pid")
  for _ in $(seq 1 100); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=1)" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { logs; exit 1; }
    sleep 0.1
  done
  echo "the $name server did not answer /health" >&2
  logs
  exit 1
}

port=$(free_port)
start main "$port" --data-dir "$data/db"
expiry_port=$(free_port)
start expiry "$expiry_port" --in-memory --session-lifetime 10
offline_port=$(free_port)
dead_port=$(free_port) # nothing listens there
start offline "$offline_port" --in-memory --backend-url "http://127.0.0.1:$dead_port"

if ! AUTHPHONE_URL="http://127.0.0.1:$port" \
    AUTHPHONE_EXPIRY_URL="http://127.0.0.1:$expiry_port" \
    AUTHPHONE_OFFLINE_URL="http://127.0.0.1:$offline_port" \
    AUTHPHONE_OFFLINE_BACKEND="http://127.0.0.1:$dead_port" \
    .venv/bin/python -m pytest -q Tests/api; then
  logs
  exit 1
fi
