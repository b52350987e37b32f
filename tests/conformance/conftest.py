"""The suite is linted once per test process, for every test module of the suite; under xdist
the modules that read it are one group (tests/conftest.py), so one worker lints it."""

from __future__ import annotations

import pytest

from tests.conformance.suite import Measurement, load_cases, measure


@pytest.fixture(scope="session")
def measured() -> Measurement:
    return measure(load_cases())
