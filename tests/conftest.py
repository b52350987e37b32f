"""Scheduling of the whole suite under pytest-xdist (the README's ``python -m pytest -n 2``).

``-n N`` alone distributes test by test (``--dist load``), which ignores ``xdist_group``
marks; here it becomes ``--dist loadgroup``: the same test-by-test distribution, except that
the tests of a group run in one worker. The conformance tests are one group
(``tests/conformance``): they read one session-scoped measurement (the CLI and flake8 over
every fixture, ~20 s of CPU), which each worker that ran one of them paid again. An explicit
``--dist`` other than ``load`` is left as given.

Two halves, because a worker parses the command line itself (``-n 2`` there, never
``--dist loadgroup``): the controller switches the mode and says so in each worker's
``workerinput``; a worker that reads it there names its grouped tests as xdist does for an
explicit ``--dist loadgroup`` (``nodeid@group``), which is what the controller groups by.
"""

from __future__ import annotations

from typing import Any

import pytest

_KEY = "extstream_loadgroup"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # xdist declares the mark; declared here too for runs with -p no:xdist (--strict-markers)
    config.addinivalue_line("markers", "xdist_group(name): run these tests in one xdist worker")
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "loadgroup"  # the controller
    if getattr(config, "workerinput", {}).get(_KEY):
        config.option.loadgroup = True  # a worker (xdist.remote reads it at collection)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's hook, on the controller before each worker starts."""
    if node.config.getvalue("dist") == "loadgroup":
        node.workerinput[_KEY] = True
