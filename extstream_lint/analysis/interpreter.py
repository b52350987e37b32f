"""A small abstract interpreter over a libcst module: where do external streams flow?

It executes the module in program order with abstract values (:mod:`.values`): branches are
analysed separately and joined ("may be" when only some paths make a value external),
loops are run twice so values carried round the loop are seen, ``with`` blocks and
``set_stream`` move the *current* stream, and function bodies are analysed after the scope
that defines them, seeing that scope's bindings. Everything runs twice over the file: the
first pass only learns summaries (what functions return, what ``self.x`` holds, which names
a scope binds) so that the second, reporting pass does not depend on definition order.

No libcst metadata is used: it would cost more than the whole analysis budget.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Union

import libcst as cst

from .effects import (
    DEFAULT_CAPTURE_STREAM,
    IMPLICIT_MODULES,
    STAR_EXPORTS,
    Arg,
    CallSite,
    Issue,
    call_effects,
    canonical,
    enables_transfer_to_npu,
    enter_effects,
    is_external_class,
    method_effects,
)
from .syntax import children, dotted_name
from .values import (
    ClassInfo,
    Const,
    Current,
    ExtStream,
    FunctionInfo,
    Instance,
    Ref,
    Seq,
    State,
    StreamCtx,
    Value,
    join,
    join_all,
    join_current,
    join_states,
)

Anchor = Union[cst.Call, cst.With]


@dataclass(eq=False)
class Scope:
    """A module, class or function body; persists across both passes."""

    kind: str
    parent: Scope | None
    #: Names bound anywhere in the scope (learnt in the first pass).
    local_names: set[str] = field(default_factory=set)
    #: Join of every value bound to each name (learnt in the first pass).
    summary: dict[str, Value] = field(default_factory=dict)
    cls: ClassInfo | None = None
    function: FunctionInfo | None = None
    #: ``global x`` / ``nonlocal x``: the scope that really holds ``x``.
    outer_names: dict[str, Scope] = field(default_factory=dict)

    def holder(self, name: str) -> Scope:
        return self.outer_names.get(name, self)


@dataclass
class _Loop:
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


class Interpreter:
    """Runs the two passes over one module and collects :class:`Issue` objects."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.transfer_to_npu = False
        self.learning = True
        self.reporting = False
        self.findings: dict[tuple[int, str], Issue] = {}
        self._scopes: dict[cst.CSTNode, Scope] = {}
        self._functions: dict[cst.FunctionDef, FunctionInfo] = {}
        self._classes: dict[cst.ClassDef, ClassInfo] = {}
        self._deferred: list[tuple[cst.FunctionDef, Scope, ClassInfo | None]] = []
        self._loops: list[_Loop] = []
        #: ``torch.npu.graph.default_capture_stream`` is process-wide: every assignment to
        #: it anywhere in the file, joined (learnt in the first pass).
        self._default_capture: Value = None
        self._default_capture_seen = False

    # --- driver -------------------------------------------------------------------------

    def run(self) -> list[Issue]:
        self._pass(learning=True)
        self._pass(learning=False)
        return list(self.findings.values())

    def _pass(self, learning: bool) -> None:
        self.learning = learning
        self.reporting = not learning
        scope = self._scope(self.module, "module", None)
        self._run_body(self.module.body, State({}), scope)

    def _run_body(self, body: Sequence[cst.CSTNode], state: State, scope: Scope) -> None:
        outer = self._deferred
        self._deferred = []
        self.exec_block(body, state, scope)
        pending, self._deferred = self._deferred, outer
        for node, parent, cls in pending:
            self._run_function(node, parent, cls)

    def _scope(self, node: cst.CSTNode, kind: str, parent: Scope | None) -> Scope:
        scope = self._scopes.get(node)
        if scope is None:
            scope = self._scopes[node] = Scope(kind, parent)
        return scope

    @contextmanager
    def _silenced(self) -> Iterator[None]:
        saved = self.reporting
        self.reporting = False
        try:
            yield
        finally:
            self.reporting = saved

    # --- reporting ----------------------------------------------------------------------

    def _report(self, anchor: Anchor, issue: Issue) -> None:
        if not self.reporting:
            return
        key = (id(anchor), issue.code)
        if key not in self.findings:
            self.findings[key] = replace(issue, anchor=anchor)

    @staticmethod
    def _current(state: State) -> ExtStream | None:
        cur = state.current
        if cur is None:
            return None
        s = cur.stream
        return ExtStream(s.must, "made current", cur.origin, s.noun, cur.label)

    # --- names --------------------------------------------------------------------------

    def bind(self, name: str, value: Value, state: State, scope: Scope) -> None:
        state.env[name] = value
        state.forget_paths_under(name)
        if self.learning:
            scope = scope.holder(name)
            scope.local_names.add(name)
            scope.summary[name] = (
                join(scope.summary[name], value) if name in scope.summary else value
            )

    def lookup(self, name: str, state: State, scope: Scope) -> Value:
        if name in state.env:
            return state.env[name]
        if name in scope.outer_names:
            return scope.outer_names[name].summary.get(name)
        if name in scope.local_names and scope.kind != "class":
            return None
        parent = scope.parent
        while parent is not None:
            if parent.kind != "class":
                if name in parent.summary:
                    return parent.summary[name]
                if name in parent.local_names:
                    return None
            parent = parent.parent
        if name in IMPLICIT_MODULES:
            return Ref(name)
        return None

    def bind_target(self, target: cst.CSTNode, value: Value, state: State, scope: Scope) -> None:
        """Assign ``value`` to an assignment target (names, attributes, tuples, starred)."""
        if isinstance(target, cst.Name):
            self.bind(target.value, value, state, scope)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            items = value.items if isinstance(value, Seq) else None
            starred = any(isinstance(e, cst.StarredElement) for e in elements)
            for index, element in enumerate(elements):
                item = None
                if items is not None and not starred and len(items) == len(elements):
                    item = items[index]
                inner = element.value
                self.bind_target(inner, item, state, scope)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, None, state, scope)
        elif isinstance(target, cst.Attribute):
            owner = self.eval(target.value, state, scope)
            key = dotted_name(target)
            if isinstance(owner, Ref) and key is not None:
                # torch.npu.graph.default_capture_stream = ext
                qualified = canonical(f"{owner.qualname}.{target.attr.value}", self.transfer_to_npu)
                if qualified == DEFAULT_CAPTURE_STREAM:
                    state.env[qualified] = value
                    if self.learning:
                        seen = self._default_capture_seen
                        self._default_capture = (
                            join(self._default_capture, value) if seen else value
                        )
                        self._default_capture_seen = True
                return
            if key is not None:
                state.set_path(key, value)
            if isinstance(owner, Instance) and self.learning:
                attrs = owner.cls.attrs
                name = target.attr.value
                attrs[name] = join(attrs[name], value) if name in attrs else value
        else:  # subscripts and anything else: evaluate for the calls inside
            self.eval(target, state, scope)

    # --- statements ---------------------------------------------------------------------

    def exec_block(
        self, body: Sequence[cst.CSTNode], state: State | None, scope: Scope
    ) -> State | None:
        for stmt in body:
            if state is None:
                return None
            state = self.exec_stmt(stmt, state, scope)
        return state

    def exec_stmt(self, stmt: cst.CSTNode, state: State, scope: Scope) -> State | None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                state = self.exec_small(small, state, scope)
                if state is None:
                    return None
            return state
        method = getattr(self, "exec_" + type(stmt).__name__, None)
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
        if isinstance(stmt, cst.Expr):
            self.eval(stmt.value, state, scope)
        elif isinstance(stmt, cst.Assign):
            value = self.eval(stmt.value, state, scope)
            for target in stmt.targets:
                self.bind_target(target.target, value, state, scope)
        elif isinstance(stmt, cst.AnnAssign):
            declared = self.annotation_value(stmt.annotation, stmt)
            value = self.eval(stmt.value, state, scope) if stmt.value is not None else None
            if stmt.value is not None or declared is not None:
                if declared is not None and not isinstance(value, ExtStream):
                    value = declared
                self.bind_target(stmt.target, value, state, scope)
        elif isinstance(stmt, cst.AugAssign):
            self.eval(stmt.value, state, scope)
            self.bind_target(stmt.target, None, state, scope)
        elif isinstance(stmt, cst.Return):
            value = self.eval(stmt.value, state, scope) if stmt.value is not None else Const(None)
            info = scope.function
            if info is not None and self.learning and not info.returns_known:
                info.returns = (
                    value
                    if info.returns is None and not info.returns_seen
                    else join(info.returns, value)
                )
                info.returns_seen = True
            return None
        elif isinstance(stmt, cst.Raise):
            for child in children(stmt):
                self.eval(child, state, scope)
            return None
        elif isinstance(stmt, (cst.Break, cst.Continue)):
            if self._loops:
                loop = self._loops[-1]
                (loop.breaks if isinstance(stmt, cst.Break) else loop.continues).append(
                    state.copy()
                )
            return None
        elif isinstance(stmt, cst.Import):
            for alias in stmt.names:
                self._import(alias, state, scope)
        elif isinstance(stmt, cst.ImportFrom):
            self._import_from(stmt, state, scope)
        elif isinstance(stmt, cst.Del):
            self._delete(stmt.target, state)
        elif isinstance(stmt, (cst.Global, cst.Nonlocal)):
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

    def _delete(self, target: cst.CSTNode, state: State) -> None:
        key = dotted_name(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if key is not None:
            state.env[key] = None
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._delete(element.value, state)

    def _import(self, alias: cst.ImportAlias, state: State, scope: Scope) -> None:
        full = dotted_name(alias.name)
        if full is None:
            return
        if enables_transfer_to_npu(full):
            self.transfer_to_npu = True
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            self.bind(
                alias.asname.name.value, Ref(canonical(full, self.transfer_to_npu)), state, scope
            )
        else:
            head = full.split(".", 1)[0]
            self.bind(head, Ref(head), state, scope)

    def _import_from(self, stmt: cst.ImportFrom, state: State, scope: Scope) -> None:
        module = dotted_name(stmt.module) if stmt.module is not None else None
        relative = bool(stmt.relative)
        if isinstance(stmt.names, cst.ImportStar):
            if module and not relative:
                base = canonical(module, self.transfer_to_npu)
                for name in STAR_EXPORTS.get(base, ()):
                    self.bind(name, Ref(f"{base}.{name}"), state, scope)
            return
        for alias in stmt.names:
            name = dotted_name(alias.name) or ""
            local = (
                alias.asname.name.value
                if (alias.asname is not None and isinstance(alias.asname.name, cst.Name))
                else name
            )
            if module and not relative:
                full = f"{module}.{name}"
                if enables_transfer_to_npu(full):
                    self.transfer_to_npu = True
                self.bind(local, Ref(canonical(full, self.transfer_to_npu)), state, scope)
            else:
                self.bind(local, None, state, scope)

    def exec_If(self, node: cst.If, state: State, scope: Scope) -> State | None:
        self.eval(node.test, state, scope)
        true_state, false_state = self.narrow(node.test, state, scope)
        body_end = self._suite(node.body, true_state, scope)
        orelse = node.orelse
        if orelse is None:
            else_end: State | None = false_state
        elif isinstance(orelse, cst.If):
            else_end = self.exec_If(orelse, false_state, scope)
        else:
            else_end = self._suite(orelse.body, false_state, scope)
        return join_states([body_end, else_end])

    def _loop(
        self, state: State, scope: Scope, run_body, orelse: cst.Else | None, exits: bool = True
    ) -> State | None:
        head = state
        if self.reporting:  # learn what the body carries round before reporting on it
            with self._silenced():
                self._loops.append(_Loop())
                end = run_body(state.copy())
                loop = self._loops.pop()
            head = join_states([state, end, *loop.continues]) or state
        self._loops.append(_Loop())
        end = run_body(head.copy())
        loop = self._loops.pop()
        after = join_states([head, end, *loop.continues]) if exits else None
        if orelse is not None:
            after = self._suite(orelse.body, after, scope)
        return join_states([after, *loop.breaks])

    def exec_For(self, node: cst.For, state: State, scope: Scope) -> State | None:
        element = self.element_of(self.eval(node.iter, state, scope))

        def run_body(entry: State) -> State | None:
            self.bind_target(node.target, element, entry, scope)
            return self._suite(node.body, entry, scope)

        return self._loop(state, scope, run_body, node.orelse)

    def exec_While(self, node: cst.While, state: State, scope: Scope) -> State | None:
        self.eval(node.test, state, scope)
        forever = isinstance(node.test, cst.Name) and node.test.value == "True"

        def run_body(entry: State) -> State | None:
            self.eval(node.test, entry, scope)
            return self._suite(node.body, entry, scope)

        return self._loop(state, scope, run_body, node.orelse, exits=not forever)

    def exec_Try(self, node: cst.CSTNode, state: State, scope: Scope) -> State | None:
        loop = self._loops[-1] if self._loops else None
        marks = (len(loop.breaks), len(loop.continues)) if loop else (0, 0)
        # An exception may leave the body after any statement: handlers see each state.
        seen: list[State | None] = [state]
        body_end: State | None = state.copy()
        for stmt in node.body.body:
            if body_end is None:
                break
            body_end = self.exec_stmt(stmt, body_end, scope)
            seen.append(body_end.copy() if body_end is not None else None)
        handler_entry = join_states(seen) or state
        ends: list[State | None] = []
        for handler in node.handlers:
            entry = handler_entry.copy()
            if handler.type is not None:
                self.eval(handler.type, entry, scope)
            if handler.name is not None:
                self.bind_target(handler.name.name, None, entry, scope)
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
        changed = False
        loop = self._loops[-1] if self._loops else None
        marks = (len(loop.breaks), len(loop.continues)) if loop else (0, 0)
        for item in node.items:
            value = self.eval(item.item, state, scope)
            entered = value
            if isinstance(value, StreamCtx):
                entered = None
                changed = self._make_current(value.stream, value.label, node, state) or changed
            elif isinstance(value, ExtStream):
                label = dotted_name(item.item) or ""
                changed = self._make_current(value, label, node, state) or changed
            elif value is not None:
                for issue in enter_effects(value, self._current(state)):
                    self._report(node, issue)
            if item.asname is not None:
                self.bind_target(
                    item.asname.name,
                    entered if isinstance(entered, ExtStream) else None,
                    state,
                    scope,
                )
        end = self._suite(node.body, state, scope)
        if changed:  # __exit__ restores the stream, however the block is left
            if end is not None:
                end.current = saved
            if loop is not None:
                for jump in (*loop.breaks[marks[0] :], *loop.continues[marks[1] :]):
                    jump.current = saved
        return end

    def _make_current(self, stream: Value, label: str, origin: cst.CSTNode, state: State) -> bool:
        """Make ``stream`` current; returns whether the current stream may have changed."""
        if isinstance(stream, Const) and stream.value is None:
            return False  # torch.npu.stream(None) is a no-op
        if not isinstance(stream, ExtStream):
            state.current = None
            return True
        if stream.current_of is not None:  # a saved current stream, made current again
            label, origin = stream.current_of, stream.origin  # type: ignore[assignment]
        made = Current(replace(stream, current_of=None, nullable=False), label, origin)
        # A stream that may be None leaves the previous current stream on that path.
        state.current = join_current(made, state.current) if stream.nullable else made
        return True

    def exec_Match(self, node: cst.Match, state: State, scope: Scope) -> State | None:
        self.eval(node.subject, state, scope)
        ends: list[State | None] = [state]
        for case in node.cases:
            entry = state.copy()
            self._bind_pattern(case.pattern, entry, scope)
            if case.guard is not None:
                self.eval(case.guard, entry, scope)
            ends.append(self._suite(case.body, entry, scope))
        return join_states(ends)

    def _bind_pattern(self, pattern: cst.CSTNode, state: State, scope: Scope) -> None:
        stack = [pattern]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
                self.bind(node.name.value, None, state, scope)
            elif isinstance(node, cst.MatchMapping) and node.rest is not None:
                self.bind(node.rest.value, None, state, scope)
            if isinstance(node, cst.MatchAs):
                if node.pattern is not None:
                    stack.append(node.pattern)
            elif isinstance(node, cst.MatchValue):
                self.eval(node.value, state, scope)
            else:
                stack.extend(child for child in children(node) if not isinstance(child, cst.Name))

    def exec_FunctionDef(self, node: cst.FunctionDef, state: State, scope: Scope) -> State:
        for decorator in node.decorators:
            self.eval(decorator.decorator, state, scope)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                self.eval(param.default, state, scope)
        info = self._functions.get(node)
        if info is None:
            info = self._functions[node] = FunctionInfo(node.name.value)
            declared = self.annotation_value(node.returns, node) if node.returns else None
            if declared is not None:
                info.returns = ExtStream(
                    declared.must, f"returned by {info.name}()", node, declared.noun
                )
                info.returns_known = True
        cls = scope.cls if scope.kind == "class" else None
        if cls is not None:
            names = {(dotted_name(d.decorator) or "").rsplit(".", 1)[-1] for d in node.decorators}
            info.is_property = bool(names & {"property", "cached_property"})
        self.bind(node.name.value, info, state, scope)
        if cls is not None and self.learning:
            cls.methods[node.name.value] = info
        self._deferred.append((node, scope, cls))
        return state

    def _run_function(self, node: cst.FunctionDef, parent: Scope, cls: ClassInfo | None) -> None:
        info = self._functions[node]
        scope = self._scope(node, "function", parent)
        scope.function = info
        state = State({})
        params = node.params
        ordered = [*params.posonly_params, *params.params]
        decorators = {dotted_name(d.decorator) for d in node.decorators}
        for index, param in enumerate(ordered):
            value = self.annotation_value(param.annotation, node) if param.annotation else None
            if index == 0 and cls is not None and "staticmethod" not in decorators:
                value = cls if "classmethod" in decorators else Instance(cls)
            self.bind(param.name.value, value, state, scope)
        for param in params.kwonly_params:
            value = self.annotation_value(param.annotation, node) if param.annotation else None
            self.bind(param.name.value, value, state, scope)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.bind(star.name.value, None, state, scope)
        body = (
            node.body.body
            if isinstance(node.body, (cst.IndentedBlock, cst.SimpleStatementSuite))
            else ()
        )
        self._run_body(body, state, scope)

    def exec_ClassDef(self, node: cst.ClassDef, state: State, scope: Scope) -> State:
        for decorator in node.decorators:
            self.eval(decorator.decorator, state, scope)
        for arg in (*node.bases, *node.keywords):
            self.eval(arg.value, state, scope)
        info = self._classes.get(node)
        if info is None:
            info = self._classes[node] = ClassInfo(node.name.value)
        inner = self._scope(node, "class", scope)
        inner.cls = info
        class_state = State({}, state.current)
        outer = self._deferred
        self._deferred = []
        self._suite(node.body, class_state, inner)
        outer.extend(self._deferred)  # methods run after the enclosing scope, like functions
        self._deferred = outer
        if self.learning:
            for name, value in class_state.env.items():
                if "." not in name and not isinstance(value, FunctionInfo):
                    info.attrs[name] = (
                        join(info.attrs[name], value) if name in info.attrs else value
                    )
        self.bind(node.name.value, info, state, scope)
        return state

    # --- annotations and narrowing ------------------------------------------------------

    def annotation_value(
        self, annotation: cst.Annotation | None, origin: cst.CSTNode
    ) -> ExtStream | None:
        """``ExternalStream``, ``Optional[ExternalStream]``, ``"ExternalStream"``, ``X | None``."""
        if annotation is None:
            return None
        node = annotation.annotation if isinstance(annotation, cst.Annotation) else annotation
        if self._annotation_is_external(node, depth=0):
            return ExtStream(True, "annotated", origin)
        return None

    def _annotation_is_external(self, node: cst.CSTNode, depth: int) -> bool:
        if depth > 8:
            return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = dotted_name(node) or ""
            resolved = self._resolve_static(name)
            return resolved is not None and is_external_class(resolved)
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value if isinstance(node.evaluated_value, str) else ""
            try:
                return self._annotation_is_external(cst.parse_expression(text), depth + 1)
            except Exception:
                return False
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return self._none_or_external(node.left, node.right, depth)
        if isinstance(node, cst.Subscript):
            outer = (dotted_name(node.value) or "").rsplit(".", 1)[-1]
            elements = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            if outer == "Optional" and len(elements) == 1:
                return self._annotation_is_external(elements[0], depth + 1)
            if outer == "Union" and len(elements) == 2:
                return self._none_or_external(elements[0], elements[1], depth)
        return False

    def _none_or_external(self, a: cst.CSTNode, b: cst.CSTNode, depth: int) -> bool:
        for x, y in ((a, b), (b, a)):
            if isinstance(y, cst.Name) and y.value == "None":
                return self._annotation_is_external(x, depth + 1)
        return False

    def _resolve_static(self, name: str) -> str | None:
        """Resolve a dotted name through the module's imports (for annotations)."""
        head, _, rest = name.partition(".")
        scope = self._scopes.get(self.module)
        value = scope.summary.get(head) if scope is not None else None
        if head in IMPLICIT_MODULES and value is None:
            value = Ref(head)
        if not isinstance(value, Ref):
            return None
        full = f"{value.qualname}.{rest}" if rest else value.qualname
        return canonical(full, self.transfer_to_npu)

    def narrow(self, test: cst.CSTNode, state: State, scope: Scope) -> tuple[State, State]:
        """States for the true and false branch of ``test`` (``isinstance`` narrowing)."""
        true_state, false_state = state.copy(), state.copy()
        negated = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, not negated
        if (
            isinstance(test, cst.BooleanOperation)
            and isinstance(test.operator, cst.And)
            and not negated
        ):
            inner_true, _ = self.narrow(test.left, state, scope)
            return inner_true, false_state
        if not (
            isinstance(test, cst.Call)
            and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance"
            and len(test.args) == 2
        ):
            return true_state, false_state
        key = dotted_name(test.args[0].value)
        if key is None:
            return true_state, false_state
        classes = test.args[1].value
        members = (
            [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        )
        with self._silenced():
            resolved = [self.eval(m, state, scope) for m in members]
        hits = [isinstance(r, Ref) and is_external_class(r.qualname) for r in resolved]
        if not any(hits):
            return true_state, false_state
        narrowed = ExtStream(all(hits), "checked by isinstance()", test)
        true_state.set_path(key, narrowed)
        before = state.env.get(key)
        if (
            all(hits)
            and isinstance(before, ExtStream)
            and before.noun == "ExternalStream"
            and before.current_of is None
        ):
            # Stream(stream_ptr=...) and current_stream() are external without being
            # ExternalStream instances: isinstance() is False for them (spec 6).
            false_state.set_path(key, None)
        return (false_state, true_state) if negated else (true_state, false_state)

    # --- expressions --------------------------------------------------------------------

    def element_of(self, value: Value) -> Value:
        if isinstance(value, Seq) and value.items:
            return join_all(list(value.items))
        return None

    def eval(self, node: cst.CSTNode | None, state: State, scope: Scope) -> Value:
        """The abstract value of an expression; checks every call inside it on the way."""
        if node is None:
            return None
        handler = _EVALUATORS.get(type(node))
        if handler is not None:
            return handler(self, node, state, scope)
        for child in children(node):
            self.eval(child, state, scope)
        return None

    def _eval_name(self, node: cst.Name, state: State, scope: Scope) -> Value:
        name = node.value
        if name in _CONSTANT_NAMES:
            return _CONSTANT_NAMES[name]
        return self.lookup(name, state, scope)

    def _eval_integer(self, node: cst.Integer, state: State, scope: Scope) -> Value:
        try:
            return Const(int(node.value, 0))
        except ValueError:  # "0_1", "007": not int() literals but valid Python 2 era forms
            return None

    def _eval_float(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        return Const(0.5)  # any non-integer number: only its type matters

    def _eval_string(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        # "a" "b" "c" ... nests to the right; only f-string replacement fields hold code.
        while isinstance(node, cst.ConcatenatedString):
            self._eval_string(node.left, state, scope)
            node = node.right
        if isinstance(node, cst.FormattedString):
            for child in children(node):
                self.eval(child, state, scope)
        return Const("")

    def _eval_unary(self, node: cst.UnaryOperation, state: State, scope: Scope) -> Value:
        value = self.eval(node.expression, state, scope)
        if (
            isinstance(node.operator, cst.Minus)
            and isinstance(value, Const)
            and type(value.value) is int
        ):
            return Const(-value.value)
        return None

    def _eval_named(self, node: cst.NamedExpr, state: State, scope: Scope) -> Value:
        value = self.eval(node.value, state, scope)
        self.bind_target(node.target, value, state, scope)
        return value

    def _eval_sequence(self, node: cst.Tuple | cst.List, state: State, scope: Scope) -> Value:
        items = tuple(self.eval(e.value, state, scope) for e in node.elements)
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return Seq(items)

    def _eval_ifexp(self, node: cst.IfExp, state: State, scope: Scope) -> Value:
        body = self.eval(node.body, state, scope)
        self.eval(node.test, state, scope)
        return join(body, self.eval(node.orelse, state, scope))

    def _eval_boolean(self, node: cst.BooleanOperation, state: State, scope: Scope) -> Value:
        operands = _left_spine(node, cst.BooleanOperation)
        return join_all([self.eval(operand, state, scope) for operand in operands])

    def _eval_binary(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        # a + b + c + ... nests to the left: walk the spine instead of recursing, so long
        # generated expressions do not exhaust the stack.
        for operand in _left_spine(node, type(node)):
            self.eval(operand, state, scope)
        return None

    def _eval_await(self, node: cst.Await, state: State, scope: Scope) -> Value:
        return self.eval(node.expression, state, scope)

    def _eval_lambda(self, node: cst.Lambda, state: State, scope: Scope) -> Value:
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                self.eval(param.default, state, scope)
        inner = State(dict(state.env))  # runs later: the current stream is unknown then
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            inner.env[param.name.value] = None
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                inner.env[star.name.value] = None
        self.eval(node.body, inner, scope)
        return None

    def _eval_comprehension(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        inner = state.copy()
        for_in = node.for_in
        while for_in is not None:
            element = self.element_of(self.eval(for_in.iter, inner, scope))
            self._bind_local(for_in.target, element, inner)
            for cond in for_in.ifs:
                self.eval(cond.test, inner, scope)
            for_in = for_in.inner_for_in
        if isinstance(node, cst.DictComp):
            self.eval(node.key, inner, scope)
            self.eval(node.value, inner, scope)
        else:
            self.eval(node.elt, inner, scope)
        return None

    def _bind_local(self, target: cst.CSTNode, value: Value, state: State) -> None:
        """Bind comprehension targets: they do not leak into the enclosing scope."""
        if isinstance(target, cst.Name):
            state.env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_local(element.value, None, state)
        elif isinstance(target, cst.StarredElement):
            self._bind_local(target.value, None, state)

    def _eval_attribute(self, node: cst.Attribute, state: State, scope: Scope) -> Value:
        key = dotted_name(node)
        if key is not None and key in state.env:
            return state.env[key]
        base = self.eval(node.value, state, scope)
        name = node.attr.value
        if isinstance(base, Ref):
            return Ref(canonical(f"{base.qualname}.{name}", self.transfer_to_npu))
        if isinstance(base, Instance):
            if name in base.cls.attrs:
                return base.cls.attrs[name]
            method = base.cls.methods.get(name)
            if method is not None and method.is_property:
                return method.returns
            return method
        if isinstance(base, ClassInfo):
            return base.attrs.get(name) or base.methods.get(name)
        return None

    def _arguments(self, node: cst.Call, state: State, scope: Scope, callee_text: str) -> CallSite:
        site = CallSite(node, callee_text)
        for arg in node.args:
            value = self.eval(arg.value, state, scope)
            text = dotted_name(arg.value)
            if arg.star == "*":
                if site.star_at is None:
                    site.star_at = len(site.positional)
            elif arg.star == "**":
                site.double_star = True
            elif arg.keyword is not None:
                site.keywords[arg.keyword.value] = Arg(value, text)
            else:
                site.positional.append(Arg(value, text))
        return site

    def _eval_call(self, node: cst.Call, state: State, scope: Scope) -> Value:
        func = node.func
        receiver: Value = None
        receiver_text: str | None = None
        method: str | None = None
        callee: Value
        if isinstance(func, cst.Attribute):
            receiver = self.eval(func.value, state, scope)
            receiver_text = dotted_name(func.value)
            method = func.attr.value
            if isinstance(receiver, Ref):
                callee = Ref(canonical(f"{receiver.qualname}.{method}", self.transfer_to_npu))
                method = None
            elif isinstance(receiver, Instance):
                callee = receiver.cls.attrs.get(method) or receiver.cls.methods.get(method)
            elif isinstance(receiver, ClassInfo):
                callee = receiver.methods.get(method)
            else:
                callee = None
        else:
            callee = self.eval(func, state, scope)
        callee_text = dotted_name(func) or (method or "call")
        site = self._arguments(node, state, scope, callee_text)
        current = self._current(state)
        if method is not None:
            issues, yielded = method_effects(site, method, receiver, receiver_text, current)
            for issue in issues:
                self._report(node, issue)
            if yielded is not None:
                return yielded
            if isinstance(callee, FunctionInfo):
                return self._returned(callee, node)
            return None
        if isinstance(callee, Ref):
            return self._call_ref(callee.qualname, site, state, scope, current)
        if isinstance(callee, FunctionInfo):
            return self._returned(callee, node)
        if isinstance(callee, ClassInfo):
            return Instance(callee)
        return None

    def _returned(self, info: FunctionInfo, call: cst.Call) -> Value:
        value = info.returns
        if isinstance(value, ExtStream) and value.current_of is None:
            return ExtStream(value.must, f"returned by {info.name}()", call, value.noun)
        return value

    def _call_ref(
        self,
        qualname: str,
        site: CallSite,
        state: State,
        scope: Scope,
        current: ExtStream | None,
    ) -> Value:
        """A call of a torch API (or any resolved name): :mod:`.effects` says what it does."""
        if DEFAULT_CAPTURE_STREAM in state.env or scope.kind == "module":
            capture_default = state.env.get(DEFAULT_CAPTURE_STREAM)  # in program order
        else:  # a function may run after any module-level assignment
            capture_default = self._default_capture
        outcome = call_effects(site, qualname, current, capture_default)
        for issue in outcome.issues:
            self._report(site.node, issue)
        arg = outcome.makes_current
        if arg is not None:
            self._make_current(arg.value, arg.text or "", site.node, state)
        return outcome.value


def _left_spine(node: cst.CSTNode, kind: type) -> list[cst.CSTNode]:
    """The operands of a left-nested chain of ``kind`` nodes, in source order."""
    rights: list[cst.CSTNode] = [node.right]  # type: ignore[attr-defined]
    node = node.left  # type: ignore[attr-defined]
    while type(node) is kind and not node.lpar:  # type: ignore[attr-defined]
        rights.append(node.right)  # type: ignore[attr-defined]
        node = node.left  # type: ignore[attr-defined]
    rights.append(node)
    rights.reverse()
    return rights


_CONSTANT_NAMES: dict[str, Const] = {
    "None": Const(None),
    "True": Const(True),
    "False": Const(False),
}

_EVALUATORS = {
    cst.Name: Interpreter._eval_name,
    cst.Attribute: Interpreter._eval_attribute,
    cst.Call: Interpreter._eval_call,
    cst.Integer: Interpreter._eval_integer,
    cst.Float: Interpreter._eval_float,
    cst.Imaginary: Interpreter._eval_float,
    cst.SimpleString: Interpreter._eval_string,
    cst.ConcatenatedString: Interpreter._eval_string,
    cst.FormattedString: Interpreter._eval_string,
    cst.UnaryOperation: Interpreter._eval_unary,
    cst.NamedExpr: Interpreter._eval_named,
    cst.Tuple: Interpreter._eval_sequence,
    cst.List: Interpreter._eval_sequence,
    cst.IfExp: Interpreter._eval_ifexp,
    cst.BooleanOperation: Interpreter._eval_boolean,
    cst.BinaryOperation: Interpreter._eval_binary,
    cst.Await: Interpreter._eval_await,
    cst.Lambda: Interpreter._eval_lambda,
    cst.ListComp: Interpreter._eval_comprehension,
    cst.SetComp: Interpreter._eval_comprehension,
    cst.GeneratorExp: Interpreter._eval_comprehension,
    cst.DictComp: Interpreter._eval_comprehension,
}
