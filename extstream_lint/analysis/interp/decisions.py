"""One finding per defect where a caller's literal decides the callee (issue 38, family 2).

A function whose body tests a parameter (``if external:``, ``kind == "decode"``,
``self.lanes[kind]``) is summarised with the parameter unknown: an operation on a stream
that one branch makes is "may be" external there. A call that passes a literal gets a copy
of the summary learnt with it (:mod:`.constants`), in which the same operation is decided:
surely external, or not at all. What makes it external is then the caller's literal, so the
finding goes where that literal is passed, at the innermost call whose literal decides it
(``g: f(True, h)`` when ``f`` forwards its flag to ``make(external, h)``), and not in the
callee: the copy keeps the operations it finds surely external (:attr:`_decided`), the call
that uses the copy reports them as its own, and the generic body's "may be" finding there
is dropped once some copy decided it. A copy applied inside another copy passes the finding
on to that copy's callers, so a forwarding chain places it at its outermost literal's call
and the middle functions say nothing.

An operation the generic body finds surely external (its own code makes the stream on every
path) is reported where it is, never again at the calls (:attr:`_must_here`).

When every call of the function in its module uses a copy (each passes the literals its body
tests) and no copy left the operation "may be" external, each call decided it: external,
reported at that call, or not, nothing to report; the generic body's "may be" is dropped
then too (:meth:`Decisions._all_calls_decide`). With no call visible, or one that applies the
generic body, it stays at the operation (the class-level join). A copy learnt as a variant
for other modules' callers (:mod:`.variants`) carries what it decided with it
(:attr:`.values.FunctionInfo.view_decided`), so a call in another module reports it as a
view's is.

A subclass's view of a base's method (:mod:`.views`) is decided the same way by the caller's
choice of the subclass: what it finds surely external is kept (:attr:`_decided`) and
reported at the calls that apply the view, when some call in the module does
(:attr:`_views_called`), else at the operation.
Nothing here runs a body: it reads what the copies' runs report.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TypeVar

import libcst as cst

from ..abstract.atoms import ExtStream
from ..abstract.values import FunctionInfo
from ..semantics.sites import Issue
from . import summaries as sm

#: An operation: its anchor's id and the rule's code.
Key = tuple[int, str]
_K = TypeVar("_K")
_V = TypeVar("_V")


class Decisions:
    """The operations the copies of a summary decide, reported at the calls that use them."""

    #: Per copy, the operations its run found surely external: key -> (anchor, issue).
    _decided: dict[FunctionInfo, dict[Key, tuple[object, Issue]]]
    #: Per generic function, the operations some copy of it decided (every pass so far).
    _decided_keys: dict[FunctionInfo, set[Key]]
    #: (generic function, operation): found surely external by the generic body itself.
    _must_here: set[tuple[FunctionInfo, Key]]
    #: Functions whose generic body reports a stream that may be external.
    _maybe_in: set[FunctionInfo]
    #: The generic function of each copy learnt with literal arguments.
    _copy_of: dict[FunctionInfo, FunctionInfo]
    #: Generic functions some call applied as themselves; those some call applied a copy
    #: of; per generic function, the operations a copy found only "may be" external.
    _applied_generic: set[FunctionInfo]
    _decided_any: set[FunctionInfo]
    _undecided_keys: dict[FunctionInfo, set[Key]]
    #: Per subclass's view (:mod:`.views`), the method it runs again; the views some call
    #: in this module applies.
    _view_origin: dict[FunctionInfo, FunctionInfo]
    _views_called: set[FunctionInfo]
    #: Per generic method, where the "may be" streams of the attributes that copies learnt
    #: with a visible allocation's own values come from (:func:`.constants._own_streams`).
    _covered: dict[FunctionInfo, set[int]]

    def decided_elsewhere(self, anchor: object, issue: Issue) -> bool:
        """Note a finding on a stream external without the caller, in the body being run;
        ``True``: it is reported at the calls that decide it, not here."""
        info = self._function  # type: ignore[attr-defined]
        stream = issue.stream
        if info is None or not isinstance(stream, ExtStream):
            return False
        key = (id(anchor), issue.code)
        origin = self._view_origin.get(info)
        if origin is not None and stream.must:  # a subclass's view of a base's method
            decided = self._decided.setdefault(info, {})
            if self.learning and key not in decided:  # type: ignore[attr-defined]
                decided[key] = (anchor, issue)
                info.summary.version += 1  # calls that applied it report it: look again
                if (origin, key) not in self._must_here:  # exported: other modules' calls
                    info.view_decided = (*info.view_decided, (anchor, issue))
            # The base's code is shared with its other subclasses: what makes it external
            # is the caller's choice of this subclass, reported at the calls that apply
            # this view when some call here does (else here, as the class-level join).
            return info in self._views_called
        generic = self._copy_of.get(info)
        if generic is not None:  # a copy: kept for the call that uses it
            if stream.must and self.learning:  # type: ignore[attr-defined]
                decided = self._decided.setdefault(info, {})
                if key not in decided and (generic, key) not in self._must_here:
                    # exported with it when it is a variant (variants.py): another module's
                    # call that uses it reports it, as for a view
                    info.view_decided = (*info.view_decided, (anchor, issue))
                decided[key] = (anchor, issue)
                self._decided_keys.setdefault(generic, set()).add(key)
            elif self.learning:  # type: ignore[attr-defined]
                self._undecided_keys.setdefault(generic, set()).add(key)
            return False
        if stream.must:
            self._must_here.add((info, key))
            return False
        self._maybe_in.add(info)  # a literal argument may decide it (constants.py)
        if id(stream.origin) in self._covered.get(info, ()):
            return True  # the receiver's own stream, decided at each allocating caller's call
        return key in self._decided_keys.get(info, ()) or self._all_calls_decide(info, key)

    def _all_calls_decide(self, info: FunctionInfo, key: Key) -> bool:
        """Every call of ``info`` in this module passes literals and so uses a copy, and no
        copy left the operation "may be" external: each decided it, external (reported at
        that call) or not (nothing to report). With no call visible, or one that applies the
        generic body, the "may be" stays at the operation."""
        return (
            info in self._decided_any
            and info not in self._applied_generic
            and key not in self._undecided_keys.get(info, ())
        )

    @contextmanager
    def decisions_kept(self) -> Iterator[None]:
        """What the module's own calls decide, as it was before the block: the copies
        learnt for other modules' callers (:mod:`.variants`, :meth:`.constants.Constants.
        literal_returns`) are not this module's calls. A lint that reuses this interpreter
        (:meth:`..driver.index.ProjectIndex.learnt`) then reports what one learnt afresh
        does, whoever imported the module first (issue 43): every table a learning run adds
        to and the reporting pass reads is put back, the views it called and the parameters
        it saw passed on included."""
        decided, covered = _copied(self._decided_keys), _copied(self._covered)
        calls = (set(self._applied_generic), set(self._decided_any), _copied(self._undecided_keys))
        seen = (set(self._must_here), set(self._maybe_in), set(self._views_called))
        kept = _copied(self._passed_on), _copied(self._passed_attrs)  # type: ignore[attr-defined]
        try:
            yield
        finally:
            self._decided_keys, self._covered = decided, covered
            self._applied_generic, self._decided_any, self._undecided_keys = calls
            self._must_here, self._maybe_in, self._views_called = seen
            self._passed_on, self._passed_attrs = kept  # type: ignore[attr-defined]

    def report_decided(self, special: FunctionInfo, node: cst.CSTNode, callee: str) -> None:
        """At a call that uses the copy ``special``: the operations it decided, as this
        call's findings (the generic body reports them itself when it finds them surely
        external on its own). ``special`` may be a subclass's view, or any function."""
        if self.learning and special in self._view_origin:  # type: ignore[attr-defined]
            self._views_called.add(special)
        decided = self._decided.get(special)
        generic = self._copy_of.get(special) or self._view_origin.get(special)
        if generic is None and special.view_decided:  # another module's view
            decided, generic = dict(enumerate(special.view_decided)), special
        if not decided or generic is None:
            return
        for key, (anchor, issue) in decided.items():
            if (generic, key) in self._must_here:
                continue
            stream = issue.stream
            assert isinstance(stream, ExtStream)
            inner = getattr(issue, "sink", None)
            if isinstance(issue, sm.CallIssue) and inner is not None:
                sink = replace(inner, through=(issue.callee, *inner.through))
            else:
                target = f"'{issue.text}'" if issue.text else "a stream"
                sink = sm.Sink(issue.code, issue.operation, anchor, target, True, issue.implicit)
            self._report(  # type: ignore[attr-defined]
                node,
                sm.CallIssue(
                    issue.code,
                    issue.operation,
                    stream,
                    None,  # the callee's name for it means nothing here
                    issue.implicit,
                    sink=sink,
                    callee=callee,
                ),
            )


def _copied(table: dict[_K, set[_V]]) -> dict[_K, set[_V]]:
    """A table of sets whose sets are its own (a block may add to the original's)."""
    return {key: set(values) for key, values in table.items()}


__all__ = ["Decisions"]
