"""Two AuthPhone instances on two ports sharing one PostgreSQL, for the tests of more than one
instance (test_instances.py, what they share; test_instance_faults.py, what they survive).

Both instances are given the same public URL, as instances behind one load balancer are: the QR
codes, the phones' backend and the backend's push endpoint all name it.

Environment: AUTHPHONE_BINARY, and AUTHPHONE_TEST_POSTGRES_URL, a PostgreSQL the tests may create
databases on (scripts/api-test.sh starts a throwaway one and sets it).
"""

import contextlib
import os
import pathlib
import subprocess
import urllib.parse
import uuid

import pytest

from client import TIMEOUT, Api
from servers import free_port, serving

POSTGRES = os.environ.get("AUTHPHONE_TEST_POSTGRES_URL")
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
needs_postgres = pytest.mark.skipif(POSTGRES is None, reason="needs AUTHPHONE_TEST_POSTGRES_URL (scripts/api-test.sh sets it)")


def fresh_database():
    """A database of the test's own on the test PostgreSQL, as a URL."""
    name = "instances_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", POSTGRES, "-qc", f'CREATE DATABASE "{name}"'], check=True, capture_output=True, timeout=TIMEOUT)
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(POSTGRES)._replace(path="/" + name))


@contextlib.contextmanager
def two_instances(tmp_path, database=None, b_options=()):
    """Instances A and B on one database (a fresh one unless given), A's address their public URL,
    B started with `b_options` too; yields their clients."""
    database = database or fresh_database()
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    shared = ["--database", database, "--pin-kdf", "fast", "--public-url", public]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with serving(tmp_path / "a", ["--port", str(port), "--data-dir", str(tmp_path / "a"), *shared], port=port) as (process, a, _), \
            serving(tmp_path / "b", ["--data-dir", str(tmp_path / "b"), *shared, *b_options]) as (_, b, _):
        yield Api(a), Api(b), process


def postgres(command):
    """`restart_postgres`, `halt_postgres` or `resume_postgres`, by the script that started it."""
    subprocess.run(["bash", "-c", f"source scripts/lib/postgres.sh && {command}"], cwd=REPOSITORY, check=True,
                   timeout=TIMEOUT * 3)
