#!/usr/bin/env bash
# The load generator's smoke run for `make test`: a few phones for a few seconds in each mode
# against a throw-away server. It checks that the generator works and prints its figures; the
# figures themselves are `make bench`'s business.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/test-servers.sh

port=$(free_port)
start_server load "$port" --in-memory --pin-kdf fast --push-rate-limit 10000
url="http://127.0.0.1:$port"
for mode in "--mode logins --phones 4" "--mode sockets --phones 40 --login-phones 2 --rate 5"; do
  # shellcheck disable=SC2086 # the modes are word lists
  if ! "$binary" load --url "$url" $mode --duration 3 --quiet --json "$server_data/load.json"; then
    print_server_logs
    exit 1
  fi
  python3 - "$server_data/load.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["completed"] > 0, "no login completed"
assert not report["errors"] and not report["setupFailures"], f"errors: {report['errors']} {report['setupFailures']}"
assert report["latencyMs"]["count"] > 0, "no latency recorded"
assert report["cpuMsPerLogin"]["generator"] is not None, "the load generator's own CPU not read"
# the server's figures come from its /metrics, not from /proc
assert report["server"] and report["server"]["rssMiB"] > 0, f"the server's RSS not read off /metrics: {report['server']}"
assert report["cpuMsPerLogin"]["server"] is not None, "the server's CPU not read off /metrics"
# the window the CPU was measured over: after the setup, about as long as the run
window = report["measured"]["to"] - report["measured"]["from"]
assert abs(window - report["seconds"]) < 1, f"measured over {window:.2f} s, the run lasted {report['seconds']:.2f} s"
PY
done
echo "load smoke: both modes completed logins without errors"
