# Shared by the Python test runners: a venv with the test's packages, and AuthPhone servers on
# free ports with throw-away data that stop whatever happens. Source it from the repository root.
#   prepare_venv REQUIREMENTS_FILE
#   venv_is_current, remember_venv_inputs (from venvs.sh: a venv kept while what it was made
#                                   from is unchanged)
#   prepare_privacyidea_venv       (privacyIDEA from PyPI in $privacyidea_venv, for
#                                   Tests/api/privacyidea_server.py)
#   prepare_edumfa_venv            (eduMFA from PyPI in $edumfa_venv, the same for eduMFA)
#   start_server NAME PORT ARGS…   (serves in the background, waits until /health answers;
#                                   its pid in $server_data/NAME.pid)
#   stop_servers_named NAME; print_server_logs; free_port (from exit-handlers.sh)

source scripts/lib/exit-handlers.sh
source scripts/lib/venvs.sh

binary=${AUTHPHONE_BINARY:-.build/debug/authphone} # a copy keeps a test run apart from a rebuild
[[ -x "$binary" ]] || { echo "build first: swift build --build-tests" >&2; exit 1; }

server_data=$(mktemp -d)
server_pids=()
stop_servers() {
  for pid in "${server_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${server_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$server_data"
}
at_exit stop_servers

prepare_venv() {
  python3 -m venv .venv >/dev/null
  .venv/bin/pip install -q --disable-pip-version-check -r "$1" pytest
}

# privacyIDEA and eduMFA pin their own dependencies' versions, so each gets a venv apart from the
# tests' one: made once, kept while its requirements file is unchanged.
privacyidea_venv=.venv-privacyidea
edumfa_venv=.venv-edumfa
prepare_privacyidea_venv() { prepare_server_venv "$privacyidea_venv" Tests/api/requirements-privacyidea.txt privacyIDEA; }
prepare_edumfa_venv() { prepare_server_venv "$edumfa_venv" Tests/api/requirements-edumfa.txt eduMFA; }
prepare_server_venv() {
  local venv=$1 requirements=$2 server=$3
  venv_is_current "$venv" "$requirements" && return 0
  python3 -m venv "$venv" >/dev/null
  if ! "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"; then
    echo "could not install $server from PyPI ($requirements): the $server tests need it" >&2
    exit 1
  fi
  remember_venv_inputs "$venv" "$requirements"
}

stop_servers_named() {
  local pid
  pid=$(cat "$server_data/$1.pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

print_server_logs() {
  for log in "$server_data"/*.log; do echo "--- $(basename "$log" .log) server log ---"; cat "$log"; done
}

start_server() {
  local name=$1 port=$2
  shift 2
  "$binary" serve --port "$port" "$@" >"$server_data/$name.log" 2>&1 &
  local pid=$!
  server_pids+=("$pid")
  echo "$pid" >"$server_data/$name.pid"
  for _ in $(seq 1 100); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=1)" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { print_server_logs; exit 1; }
    sleep 0.1
  done
  echo "the $name server did not answer /health" >&2
  print_server_logs
  exit 1
}
