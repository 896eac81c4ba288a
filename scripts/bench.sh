#!/usr/bin/env bash
# `make bench`: builds in release, runs the micro benchmarks, then the load generator against a
# release server at a few sizes, and writes every figure (with the core count and the command
# that produced it) to artifacts/bench/RUN/results.json; scripts/bench-compare.py compares two.
#   BENCH_SECONDS   seconds of the long runs (default 60); BENCH_QUICK=1 for a short pass
#   BENCH_SKIP_10000=1  leaves out the 10,000-socket run (its targets then show "not measured")
#   BENCH_ONLY=sharing  only what sharing a PostgreSQL costs: the SQLite row at 200 logins/s and
#                       its PostgreSQL rows (one instance, two)
# At the end it prints the targets (scripts/bench-compare.py): measured / target / met.
set -euo pipefail
cd "$(dirname "$0")/.."
export AUTHPHONE_BINARY=${AUTHPHONE_BINARY:-.build/release/authphone}
bench_binary=${BENCH_BINARY:-.build/release/authphone-bench}
source scripts/lib/test-servers.sh

long=${BENCH_SECONDS:-60}
short=$(( long < 20 ? long : 20 ))
quick=()
[[ "${BENCH_QUICK:-}" == 1 ]] && quick=(--quick)
run=$(date -u +%Y%m%dT%H%M%SZ)
out=artifacts/bench/$run
mkdir -p "$out"
results=()

# record NAME COMMAND…: runs it, keeps its output and its JSON as one result
record() {
  local name=$1
  shift
  echo "== $name: $*"
  "$@" --json "$out/$name.json" | tee "$out/$name.txt"
  results+=("$name")
  printf '%s\n' "$*" >"$out/$name.command"
}

# One instance, then two, on a PostgreSQL of their own (a throw-away cluster): what keeping the
# state in a shared database costs, beside the SQLite rows. Phone N is driven through
# instance N mod 2, its sessions and pushes too; the cluster's own CPU is counted beside the
# servers' (cpuMsPerLogin.postgres).
postgres_rows() {
  source scripts/lib/postgres.sh
  start_postgres
  for instances in 1 2; do
    database="${AUTHPHONE_TEST_POSTGRES_URL%/*}/bench_$instances"
    psql -q "$AUTHPHONE_TEST_POSTGRES_URL" -c "CREATE DATABASE bench_$instances"
    urls=()
    for instance in $(seq 1 "$instances"); do
      port=$(free_port)
      start_server "postgres-$instances-$instance" "$port" --database "$database" --data-dir "$server_data/postgres-$instances-$instance" \
        --pin-kdf fast --push-rate-limit 10000 --session-lifetime 600
      urls+=(--url "http://127.0.0.1:$port")
    done
    name="logins-1000-at-200-postgres-$instances"
    postgres_cpu_samples 0.1 >"$out/$name.postgres-cpu" &
    sampler=$!
    record "$name" "$binary" load "${urls[@]}" --phones 1000 --rate 200 --duration "$short" --quiet
    pkill -P "$sampler" # the sampler's python, which its subshell waits on
    wait "$sampler" || true
    # the cluster's CPU over the window the servers' was measured in (the phones' setup left out)
    python3 - "$out/$name.json" "$out/$name.postgres-cpu" <<'PY'
import json
import pathlib
import sys

path = pathlib.Path(sys.argv[1])
figures = json.loads(path.read_text())
samples = [tuple(map(float, line.split())) for line in pathlib.Path(sys.argv[2]).read_text().splitlines() if line.strip()]

def cpu_at(moment):  # between the two samples around it, in proportion
    for (t0, c0), (t1, c1) in zip(samples, samples[1:]):
        if t0 <= moment <= t1:
            return c0 + (c1 - c0) * (moment - t0) / (t1 - t0) if t1 > t0 else c0
    raise SystemExit(f"no PostgreSQL CPU sample around {moment}")

seconds = cpu_at(figures["measured"]["to"]) - cpu_at(figures["measured"]["from"])
figures["postgresCpuSeconds"] = seconds
figures["cpuMsPerLogin"]["postgres"] = 1000 * seconds / figures["completed"] if figures["completed"] else None
path.write_text(json.dumps(figures, indent=2, sort_keys=True))
PY
    for instance in $(seq 1 "$instances"); do stop_servers_named "postgres-$instances-$instance"; done
  done
}

# One release server on SQLite at 200 logins/s: the row the PostgreSQL rows are read beside.
sqlite_at_200() {
  record logins-1000-at-200 "$binary" load --url "$url" --phones 1000 --rate 200 --duration "$short" --quiet
}

if [[ "${BENCH_ONLY:-}" == sharing ]]; then
  port=$(free_port)
  start_server bench "$port" --data-dir "$server_data/db" --pin-kdf fast --push-rate-limit 10000 --session-lifetime 600
  url="http://127.0.0.1:$port"
  sqlite_at_200
  stop_servers_named bench
  postgres_rows
  python3 scripts/bench-compare.py --collect "$out" "${results[@]}"
  echo "results: $out/results.json"
  exit 0
fi

record micro "$bench_binary" "${quick[@]}"

# A release server with the load-test KDF profile; pushes are not rate limited here.
port=$(free_port)
start_server bench "$port" --data-dir "$server_data/db" --pin-kdf fast --push-rate-limit 10000 --session-lifetime 600
url="http://127.0.0.1:$port"
pid=$(cat "$server_data/bench.pid")
record logins-100 "$binary" load --url "$url" --phones 100 --duration "$short" --quiet
record logins-1000-max "$binary" load --url "$url" --phones 1000 --duration "$long" --quiet
record logins-1000-at-1000 "$binary" load --url "$url" --phones 1000 --rate 1000 --duration "$long" --quiet
sqlite_at_200
# The same server pinned to one core (every thread, from now on) and the load generator to another:
# the target for a machine too small for the whole of 1,000/s.
if command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
  taskset -a -p -c 0 "$pid" >/dev/null
  record logins-1000-at-500-one-core taskset -c 1 "$binary" load --url "$url" --phones 1000 --rate 500 --duration "$short" --quiet
fi
stop_servers_named bench

# Open screens on a server of their own, so that its memory is theirs (the same database).
port=$(free_port)
start_server sockets "$port" --data-dir "$server_data/db" --pin-kdf fast --push-rate-limit 10000 --session-lifetime 600
url="http://127.0.0.1:$port"
record sockets-1000 "$binary" load --url "$url" --mode sockets --phones 1000 --rate 10 --duration "$short" --quiet
[[ "${BENCH_SKIP_10000:-}" == 1 ]] ||
  record sockets-10000 "$binary" load --url "$url" --mode sockets --phones 10000 --setup-concurrency 64 --rate 10 --duration "$short" --quiet
stop_servers_named sockets

# Start to ready with the phones the runs above left in the database (more than 10,000): from
# the start of the process to the first answer of /health, asked every 10 ms.
phones=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from phone').fetchone()[0])" "$server_data/db/phones.sqlite")
port=$(free_port)
started=$(date +%s%N)
"$binary" serve --port "$port" --data-dir "$server_data/db" --pin-kdf fast >"$server_data/ready.log" 2>&1 &
server_pids+=("$!")
echo "$!" >"$server_data/ready.pid"
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.01; done
ready=$(( ($(date +%s%N) - started) / 1000000 ))
echo "== start to ready with $phones phones in the database: $ready ms" | tee "$out/start.txt"
printf '{"phones": %s, "milliseconds": %s}\n' "$phones" "$ready" >"$out/start.json"
echo "$binary serve --data-dir DB --pin-kdf fast, then GET /health every 10 ms" >"$out/start.command"
results+=(start)
stop_servers_named ready

# The default PIN profile's cost, on its own server.
port=$(free_port)
start_server interactive "$port" --in-memory --push-rate-limit 10000
record logins-100-interactive-kdf "$binary" load --url "http://127.0.0.1:$port" --phones 100 --duration "$short" --quiet

stop_servers_named interactive

postgres_rows

python3 scripts/bench-compare.py --collect "$out" "${results[@]}"
echo "results: $out/results.json"
