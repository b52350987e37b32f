"""What a lint says when a bound of the analysis cut what it follows (issue 43, item 9).

The analysis bounds some of what it follows so that every file costs a bounded time
(docs/limitations.md, "Bounds"). Where the reporting pass hits one of the bounds below on
code a stream flows through (:meth:`.interp.core.Core.cut_at`, called where the bound cuts,
with the test of :func:`.interp.views.carries_stream`), the file gets one XST000 there, as the
statement budget's is (:mod:`.budget`): naming the bound, its value, what was not followed
and how to avoid it. A finding past the cut may be missing; code without streams says
nothing.
"""

from __future__ import annotations

import libcst as cst

from ...findings import Finding
from ..interp import higher_order, loops, receivers, statements
from ..source.positions import Position

__all__ = ["cut_findings"]

#: bound -> (where the constant is, its name, its value, what is not followed, how to avoid)
_BOUNDS: dict[str, tuple[str, str, int, str, str]] = {
    "higher_order._MAX_DEPTH": (
        "analysis/interp/higher_order.py",
        "_MAX_DEPTH",
        higher_order._MAX_DEPTH,
        "a call through more than {value} stacked higher-order wrappers (decorators that "
        "call the function they wrap) is not followed",
        "stack fewer wrappers on the function, or call it unwrapped",
    ),
    "receivers._MAX_DEPTH": (
        "analysis/interp/receivers.py",
        "_MAX_DEPTH",
        receivers._MAX_DEPTH,
        "calls on self (and properties) resolved through more than {value} levels of "
        "overrides are not followed",
        "call the method that makes the stream directly",
    ),
    "statements._MAX_NAMES": (
        "analysis/interp/statements.py",
        "_MAX_NAMES",
        statements._MAX_NAMES,
        "a loop over more than {value} literal names is not run name by name "
        "(getattr(obj, name) is an unknown attribute)",
        "loop over fewer names, or name the attributes",
    ),
    "loops.MAX_RUNS": (
        "analysis/interp/loops.py",
        "MAX_RUNS",
        loops.MAX_RUNS,
        "this loop's body still moved streams between names after {value} runs (its later "
        "iterations are not followed)",
        "rotate fewer names through the loop",
    ),
}


def cut_findings(
    cuts: dict[str, cst.CSTNode], positions: dict[cst.CSTNode, Position]
) -> list[Finding]:
    """One XST000 per bound the reporting pass cut at, where it first did (``positions``:
    of :func:`anchors`' nodes; a cut without one is on line 1)."""
    found = []
    for bound, node in cuts.items():
        path, name, value, what, avoid = _BOUNDS[bound]
        line, col = positions.get(anchor(node), (1, 0))
        message = (
            f"XST000 the analysis stopped following here: {what.format(value=value)} "
            f"({path}, {name} = {value}); a finding past this point may be missing: {avoid}, "
            "or silence this with '# noqa: XST000' (docs/limitations.md, Bounds)"
        )
        found.append(Finding(line, col, "XST000", message))
    return found


def anchor(node: cst.CSTNode) -> cst.CSTNode:
    """The node a cut is placed at: the node, or for a statement the first call in it (the
    positions are matched for calls, not statements)."""
    if isinstance(node, (cst.For, cst.While)):
        heads = [node.iter] if isinstance(node, cst.For) else [node.test]
        stack: list[cst.CSTNode] = [*heads, node.body]
        while stack:
            item = stack.pop(0)
            if isinstance(item, cst.Call):
                return item
            stack[:0] = item.children
    return node
