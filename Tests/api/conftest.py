"""What the API tests share as fixtures: a client of the server under test, one per test module;
privacyIDEA and eduMFA, one each per test session; and the order that runs the check of the named
examples' coverage after the tests that replay them, whichever files they are in (client.py,
device.py and document.py have the helpers)."""

import pytest

from client import BASE_URL, Api
from privacyidea_server import edumfa, privacyidea  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def api():
    return Api(BASE_URL)


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.name == "test_zz_every_example_replayed")
