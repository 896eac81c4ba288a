#!/usr/bin/env bash
# Issue 29's responsiveness measurement (scripts/responsiveness.py, which starts and stops the
# server itself) in the API tests' venv. The server: AUTHPHONE_BINARY, else the release build if
# there is one, else the debug build. Arguments go to the script (--json FILE, --help).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${AUTHPHONE_BINARY:-} && -x .build/release/authphone ]]; then export AUTHPHONE_BINARY=.build/release/authphone; fi
source scripts/lib/test-servers.sh
prepare_venv Tests/api/requirements.txt
.venv/bin/python scripts/responsiveness.py "$@"
