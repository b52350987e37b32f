"""Loops run to a fixed point of the state at their head, at a cost linear in the file.

A value carried round a loop reaches its use only after as many rounds as it takes
(``a, b, c = b, c, ext`` makes ``a`` external on the third): the body runs from the state
at the head, the state after it (and at each ``continue``) is joined into the head, and
the body runs again until the head no longer grows. When reporting, those rounds are
silent and one more run, from the final head, reports.

Nested loops do not multiply: each loop's head, once it holds, is kept for the time its
outermost loop runs (keyed by the loop and the function being learnt), with the state after
it. An inner loop entered again with a state its kept head already covers is not run again
(the state after it is the kept one), and one entered with more starts from its kept head
joined with that state, so it converges in the rounds the new part needs. Each run of a
body is then one round of one loop: the outermost loop's rounds, plus what grows inside.

The rounds are bounded (:data:`LOOP_ROUNDS`): past them, every name still growing is
widened to unknown and kept so, and the run says so (an XST000 at the loop, :mod:`.bounds`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

import libcst as cst

from ..abstract.state import State, join_states
from .core import Loop, Scope

#: Rounds of one loop's body before the names still growing are widened to unknown. A
#: value moves one name per round (``a, b, c = b, c, ext``: three rounds, and one to see
#: that nothing grows).
LOOP_ROUNDS = 8

#: Kept heads of the loops run since the outermost loop was entered: (loop node, function
#: learnt) to the head that holds and the state after the loop from it.
_Heads = dict[tuple[int, int], tuple[cst.CSTNode, State, "State | None", list[State]]]


class Loops:
    """``for``, ``async for`` and ``while``: their body to a fixed point of the head."""

    def run_loop(
        self,
        node: cst.CSTNode,
        state: State,
        scope: Scope,
        run_body: Callable[[State], State | None],
        orelse: cst.Else | None,
        exits: bool = True,
    ) -> State | None:
        outermost = not self._loops  # type: ignore[attr-defined]
        saved: _Heads | None = self.__dict__.get("_loop_heads")
        if outermost or saved is None:
            self.__dict__["_loop_heads"] = {}
        try:
            return self._loop_rounds(node, state, scope, run_body, orelse, exits)
        finally:
            if outermost or saved is None:
                self.__dict__["_loop_heads"] = saved

    def _loop_rounds(
        self,
        node: cst.CSTNode,
        state: State,
        scope: Scope,
        run_body: Callable[[State], State | None],
        orelse: cst.Else | None,
        exits: bool,
    ) -> State | None:
        heads: _Heads = self.__dict__["_loop_heads"]
        key = (id(node), id(self._function))  # type: ignore[attr-defined]
        kept = heads.get(key)
        head = state if kept is None else (join_states([kept[1], state]) or state)
        reporting = self.reporting  # type: ignore[attr-defined]
        if kept is not None and head == kept[1] and not reporting:
            after, breaks = kept[2], kept[3]  # this loop, from this head, ran already
        else:
            end, loop, ran = None, Loop(), False
            if kept is None or head != kept[1]:
                end, loop, head = self._to_fixed_point(node, head, run_body)
                ran = True
            if reporting or not ran:  # the run that reports, from the head that holds
                self._loops.append(Loop())  # type: ignore[attr-defined]
                end = run_body(head.copy())
                loop = self._loops.pop()  # type: ignore[attr-defined]
            after = join_states([head, end, *loop.continues]) if exits else None
            breaks = loop.breaks
            heads[key] = (node, head, after, breaks)
        if orelse is not None:
            after = self._suite(orelse.body, after.copy() if after else None, scope)  # type: ignore[attr-defined]
        return join_states([after, *breaks])

    def _to_fixed_point(
        self, node: cst.CSTNode, head: State, run_body: Callable[[State], State | None]
    ) -> tuple[State | None, Loop, State]:
        """Rounds of the body from ``head`` until the head holds: the last round's end,
        its jumps and the head. Silent when reporting (the caller's last run reports)."""
        silent = self._silenced() if self.reporting else nullcontext()  # type: ignore[attr-defined]
        rounds = 0
        pinned: set[str] = set()  # names widened to unknown, kept so
        with silent:
            while True:
                self._loops.append(Loop())  # type: ignore[attr-defined]
                end = run_body(head.copy())
                loop = self._loops.pop()  # type: ignore[attr-defined]
                grown = join_states([head, end, *loop.continues]) or head
                if rounds >= LOOP_ROUNDS:
                    grown = _widened(head, grown, pinned)
                if grown == head:
                    return end, loop, head
                rounds += 1
                if rounds == LOOP_ROUNDS:
                    self.note_bound(  # type: ignore[attr-defined]
                        node,
                        f"a value carried round this loop still changed after {LOOP_ROUNDS} "
                        "rounds and is unknown from there (interp/loops.py, LOOP_ROUNDS): "
                        "a finding that depends on it may be missed",
                    )
                head = grown


def _widened(head: State, grown: State, pinned: set[str]) -> State:
    """``grown`` with every name that grew past ``head`` unknown, and kept unknown (a round
    joins the unknown with what the body assigns, which would grow it again); the current
    stream kept as it was. Each round pins a name or holds: the rounds end."""
    wide = grown.copy()
    for name, value in grown.env.items():
        if name in pinned or head.env.get(name, _MISSING) != value:
            pinned.add(name)
            wide.env[name] = None
    wide.current = head.current
    return wide


_MISSING = object()
