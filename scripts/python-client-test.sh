#!/usr/bin/env bash
# Runs the Python client's tests and examples (clients/python) as a user of the package would:
# a fresh venv (.venv-client) with `pip install ./clients/python`, mypy --strict over the
# installed package, then pytest, whose plugin starts the built AuthPhone ($AUTHPHONE_BINARY) on
# a free port, in memory, for the run. A failed test's phone timeline is kept in
# artifacts/authphone-har/. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/test-servers.sh

rm -rf .venv-client
python3 -m venv .venv-client >/dev/null
.venv-client/bin/pip install -q --disable-pip-version-check ./clients/python -r clients/python/requirements-test.txt
.venv-client/bin/mypy --strict --no-error-summary -p authphone
for folder in tests examples; do # apart: each has its own conftest.py
  (cd clients/python/$folder && ../../../.venv-client/bin/mypy --strict --no-error-summary .)
done

env -u AUTHPHONE_URL AUTHPHONE_BINARY="$(realpath "$binary")" .venv-client/bin/python -m pytest -q -p no:cacheprovider \
  --authphone-har artifacts/authphone-har clients/python/tests clients/python/examples "$@"
