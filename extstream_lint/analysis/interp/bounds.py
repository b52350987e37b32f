"""Where the analysis cut something short, kept so that the run says so (issue 43, item 9).

A bound that drops what the analysis knows (a loop widened after its rounds, a wrapper
stacked deeper than the analysis follows) is noted at the node where it cut; the engine
turns each note of the file being linted into an XST000 finding on that line
(:mod:`..driver.engine`), as the statement budget's XST000 says that one was reached.
docs/limitations.md lists each bound as "said".
"""

from __future__ import annotations

import libcst as cst

#: The attribute the notes are kept under (a mixin has no constructor of its own).
_NOTES = "_bounds_hit"


class Bounds:
    """Notes of the bounds a run of the interpreter reached, by node."""

    def note_bound(self, node: cst.CSTNode, what: str) -> None:
        """The analysis cut at ``node``: ``what`` says which bound and what may be lost."""
        notes: dict[int, tuple[cst.CSTNode, str]] = self.__dict__.setdefault(_NOTES, {})
        notes.setdefault(id(node), (node, what))

    @property
    def bounds_hit(self) -> list[tuple[cst.CSTNode, str]]:
        """Every bound reached, once per node, in the order they were first reached."""
        return list(self.__dict__.get(_NOTES, {}).values())
