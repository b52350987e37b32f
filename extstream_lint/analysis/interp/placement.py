"""One finding per defect: a refused operation known external without the caller is no sink.

Where a finding goes (issue 38, family 2): at the operation when what makes the value
external is known without the caller (the function's own code, its class's guarantee, a
module global); at a call only when the caller's argument makes it external, and then at the
innermost call that passes it (a sink of the summary, :mod:`.summaries`). Never both.

A body is learnt over several passes, and a pass may read a value before the code that makes
it is learnt (``self.s`` in ``flush`` before ``__init__``'s ``self.s = self._make(h)``): it
is then the caller's (symbolic), and the operation becomes a sink. A later pass that finds
the value external on its own reports the operation where it is; the sink the earlier pass
left would report the same defect again at every call. Sinks only grow within a pass, so the
stale one is dropped here, when the operation (or the helper's operation a call reaches) is
found external without the caller, as a join would have dropped the symbolic part.
"""

from __future__ import annotations

from ..abstract.values import Summary
from ..semantics.sites import Issue


def drop_stale_sinks(summary: Summary, anchor: object, issue: Issue) -> None:
    """Forget the sinks of ``summary`` for ``issue``'s operation at ``anchor`` (for a call
    that reaches a helper's sink: that sink's operation), since it is reported here."""
    inner = getattr(issue, "sink", None)
    where = inner.anchor if inner is not None else anchor
    stale = [
        key
        for key, sink in summary.sinks.items()
        if sink.code == issue.code and sink.anchor is where
    ]
    for key in stale:
        del summary.sinks[key]
    if stale:
        summary.version += 1  # callers that applied it must look again


__all__ = ["drop_stale_sinks"]
