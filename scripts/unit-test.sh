#!/usr/bin/env bash
# Runs the Swift tests (`swift test --skip-build`; arguments go to it) with a throw-away
# PostgreSQL (scripts/lib/postgres.sh) whose URL is in AUTHPHONE_TEST_POSTGRES_URL, and removes
# the cluster again whatever happens. Without that variable the tests skip their PostgreSQL half.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

start_postgres
swift test --skip-build "$@"
