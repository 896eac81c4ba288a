# shellcheck shell=bash
# Shared by the test runners: several libraries each have something to undo when the script ends
# (servers to stop, a database to remove), and bash keeps one EXIT trap, so they add to a list.
#   at_exit COMMAND   (runs COMMAND on exit, after those added before it)
#   free_port         (a TCP port on 127.0.0.1 nothing listens on)

if [[ -z "${exit_handlers_loaded:-}" ]]; then
  exit_handlers_loaded=1
  exit_handlers=()
  run_exit_handlers() {
    local handler
    for handler in "${exit_handlers[@]}"; do $handler || true; done
  }
  trap run_exit_handlers EXIT
fi

at_exit() { exit_handlers+=("$1"); }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
