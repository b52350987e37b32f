"""flake8 as an editor runs it: one flake8 run per file, each from its own option parsing.

``python -m tests.conformance.flake8_each FILE...`` calls flake8's ``main`` once per file in
this one process (a new run each time, as a new flake8 process would be: the plugin's import
graph and summaries start at option parsing), which costs the suite one interpreter start
instead of one per file. Output is flake8's own, one violation per line.
"""

from __future__ import annotations

import sys

from flake8.main.cli import main as flake8_main


def main(paths: list[str]) -> int:
    worst = 0
    for path in paths:
        worst = max(worst, flake8_main(["--isolated", "-j", "1", path]))
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
