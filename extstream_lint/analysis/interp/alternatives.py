"""Calls and attribute reads of a name that is one of several callees (:class:`..choices.OneOf`).

Python calls whichever function the path that ran bound: ``f = a if c else b``, a ``def``
in each branch, a ``try``/``except ImportError`` pair of imports, a handler read from a
dict with an unknown key. The analysis cannot know which, so it calls each, as it runs
both arms of an ``if``: every alternative from a copy of the state, then the states joined
(:func:`..state.join_states`), the results joined, and each finding reported once, as a
"may" unless every alternative reaches it (a refused call only one of them makes happens
only on the paths that bound that one). An attribute of such a value (``impl.make`` after
``try: import fast as impl`` / ``except ImportError: import slow as impl``) is the join of
each alternative's attribute, so ``impl.make(h)`` calls each ``make``.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ..abstract.atoms import ExtStream, Ref
from ..abstract.choices import OneOf
from ..abstract.state import State, join_states
from ..abstract.values import Value, join_all
from ..semantics.effects import canonical
from ..semantics.sites import CallSite, Issue
from .core import Anchor


class Alternatives:
    """A call or attribute read of a :class:`OneOf`: of each alternative, joined."""

    def call_each(
        self,
        callee: OneOf,
        node: cst.Call,
        site: CallSite,
        state: State,
        current: ExtStream | None,
    ) -> Value:
        """Call every alternative from its own copy of ``state``; join states and results;
        report each finding once, weakened to "may" unless every alternative reached it."""
        results: list[Value] = []
        states: list[State | None] = []
        reached: list[dict[tuple[int, str], tuple[Anchor, Issue]]] = []
        outer = self._collecting
        for option in callee.options:
            branch = state.copy()
            collected: dict[tuple[int, str], tuple[Anchor, Issue]] = {}
            self._collecting = collected
            try:
                results.append(self._call_value(option, node, site, branch, current))
            finally:
                self._collecting = outer
            states.append(branch)
            reached.append(collected)
        joined = join_states(states)
        if joined is not None:
            state.env, state.current, state.has_paths = joined.env, joined.current, joined.has_paths
        keys = dict.fromkeys(key for collected in reached for key in collected)
        for key in keys:
            found = [collected[key] for collected in reached if key in collected]
            anchor, issue = found[0]
            if len(found) < len(reached) and isinstance(issue.stream, ExtStream):
                issue = replace(issue, stream=issue.stream.weakened())
            self._report(anchor, issue)
        return join_all(results)

    def attribute_each(self, base: OneOf, name: str, text: str | None) -> Value:
        """``base.name``: the join of the attribute of each alternative (a torch name's by
        its qualified name, as :meth:`.expressions.Expressions._eval_attribute` reads it)."""
        found = [
            Ref(canonical(f"{option.qualname}.{name}", self.transfer_to_npu))
            if isinstance(option, Ref)
            else self._attribute_of(option, name, text)
            for option in base.options
        ]
        return join_all(found)
