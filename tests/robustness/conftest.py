"""Print the site-packages scan's summary at the end of the run, also under pytest-xdist.

The scan runs in an xdist worker, whose output pytest does not show; a test report's
``user_properties`` do travel to the controlling process, so the summary goes there and this
hook prints it in the terminal summary (instead of a warning, which would count as one).
"""

from __future__ import annotations

import pytest
from xst_robustness_support import SUMMARY_PROPERTY


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for name, value in getattr(report, "user_properties", ()):
                if name == SUMMARY_PROPERTY:
                    terminalreporter.write_sep("-", f"{name} ({report.nodeid})")
                    terminalreporter.write_line(str(value))
