#!/usr/bin/env bash
# Runs the browser test: starts AuthPhone on a free port with a throw-away database, drives it
# with headless Chromium through Selenium, and stops it again whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=.build/debug/authphone
[[ -x "$binary" ]] || { echo "build first: swift build --build-tests" >&2; exit 1; }

python3 -m venv .venv >/dev/null
.venv/bin/pip install -q --disable-pip-version-check -r Tests/browser/requirements.txt pytest

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d)
log="$data/server.log"
"$binary" serve --port "$port" --data-dir "$data" >"$log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  python3 -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=1)" 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done

mkdir -p artifacts/screenshots
if ! AUTHPHONE_URL="http://127.0.0.1:$port" AUTHPHONE_SCREENSHOTS=artifacts/screenshots \
    .venv/bin/python -m pytest -q Tests/browser; then
  echo "--- server log ---"; cat "$log"
  exit 1
fi
