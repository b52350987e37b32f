"""The regex-free reading of import statements costs work linear in the text (issue 43).

``from`` followed by n dots and no ``import`` (a string literal is enough) cost O(n^2) in
the old pattern: 128 KB took minutes. The scan counts the characters it reads
(``modules.SCANNED``); ten times the text must cost at most ten times the reads, for each
shape that made a pattern backtrack.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from extstream_lint.project import modules
from extstream_lint.project.modules import imported_names

SHAPES: dict[str, Callable[[int], str]] = {
    "dots after from": lambda n: 'x = """\nfrom ' + "." * n + '\n"""\n',
    "blanks after from": lambda n: "\nfrom " + " " * n + "x\n",
    "a dotted name and no import": lambda n: "\nfrom a" + ".b" * n + " importer\n",
    "unclosed parentheses": lambda n: "\nfrom a import (\n" * n,
    "blanks after import": lambda n: "\nimport " + " \t" * n + "\n",
}


def _reads(text: str) -> int:
    before = modules.SCANNED[0]
    imported_names(text)
    return modules.SCANNED[0] - before


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_import_scan_reads_linearly(shape: str) -> None:
    small, large = SHAPES[shape](2_000), SHAPES[shape](20_000)
    assert len(large) <= 10 * len(small) + 100
    reads_small, reads_large = _reads(small), _reads(large)
    # Every character read a bounded number of times, whatever the text holds.
    assert reads_large <= 3 * len(large), (reads_small, reads_large)
    assert reads_large <= 11 * reads_small + 100, (reads_small, reads_large)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("from . import a\n", [(1, "", False, "a", True)]),
        ("from ..pkg.mod import (a,\n  b)\nx = 1\n", [(2, "pkg.mod", False, "(a,\n  b)", True)]),
        (
            "if c:\n    import a.b, c as d\n",
            [(0, "a.b", True, "", False), (0, "c", True, "", False)],
        ),
        ("import\t\ta  # x\n", [(0, "a", True, "", True)]),
        ("from a import b; import c\n", [(0, "a", False, "b", True)]),
        ("from a import b  # c\n", [(0, "a", False, "b  ", True)]),
        ("from a importer b\nfrom a import (b\n", [(0, "a", False, "(b", True)]),
        ("from the start\nimportant = 1\n", []),
        ('m = importlib.import_module("pkg.sub")\n', [(0, "pkg.sub", True, "", False)]),
    ],
)
def test_import_statements_read_as_before(text: str, expected: list[tuple]) -> None:
    assert imported_names(text) == expected
