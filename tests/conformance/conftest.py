"""The suite is linted once per test process, for every test module of the suite."""

from __future__ import annotations

import pytest

from tests.conformance.suite import Measurement, load_cases, measure


@pytest.fixture(scope="session")
def measured() -> Measurement:
    return measure(load_cases())
