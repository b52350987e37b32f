"""Scheduling of the whole suite under pytest-xdist (the README's ``python -m pytest -n 2``).

``-n N`` alone distributes test by test (``--dist load``), which ignores ``xdist_group``
marks; here it becomes ``--dist loadgroup``: the same test-by-test distribution, except that
the tests of a group run in one worker. The conformance tests are one group
(``tests/conformance``): they read one session-scoped measurement (the CLI and flake8 over
every fixture, ~20 s of CPU), which each worker that ran one of them paid again. An explicit
``--dist`` other than ``load`` is left as given.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # xdist declares the mark; declared here too for runs with -p no:xdist (--strict-markers)
    config.addinivalue_line("markers", "xdist_group(name): run these tests in one xdist worker")
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "loadgroup"
