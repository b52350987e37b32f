"""Statements and control flow: each statement takes the state before it to the state after.

``None`` is "does not finish here" (``return``, ``raise``, ``break``, ``continue``).
Branches run on the states narrowing gives them and are joined; loops run their body again,
silenced, while what it carries round changes in what the rules read (:mod:`.loops`), then
once reporting; ``try`` handlers see the state after each statement of the body; ``with``
makes a stream current for its block and restores it however the block is left (``match``
is :mod:`.patterns`). Dispatch is ``exec_`` plus the node's
class name; a statement without an executor is still walked for the calls inside it.
Definitions and imports are executed by :mod:`.calls`, :mod:`.classes` and :mod:`.imports`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst

from ..abstract.atoms import Const, ExtStream
from ..abstract.handles import DeviceCtx, GradMode
from ..abstract.state import State, join_states
from ..abstract.values import (
    ClassInfo,
    Current,
    Instance,
    Seq,
    StreamCtx,
    Value,
    join_all,
    join_current,
)
from ..semantics import autograd as ag
from ..semantics.effects import enter_effects
from ..semantics.hazards import computed
from ..semantics.sites import Arg
from ..source.syntax import children, dotted_name, tail_name
from .constants import const_truth
from .containers import concatenated
from .core import Loop, Scope, is_symbolic
from .gradmode import AWAY_KEY
from .loops import MAX_RUNS, carried, carries_news
from .summaries import ENTERED, symbolic
from .views import carries_stream

#: ``exec_<NodeType>`` by statement type (built once per type).
_EXEC_NAMES: dict[type, str] = {}


class Statements:
    """Statements and control flow: each one takes a state to the state after it, or None."""

    def exec_block(
        self, body: Sequence[cst.CSTNode], state: State | None, scope: Scope
    ) -> State | None:
        for stmt in body:
            if state is None:
                return None
            state = self.exec_stmt(stmt, state, scope)
        return state

    def exec_stmt(self, stmt: cst.CSTNode, state: State, scope: Scope) -> State | None:
        kind = type(stmt)
        if kind is cst.SimpleStatementLine:
            for small in stmt.body:  # type: ignore[attr-defined]
                state = self.exec_small(small, state, scope)  # type: ignore[assignment]
                if state is None:
                    return None
            return state
        name = _EXEC_NAMES.get(kind)
        if name is None:
            name = _EXEC_NAMES[kind] = "exec_" + kind.__name__
        method = getattr(self, name, None)
        if method is not None:
            return method(stmt, state, scope)
        for child in children(stmt):  # unknown statement: still look inside
            self.eval(child, state, scope)
        return state

    def _suite(self, suite: cst.CSTNode, state: State | None, scope: Scope) -> State | None:
        if isinstance(suite, cst.IndentedBlock):
            return self.exec_block(suite.body, state, scope)
        if isinstance(suite, cst.SimpleStatementSuite):
            return self.exec_block(suite.body, state, scope)
        return state

    def exec_small(self, stmt: cst.CSTNode, state: State, scope: Scope) -> State | None:
        # Exact types, most frequent first: libcst's node classes are final, and
        # ``isinstance`` against them runs a Python-level ABC check on every "no".
        kind = type(stmt)
        if kind is cst.Expr:
            self.eval(stmt.value, state, scope)  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            value = self.eval(stmt.value, state, scope)
            for target in stmt.targets:
                self.bind_target(target.target, value, state, scope)
            self.note_overridable(stmt)  # self.x = self.m(...) (receivers.py)
            if scope.kind == "class" and type(stmt.value) is cst.Call:
                self.property_made(stmt, state, scope)  # x = property(get, set) (attributes.py)
        elif kind is cst.AnnAssign:
            declared = self.annotation_value(stmt.annotation, stmt)
            value = self.eval(stmt.value, state, scope) if stmt.value is not None else None
            if stmt.value is not None or declared is not None:
                if declared is not None and not isinstance(value, ExtStream):
                    value = declared
                elif scope.kind != "class" and stmt.value is not None:  # p: Pool = make()
                    value = self.declared_or(value, stmt.annotation)  # (declared.py)
                self.bind_target(stmt.target, value, state, scope)
        elif kind is cst.AugAssign:  # ``total += loss``: computed now, from both
            value = self.eval(stmt.value, state, scope)
            before = self.eval(stmt.target, state, scope)
            result = None
            if type(stmt.operator) is cst.AddAssign:  # ``xs += [s]``: a list of both
                result = concatenated([before, value])
            if result is None:
                result = computed(self._current(state), [before, value])
            self.bind_target(stmt.target, result, state, scope)
        elif kind is cst.Return:
            value = self.eval(stmt.value, state, scope) if stmt.value is not None else Const(None)
            info = scope.function
            if info is not None and self.learning:
                self.note_capture_exit(info, state)
                # inside ``with torch.npu.stream(s):`` the caller gets back its own stream
                info.summary.note_exit(self._restores[0] if self._restores else state.current, info)
            if info is not None and self.learning and not info.returns_known:
                self._learn_return(info, value)
                self.note_overridable(stmt)  # return self.m(...) (receivers.py)
            elif info is not None and self.learning:  # def link(r) -> ExternalStream
                self.declared_device(info, value)  # declared.py
            return None
        elif kind is cst.Raise:
            exc = stmt.exc  # type: ignore[attr-defined]
            raised = self.eval(exc, state, scope) if exc is not None else None
            if stmt.cause is not None:  # type: ignore[attr-defined]
                self.eval(stmt.cause, state, scope)  # type: ignore[attr-defined]
            if self._raised and isinstance(raised, Instance):
                self._raised[-1].append(raised)  # what `except E as e` of this try binds
            return None
        elif kind is cst.Break or kind is cst.Continue:
            if self._loops:
                loop = self._loops[-1]
                (loop.breaks if kind is cst.Break else loop.continues).append(state.copy())
            return None
        elif kind is cst.Import:
            for alias in stmt.names:
                self._import(alias, state, scope)
        elif kind is cst.ImportFrom:
            self._import_from(stmt, state, scope)
        elif kind is cst.Del:
            self._delete(stmt.target, state, scope)
        elif kind is cst.Global or kind is cst.Nonlocal:
            self._declare_outer(stmt, scope)
        else:
            for child in children(stmt):
                self.eval(child, state, scope)
        return state

    def _declare_outer(self, stmt: cst.Global | cst.Nonlocal, scope: Scope) -> None:
        target: Scope | None = scope.parent
        if isinstance(stmt, cst.Global):
            while target is not None and target.parent is not None:
                target = target.parent
        else:
            while target is not None and target.kind == "class":
                target = target.parent
        if target is None or target is scope:
            return
        for item in stmt.names:
            scope.outer_names[item.name.value] = target

    def _delete(self, target: cst.CSTNode, state: State, scope: Scope) -> None:
        if type(target) is cst.Attribute:  # a deleter, ``__delete__`` (attributes.py)
            self.delete_attribute(target, state, scope)
        key = dotted_name(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if key is not None:
            state.env[key] = None
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._delete(element.value, state, scope)

    def exec_If(self, node: cst.If, state: State, scope: Scope) -> State | None:
        truth = const_truth(self.eval(node.test, state, scope))
        if truth is not None and not _never_runs(node.test):  # if flag: with a literal
            if truth:
                return self._suite(node.body, state, scope)
            return self._else(node, state, scope)
        if _never_runs(node.test):  # if False: / if TYPE_CHECKING: never run
            if not isinstance(node.test, cst.Name) or node.test.value != "False":
                # but type checkers' imports name annotations: only those are kept
                with self._silenced(), self._static_only():
                    state = self._suite(node.body, state.copy(), scope) or state
            return self._else(node, state, scope)
        true_state, false_state = self.narrow(node.test, state, scope)
        body_end = self._suite(node.body, true_state, scope)
        orelse = node.orelse
        if orelse is None:
            else_end: State | None = false_state
        elif type(orelse) is cst.If:
            else_end = self.exec_If(orelse, false_state, scope)
        else:
            else_end = self._suite(orelse.body, false_state, scope)
        return join_states([body_end, else_end])

    def _else(self, node: cst.If, state: State, scope: Scope) -> State | None:
        """The ``elif``/``else`` of ``node`` alone: its test is known false."""
        orelse = node.orelse
        if orelse is None:
            return state
        if isinstance(orelse, cst.If):
            return self.exec_If(orelse, state, scope)
        return self._suite(orelse.body, state, scope)

    def _loop(
        self,
        node: cst.For | cst.While,
        state: State,
        scope: Scope,
        run_body,
        orelse: cst.Else | None,
        exits: bool = True,
    ) -> State | None:
        if self.reporting:  # learn what the body carries round before reporting on it
            with self._silenced():
                head = self._carry(node, state, run_body)[0]
            loop = Loop()
            self._loops.append(loop)
            try:
                end = run_body(head.copy())
            finally:
                self._loops.pop()
            joined = join_states([head, end, *loop.continues])
            after = joined if exits else None
            breaks = loop.breaks
            keys, bound = self._carried.get(node, (frozenset(), 0))
            if bound > MAX_RUNS and carries_news(head, joined or head, keys):
                self.cut_at("loops.MAX_RUNS", node)  # moving still: said (driver/cuts.py)
        else:
            head, breaks = self._carry(node, state, run_body)
            after = head if exits else None
        if orelse is not None:
            after = self._suite(orelse.body, after, scope)
        return join_states([after, *breaks])

    def _carry(
        self, node: cst.For | cst.While, state: State, run_body
    ) -> tuple[State, list[State]]:
        """Run the body from the loop's head, joining where it ends (and continues) into the
        head, again while that tells something new about streams (:mod:`.loops`), at most
        the body's loop-carried names plus one times (:data:`.loops.MAX_RUNS`). Loops run
        inside such a further run of an enclosing one run once, so that nested loops cost
        a polynomial of their depth, not a power of the cap. The head the runs reached, and
        the states that left by ``break``."""
        head, breaks, runs = state, [], 0
        carry: tuple[frozenset[str], int] | None = None
        while True:
            loop = Loop()
            self._loops.append(loop)
            self._settling += runs > 0
            try:
                end = run_body(head.copy())
            finally:
                self._loops.pop()
                self._settling -= runs > 0
            runs += 1
            breaks.extend(loop.breaks)
            joined = join_states([head, end, *loop.continues]) or head
            if self._settling:  # inside another loop's run again: once, as it always was
                return joined, breaks
            if carry is None:
                carry = self._carried_keys(node)
            keys, bound = carry
            if runs >= min(bound, MAX_RUNS) or not carries_news(head, joined, keys):
                return joined, breaks
            head = joined

    def _carried_keys(self, node: cst.For | cst.While) -> tuple[frozenset[str], int]:
        """What ``node``'s body carries round (:func:`.loops.carried`), once per loop."""
        keys = self._carried.get(node)
        if keys is None:
            if type(node) is cst.For:
                keys = carried(node.target, None, node.body)
            else:
                keys = carried(None, node.test, node.body)  # type: ignore[union-attr]
            self._carried[node] = keys
        return keys

    def exec_For(self, node: cst.For, state: State, scope: Scope) -> State | None:
        iterated = self.eval(node.iter, state, scope)
        names = _literal_names(iterated) if type(node.target) is cst.Name else ()
        if names is None:  # more names than _MAX_NAMES: one run for them all
            cut = not self.learning and self._bodies.names_attributes(node)
            read = _names_read(node.body) if cut else ()
            if any(carries_stream(self.eval(name, state, scope)) for name in read):
                self.cut_at("statements._MAX_NAMES", node)  # said (driver/cuts.py)
            names = ()
        # for name in ("a", "b"): getattr(obj, name) reads each attribute, name by name
        if names and self._bodies.names_attributes(node):
            return self._loop(node, state, scope, self._each_name(node, names, scope), node.orelse)
        element = self.element_of(iterated)

        def run_body(entry: State) -> State | None:
            self.bind_target(node.target, element, entry, scope)
            return self._suite(node.body, entry, scope)

        return self._loop(node, state, scope, run_body, node.orelse)

    def _each_name(
        self, node: cst.For, names: tuple[Const, ...], scope: Scope
    ) -> Callable[[State], State | None]:
        """The body of a loop over literal names, once per name in order (the loop
        unrolled, at most :data:`_MAX_NAMES` runs per round), so that each iteration's
        ``getattr(obj, name)`` is that attribute rather than an unknown one."""

        def run_body(entry: State) -> State | None:
            end: State | None = entry
            for name in names:
                if end is None:
                    return None
                self.bind_target(node.target, name, end, scope)
                end = self._suite(node.body, end, scope)
            return end

        return run_body

    def exec_While(self, node: cst.While, state: State, scope: Scope) -> State | None:
        if const_truth(self.eval(node.test, state, scope)) is False:  # while flag: never
            return self._suite(node.orelse.body, state, scope) if node.orelse else state
        forever = isinstance(node.test, cst.Name) and node.test.value == "True"

        def run_body(entry: State) -> State | None:
            self.eval(node.test, entry, scope)
            return self._suite(node.body, entry, scope)

        return self._loop(node, state, scope, run_body, node.orelse, exits=not forever)

    def exec_Try(self, node: cst.CSTNode, state: State, scope: Scope) -> State | None:
        loop = self._loops[-1] if self._loops else None
        marks = (len(loop.breaks), len(loop.continues)) if loop else (0, 0)
        # An exception may leave the body after any statement: handlers see each state.
        seen: list[State | None] = [state]
        body_end: State | None = state.copy()
        self._raised.append([])
        try:
            for stmt in node.body.body:
                if body_end is None:
                    break
                body_end = self.exec_stmt(stmt, body_end, scope)
                seen.append(body_end.copy() if body_end is not None else None)
        finally:
            raised = self._raised.pop()
        handler_entry = join_states(seen) or state
        ends: list[State | None] = []
        for handler in node.handlers:
            entry = handler_entry.copy()
            caught = self.eval(handler.type, entry, scope) if handler.type is not None else None
            if handler.name is not None:
                bound = _caught(raised, caught) if raised else None
                self.bind_target(handler.name.name, bound, entry, scope)
            ends.append(self._suite(handler.body, entry, scope))
        else_end = self._suite(node.orelse.body, body_end, scope) if node.orelse else body_end
        result = join_states([else_end, *ends])
        if node.finalbody is not None:
            final_entry = result if result is not None else handler_entry.copy()
            final_end = self._suite(node.finalbody.body, final_entry, scope)
            if loop is not None:  # break and continue leave through finally too
                with self._silenced():
                    for jumps, mark in ((loop.breaks, marks[0]), (loop.continues, marks[1])):
                        jumps[mark:] = [
                            end
                            for end in (
                                self._suite(node.finalbody.body, jump, scope)
                                for jump in jumps[mark:]
                            )
                            if end is not None
                        ]
            return final_end if result is not None else None
        return result

    exec_TryStar = exec_Try

    def exec_With(self, node: cst.With, state: State, scope: Scope) -> State | None:
        saved = state.current
        saved_grad = state.env.get(ag.GRAD_KEY)
        saved_away = state.env.get(AWAY_KEY)
        saved_device: list[Value] = []  # set by a ``torch.npu.device(k)`` item (gradmode.py)
        grad_changed = False
        changed = False
        loop = self._loops[-1] if self._loops else None
        marks = (len(loop.breaks), len(loop.continues)) if loop else (0, 0)
        managers: list[Arg] = []  # whose __exit__ / __aexit__ runs when the block ends
        dunder = "__aenter__" if node.asynchronous is not None else "__enter__"
        for item in node.items:
            value = self.eval(item.item, state, scope)
            if is_symbolic(value):  # with lane: a parameter declared as a class with __enter__
                value = self.declared_receiver(value, dunder) or value  # declared.py
            entered = value
            if isinstance(item.item, cst.Call) and tail_name(item.item.func) == "ExitStack":
                changed = True  # its enter_context() calls are undone when the block ends
            if isinstance(value, Instance):
                enter = value.cls.method(dunder)
                managers.append(Arg(value, dotted_name(item.item)))
                if enter is not None:
                    entered = self._call_function(
                        enter,
                        node,
                        None,
                        Arg(value, dotted_name(item.item)),
                        state,
                        self._current(state),
                    )
                    changed = changed or state.current is not saved
            if isinstance(value, GradMode):  # torch.no_grad(): the body's grad mode
                ag.set_mode(state.env, value)
                self.note_grad_mode(value)  # gradmode.py
                grad_changed = True
            if isinstance(value, DeviceCtx):  # torch.npu.device(k): the body's NPU
                saved_device = saved_device or [self.enter_device(value, state)]
            if isinstance(value, StreamCtx):
                entered = value.yielded
                if not value.keeps_current:
                    changed = self._make_current(value.stream, value.label, node, state) or changed
            elif isinstance(value, ExtStream) and value.param and node.asynchronous:
                # async with cm as s: what entering the caller's cm gives (no stream is an
                # asynchronous context manager)
                entered = symbolic(value.param.child(ENTERED), value.must)
            elif isinstance(value, ExtStream):
                if value.param is not None:  # a parameter: a stream, or a capturing graph
                    for issue in enter_effects(value, self._current(state)):
                        self._report(node, issue)
                label = dotted_name(item.item) or ""
                changed = self._make_current(value, label, node, state) or changed
            elif value is not None:
                for issue in enter_effects(value, self._current(state)):
                    self._report(node, issue)
            if item.asname is not None:
                self.bind_target(
                    item.asname.name,
                    entered if not isinstance(entered, StreamCtx) else None,
                    state,
                    scope,
                )
        if changed:
            self._restores.append(saved)
        try:
            end = self._suite(node.body, state, scope)
        finally:
            if changed:
                self._restores.pop()
        self.exit_managers(node, managers, end or state)  # datamodel.py
        if grad_changed and end is not None:  # __exit__ restores the grad mode
            ag.restore_mode(end.env, saved_grad)
        if saved_device and end is not None:  # and the NPU
            self.restore_device(end, saved_device[0])
        if changed:  # __exit__ restores the stream, however the block is left
            if end is not None:
                end.current = saved
                if saved_away is None:
                    end.env.pop(AWAY_KEY, None)
                else:
                    end.env[AWAY_KEY] = saved_away
            if loop is not None:
                for jump in (*loop.breaks[marks[0] :], *loop.continues[marks[1] :]):
                    jump.current = saved
        return end

    def _make_current(self, stream: Value, label: str, origin: cst.CSTNode, state: State) -> bool:
        """Make ``stream`` current; returns whether the current stream may have changed."""
        if isinstance(stream, Const) and stream.value is None:
            return False  # torch.npu.stream(None) is a no-op
        if not isinstance(stream, ExtStream):
            self.keep_away(stream, state.current, state)  # per device (gradmode.py)
            state.current = None
            return True
        state.env.pop(AWAY_KEY, None)
        if stream.current_of is not None:  # a saved current stream, made current again
            label, origin = stream.current_of, stream.origin  # type: ignore[assignment]
        made = Current(replace(stream, current_of=None, nullable=False), label, origin)
        # A stream that may be None leaves the previous current stream on that path.
        state.current = join_current(made, state.current) if stream.nullable else made
        return True


def _caught(raised: list[Instance], caught: Value) -> Value:
    """What ``except E as e`` binds: the instances the ``try`` body raises itself (``raise
    StreamError(ext)``) that ``E`` catches, by the MRO when ``E`` is a project class, all of
    them when it is not known (``Exception``, a tuple). Raised in a called function: not
    followed (``e`` is unknown)."""
    if isinstance(caught, ClassInfo):
        raised = [r for r in raised if any(k is caught for k in r.cls.mro())]
    return join_all(raised) if raised else None  # type: ignore[arg-type]


def _never_runs(test: cst.CSTNode) -> bool:
    """``False``, ``0``, ``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``: dead at run time."""
    if type(test) is cst.Name:
        return test.value in ("False", "TYPE_CHECKING")
    if type(test) is cst.Integer:
        return test.value == "0"
    return type(test) is cst.Attribute and test.attr.value == "TYPE_CHECKING"


#: The longest tuple of literal names a loop is unrolled for.
_MAX_NAMES = 8


def _literal_names(value: Value) -> tuple[Const, ...] | None:
    """The elements of a tuple or list of two to :data:`_MAX_NAMES` identifier literals
    (``("on_start", "on_end")``); none otherwise (one element is the element itself);
    ``None`` for more than :data:`_MAX_NAMES` of them (not unrolled: a bound's cut)."""
    if not isinstance(value, Seq) or value.keys or value.is_dict:
        return ()
    items = value.items
    if len(items) < 2:
        return ()
    if not all(type(i) is Const and type(i.value) is str and i.value.isidentifier() for i in items):
        return ()
    return items if len(items) <= _MAX_NAMES else None  # type: ignore[return-value]


def _names_read(body: cst.CSTNode) -> list[cst.Name]:
    """The names ``body`` reads (not attributes' names), each once."""
    found: dict[str, cst.Name] = {}
    stack = [body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            found.setdefault(node.value, node)
        elif type(node) is cst.Attribute:
            stack.append(node.value)
        else:
            stack.extend(node.children)
    return list(found.values())
