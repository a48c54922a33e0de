"""Fixtures shared by the test modules: the shipped networks, loaded once per module."""

import pytest

from mtbn.networks import load_network


@pytest.fixture(scope="module")
def asia():
    return load_network("asia")


@pytest.fixture(scope="module")
def alarm():
    return load_network("alarm")



@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` every test that uses a fixture its module lists in ``SLOW_FIXTURES``.

    Such a fixture runs a whole command or benchmark once per module; a quick
    test that used it would pay for it in the README's quick run.
    """
    for item in items:
        slow = getattr(getattr(item, "module", None), "SLOW_FIXTURES", ())
        if slow and set(getattr(item, "fixturenames", ())) & set(slow):
            item.add_marker(pytest.mark.slow)
