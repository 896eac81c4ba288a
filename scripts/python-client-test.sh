#!/usr/bin/env bash
# Runs the Python client's tests and examples (clients/python) as a user of the package would:
# `pip install ./clients/python` afresh into a venv (.venv-client, kept while the package's and
# the tests' requirements are unchanged), mypy --strict over the installed package, then pytest, whose plugin starts the built AuthPhone ($AUTHPHONE_BINARY) on
# a free port, in memory, for the run. A failed test's phone timeline is kept in
# artifacts/authphone-har/. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/test-servers.sh

client_venv_inputs=(clients/python/pyproject.toml clients/python/requirements-test.txt)
if ! venv_is_current .venv-client "${client_venv_inputs[@]}"; then
  rm -rf .venv-client
  python3 -m venv .venv-client >/dev/null
  .venv-client/bin/pip install -q --disable-pip-version-check -r clients/python/requirements-test.txt
  remember_venv_inputs .venv-client "${client_venv_inputs[@]}"
fi
# That the package installs is part of the test, so it is installed every run, nothing of an
# earlier one left.
.venv-client/bin/pip uninstall -q -y authphone 2>/dev/null || true
.venv-client/bin/pip install -q --disable-pip-version-check ./clients/python
.venv-client/bin/mypy --strict --no-error-summary -p authphone
for folder in tests examples; do # apart: each has its own conftest.py
  (cd clients/python/$folder && ../../../.venv-client/bin/mypy --strict --no-error-summary .)
done

env -u AUTHPHONE_URL AUTHPHONE_BINARY="$(realpath "$binary")" .venv-client/bin/python -m pytest -q -p no:cacheprovider \
  --authphone-har artifacts/authphone-har clients/python/tests clients/python/examples "$@"
