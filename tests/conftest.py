"""Fixtures shared by the test modules: the shipped networks, loaded once per module."""

import pytest

from mtbn.networks import load_network


@pytest.fixture(scope="module")
def asia():
    return load_network("asia")


@pytest.fixture(scope="module")
def alarm():
    return load_network("alarm")

