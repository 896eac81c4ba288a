# shellcheck shell=bash
# Shared by the test runners: a throw-away PostgreSQL cluster in a temporary folder, so every test
# run has a real PostgreSQL without a server set up by hand (Debian's "main" cluster is not used).
# Source it from the repository root. Sourcing starts nothing.
#   start_postgres    (initdb, start on a free port of 127.0.0.1, database authphone_test; exports
#                      AUTHPHONE_TEST_POSTGRES_URL and AUTHPHONE_TEST_POSTGRES_DIR; stops on exit)
#   restart_postgres  (for a test of reconnecting; works in a child process from the exported
#                      folder: bash -c 'source scripts/lib/postgres.sh && restart_postgres')
#   halt_postgres, resume_postgres  (an outage: stopped, its connections cut, and started again
#                      later; from a child process, as restart_postgres)
#   stop_postgres     (stops it at once and removes the folder)
#   postgres_cpu_samples SECONDS  (every SECONDS until killed, a line `UNIX_TIME CPU_SECONDS`:
#                      the cluster's CPU time so far, ended backends included; for figures)
# initdb and postgres refuse to run as root, so as root the cluster belongs to the postgres
# user Debian's package makes; otherwise to the current user.

source scripts/lib/exit-handlers.sh

postgres_database=authphone_test

postgres_bin() {
  local bin
  bin=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
  [[ -n "$bin" ]] || { echo "PostgreSQL is not installed: scripts/install-system-packages.sh --test" >&2; return 1; }
  echo "$bin"
}

postgres_owner() { if [[ "$(id -u)" -eq 0 ]]; then echo postgres; else id -un; fi; }

# Runs a PostgreSQL program as the cluster's owner, from the cluster's folder (which the owner
# can read, unlike perhaps the checkout).
as_postgres_owner() {
  local owner
  owner=$(postgres_owner)
  if [[ "$owner" == "$(id -un)" ]]; then
    (cd "$AUTHPHONE_TEST_POSTGRES_DIR" && "$@")
  else
    (cd "$AUTHPHONE_TEST_POSTGRES_DIR" && runuser -u "$owner" -- "$@")
  fi
}

start_postgres() {
  local bin owner port folder
  bin=$(postgres_bin)
  owner=$(postgres_owner)
  port=$(free_port)
  folder=$(mktemp -d)
  export AUTHPHONE_TEST_POSTGRES_DIR=$folder
  at_exit stop_postgres
  [[ "$owner" == "$(id -un)" ]] || chown "$owner:" "$folder"

  if ! as_postgres_owner "$bin/initdb" --pgdata="$folder/data" --username="$owner" --auth=trust \
      --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1; then
    cat "$folder/initdb.log" >&2
    echo "initdb failed" >&2
    return 1
  fi
  cat >>"$folder/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$folder'
max_connections = 200
CONF
  if ! as_postgres_owner "$bin/pg_ctl" start --pgdata="$folder/data" --log="$folder/server.log" \
      --wait --timeout=60 >/dev/null; then
    cat "$folder/server.log" >&2
    echo "PostgreSQL did not start" >&2
    return 1
  fi
  as_postgres_owner "$bin/pg_isready" --quiet --host=127.0.0.1 --port="$port" --timeout=30
  as_postgres_owner "$bin/createdb" --host=127.0.0.1 --port="$port" --username="$owner" "$postgres_database"
  export AUTHPHONE_TEST_POSTGRES_URL="postgres://$owner@127.0.0.1:$port/$postgres_database"
  echo "PostgreSQL for the tests: $AUTHPHONE_TEST_POSTGRES_URL (in $folder)"
}

restart_postgres() {
  as_postgres_owner "$(postgres_bin)/pg_ctl" restart --pgdata="$AUTHPHONE_TEST_POSTGRES_DIR/data" \
    --mode=fast --log="$AUTHPHONE_TEST_POSTGRES_DIR/server.log" --wait --timeout=60 >/dev/null
}

halt_postgres() {
  as_postgres_owner "$(postgres_bin)/pg_ctl" stop --pgdata="$AUTHPHONE_TEST_POSTGRES_DIR/data" --mode=fast --wait >/dev/null
}

resume_postgres() {
  as_postgres_owner "$(postgres_bin)/pg_ctl" start --pgdata="$AUTHPHONE_TEST_POSTGRES_DIR/data" \
    --log="$AUTHPHONE_TEST_POSTGRES_DIR/server.log" --wait --timeout=60 >/dev/null
}

stop_postgres() {
  [[ -d "${AUTHPHONE_TEST_POSTGRES_DIR:-}" ]] || return 0
  if [[ -f "$AUTHPHONE_TEST_POSTGRES_DIR/data/postmaster.pid" ]]; then
    as_postgres_owner "$(postgres_bin)/pg_ctl" stop --pgdata="$AUTHPHONE_TEST_POSTGRES_DIR/data" \
      --mode=immediate --wait >/dev/null 2>&1 || true
  fi
  rm -rf "$AUTHPHONE_TEST_POSTGRES_DIR"
}

# The cluster's user and system CPU seconds so far, every $1 seconds with the time: the
# postmaster's own, the children it reaped (backends of closed connections) and its live children's.
postgres_cpu_samples() {
  python3 - "$AUTHPHONE_TEST_POSTGRES_DIR/data/postmaster.pid" "$1" <<'PY'
import os
import sys
import time

def stat(pid):  # the fields after the command's name: state, ppid, ... utime (12th), stime, cutime, cstime
    with open(f"/proc/{pid}/stat") as file:
        return file.read().rsplit(")", 1)[1].split()

def cpu_seconds(postmaster):
    ticks = sum(int(value) for value in stat(postmaster)[11:15])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = stat(pid)
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")

postmaster = int(open(sys.argv[1]).readline())
while True:
    print(time.time(), cpu_seconds(postmaster), flush=True)
    time.sleep(float(sys.argv[2]))
PY
}
