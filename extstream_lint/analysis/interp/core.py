"""The driver of the interpreter: passes, scopes, binding and looking up names, reporting.

:class:`Core` holds the state every concern shares (the passes run so far, the scopes
learnt in the first pass, the findings) and runs the passes over a module: learning passes
until no summary applied in one has grown since, then the reporting pass. It also owns what
a name means (:meth:`Core.bind`, :meth:`Core.lookup`, :meth:`Core.bind_target`) and where a
broken rule goes (a finding, or a sink of the function being summarised). The statements,
expressions, calls, classes and narrowing it runs are the other modules of this package.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Union

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef, Ref
from ..abstract.state import State
from ..abstract.values import (
    ClassInfo,
    Current,
    FunctionInfo,
    Instance,
    Module,
    Seq,
    Value,
    join,
    join_all,
)
from ..semantics.effects import DEFAULT_CAPTURE_STREAM, IMPLICIT_MODULES
from ..semantics.sites import Issue
from ..source.bodies import bodies_for
from . import summaries as sm
from .placement import drop_stale_sinks

if TYPE_CHECKING:
    from ..abstract.facts import ModuleFacts


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
    #: Values other scopes bound to this scope's names (``global x; x = ...``).
    outer_writes: dict[str, Value] = field(default_factory=dict)

    def holder(self, name: str) -> Scope:
        return self.outer_names.get(name, self)


@dataclass
class Loop:
    """The states that leave the loop body being run by ``break`` and by ``continue``."""

    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


#: A function body left to run at the end of its enclosing scope: node, scope, class.
Deferred = tuple[cst.FunctionDef, Scope, Union[ClassInfo, None]]

_LEARNING_ROUNDS = 4

#: :meth:`Core._current`'s last answer: the current it was asked for, and the value made.
_LAST_CURRENT: list[object] = [None, None]


class Core:
    """The interpreter's state and driver: passes, scopes, names, reporting."""

    def __init__(
        self,
        module: cst.Module,
        facts: ModuleFacts | None = None,
        module_name: str | None = None,
        is_package: bool = False,
    ) -> None:
        self.module = module
        #: Other modules of the project, asked for by name (:mod:`.facts`); None: this file
        #: alone.
        self.facts = facts
        self.module_name = module_name
        self.is_package = is_package
        self.transfer_to_npu = False
        self.learning = True
        self.reporting = False
        self.findings: dict[tuple[int, str], Issue] = {}
        #: While one alternative of a :class:`..choices.OneOf` is called: what it reports,
        #: by (anchor, code), reported once all are called (:mod:`.alternatives`).
        self._collecting: dict[tuple[int, str], tuple[Anchor, Issue]] | None = None
        self._scopes: dict[cst.CSTNode, Scope] = {}
        self._functions: dict[cst.FunctionDef, FunctionInfo] = {}
        self._classes: dict[cst.ClassDef, ClassInfo] = {}
        self._deferred: list[Deferred] = []
        #: What the bodies of this tree say, syntax only (what each function calls by name,
        #: tests, does through ``self``): shared by every interpreter of the tree in a run.
        self._bodies = bodies_for(module)
        #: Whether bodies run callees first: from the second learning pass on, when the
        #: first was not enough (most modules need one, and the order has a cost).
        self._callees_order = False
        self._loops: list[Loop] = []
        #: Per loop statement: the names and paths its body carries round (loops.py).
        self._carried: dict[cst.CSTNode, tuple[frozenset[str], int]] = {}
        #: Enclosing loops whose body is being run again (not the first time) (loops.py).
        self._settling = 0
        #: The current stream before each stream-changing ``with`` the running function is
        #: inside, outermost first: a ``return`` leaves through every ``__exit__``.
        self._restores: list[Current | None] = []
        #: ``torch.npu.graph.default_capture_stream`` is process-wide: every assignment to
        #: it anywhere in the file, joined (learnt in the first pass).
        self._default_capture: Value = None
        self._default_capture_seen = False
        #: The function whose body is being analysed: symbolic values are its parameters.
        self._function: FunctionInfo | None = None
        self._record_inits: dict[int, FunctionInfo] = {}
        #: The object model (:mod:`.objects`): classes defined here (by ``id``) and their
        #: nodes, the pass each class attribute was last replaced in, subclasses' views of
        #: inherited methods by (node, ``id`` of the subclass), what methods do to ``self``.
        self._own_classes: set[int] = set()
        self._class_nodes: dict[int, cst.ClassDef] = {}
        self._attr_passes: dict[tuple[int, str], int] = {}
        self._fed_attrs: set[tuple[int, str]] = set()  # objects.note_fed_attr
        self._set_attr_passes: dict[tuple[int, tuple[int, tuple[str, ...]]], int] = {}
        self._views: dict[tuple[cst.FunctionDef, int], FunctionInfo] = {}
        self._class_views: dict[int, list[tuple[cst.FunctionDef, Scope]]] = {}
        self._view_candidates: list[tuple[ClassInfo, set[str]]] = []
        self._special: dict[cst.ClassDef, bool] = {}
        self._methods_of: dict[cst.ClassDef, dict[str, tuple[cst.FunctionDef, FunctionInfo]]] = {}
        self._site_classes: dict[cst.CSTNode, ClassInfo] = {}
        self._delegating: set[tuple[int, str]] = set()
        #: Per record class (by ``id``): field name -> value when the constructor omits it.
        self._field_defaults: dict[int, dict[str, Value]] = {}
        #: ``torch.Event(...)`` calls whose event may be recorded somewhere in the file
        #: (``ev.record()``, or passed to any call): by ``id``, learnt in every pass.
        self._recorded_events: dict[int, cst.CSTNode] = {}
        #: Summaries applied during this learning pass, with the version they had then.
        self._applied: list[tuple[sm.Summary, int]] = []
        #: Caller -> the summaries it applied, learnt so far (:meth:`.Applying.recursive`).
        self._calls_between: dict[FunctionInfo, set[FunctionInfo]] = {}
        #: Every function a call applied (:meth:`.Applying.report_escaped_defaults`).
        self._applied_ids: set[int] = set()
        #: Inside ``if TYPE_CHECKING:`` (see :meth:`_static_only`).
        self._static = False
        #: Per ``try`` being run, innermost last: the instances its body raises (statements.py).
        self._raised: list[list[Instance]] = []
        #: Passes run so far (what each function returns is joined within one pass).
        self._passes = 0
        #: Where each function of this module is defined (node, enclosing scope, class),
        #: and its copies learnt with literal arguments, per pass (:mod:`.constants`).
        self._definitions: dict[FunctionInfo, tuple[cst.FunctionDef, Scope, ClassInfo | None]] = {}
        self._specialised: dict[tuple[object, ...], FunctionInfo] = {}
        #: Copies for attributes' names (``getattr(obj, name)``), with a budget of their own.
        self._named_copies: dict[tuple[object, ...], FunctionInfo] = {}
        #: Parameters a function passes on to one whose literals are followed.
        self._passed_on: dict[FunctionInfo, set[int]] = {}
        #: Attributes of a parameter (index, path) a function passes on to one that tests
        #: them (``OverlapStreams(cfg.placement)`` whose factory tests ``p.comm``).
        self._passed_attrs: dict[FunctionInfo, set[tuple[int, tuple[str, ...]]]] = {}
        #: What the copies decide, reported at the calls that use them (:mod:`.decisions`).
        self._decided: dict[FunctionInfo, dict[tuple[int, str], tuple[object, Issue]]] = {}
        self._decided_keys: dict[FunctionInfo, set[tuple[int, str]]] = {}
        self._must_here: set[tuple[FunctionInfo, tuple[int, str]]] = set()
        self._copy_of: dict[FunctionInfo, FunctionInfo] = {}
        self._maybe_in: set[FunctionInfo] = set()
        #: Generic functions some call applied as themselves, not a copy; the operations a
        #: copy still found "may be" external (:meth:`.decisions.Decisions.decided_elsewhere`).
        self._applied_generic: set[FunctionInfo] = set()
        self._decided_any: set[FunctionInfo] = set()
        self._undecided_keys: dict[FunctionInfo, set[tuple[int, str]]] = {}
        self._covered: dict[FunctionInfo, set[int]] = {}
        #: Subclasses' views (:mod:`.views`): the function each runs again, and the views
        #: some call in this module applied (:meth:`.decisions.Decisions.decided_elsewhere`).
        self._view_origin: dict[FunctionInfo, FunctionInfo] = {}
        self._views_called: set[FunctionInfo] = set()
        #: Bounds the reporting pass cut at where a stream flows: bound -> the first node
        #: (:mod:`..driver.cuts` words them; the lint reports each as an XST000 there).
        self.cuts: dict[str, cst.CSTNode] = {}

    def learn_copy(
        self,
        node: cst.FunctionDef,
        scope: Scope,
        cls: ClassInfo | None,
        special: FunctionInfo,
        fixed: dict[int, Value],
        reporting: bool = False,
    ) -> None:
        """Learn the copy ``special`` of ``node``'s summary from the arguments ``fixed``, then
        put back the modes and loops of the run that asked (every kind of copy: a call's
        literals, other modules' variants, a class's ``__init__``, a metaclass's ``__new__``)."""
        saved = (self.learning, self.reporting, self._loops)
        self.learning, self.reporting, self._loops = True, reporting, []
        try:
            self._run_function(  # type: ignore[attr-defined]
                node, scope, cls, special, fixed
            )
        finally:
            self.learning, self.reporting, self._loops = saved

    def run(self) -> list[Issue]:
        self._learn()
        return self.report()

    def report(self) -> list[Issue]:
        """The reporting pass alone, after :meth:`summarise` learnt the module: what
        :meth:`run` gives when the same facts are seen (the index's reuse of a summary's
        interpreter for the lint of the same file)."""
        self.cuts = {}
        self._pass(learning=False)
        return list(self.findings.values())

    def _learn(self) -> None:
        """Learning passes until no summary was applied before it finished growing. After a
        pass that was not enough, function bodies run callees first (:meth:`_callees_first`)."""
        for _ in range(_LEARNING_ROUNDS):
            self._applied = []
            same_order = self._callees_order  # the next pass runs the bodies in this order
            self._pass(learning=True)
            viewed = self.decide_views()  # subclasses' views of base methods (objects.py)
            fresh = self._fresh_copies() if same_order else set()
            if not viewed and all(
                summary.version == seen or id(summary) in fresh for summary, seen in self._applied
            ):
                break
            self._callees_order = True

    def _fresh_copies(self) -> set[int]:
        """The summaries of the copies learnt in this pass (:func:`.constants.new_copy`, keyed
        by the pass): the next pass learns its own copies afresh, from blank, so one applied
        before it was done (a recursive ``_parse(tokens, -1)`` inside its own copy) reads the
        same blank summary there again. Another pass in the same order, every other summary
        applied as final, would repeat this one: it is not run (issue 39, rounds to the cap
        on gettext, posixpath, dis)."""
        tables = (self._specialised, self._named_copies)
        return {id(copy.summary) for t in tables for k, copy in t.items() if k[1] == self._passes}

    def summarise(self) -> dict[str, Value]:
        """Learning passes only: the module-level names, for modules that import this one."""
        self._learn()
        # Copies learnt for other modules' calls decide nothing for this module's own
        # (:meth:`.decisions.Decisions.decisions_kept`): its lint reuses this interpreter.
        with self.decisions_kept():  # type: ignore[attr-defined]  # decisions.py
            self.literal_returns()  # type: ignore[attr-defined]  # constants.py
        self.export_variants()  # copies for other modules' callers (variants.py)
        scope = self._scopes.get(self.module)
        return dict(scope.summary) if scope is not None else {}

    def _project_module(self, name: str) -> Module | None:
        if self.facts is None or not name:
            return None
        return self.facts.module(name)

    def _learn_return(self, info: FunctionInfo, value: Value) -> None:
        """Join ``value`` into what ``info`` returns in this learning pass.

        Each pass starts the join afresh: a pass that ran the function before a helper it
        calls was learnt saw "unknown" there, and joining that into later passes would keep
        it forever (``join(None, [ext])`` is None). Callers that ran earlier in the pass saw
        the previous pass's value: :meth:`_run_function` bumps the version once the body is
        done if the result differs, so they are looked at again.
        """
        if info.returns_pass == self._passes and info.returns_seen:
            returns = join(info.returns, value)
        else:
            returns = value
        info.returns_pass = self._passes
        info.returns, info.returns_seen = returns, True

    @staticmethod
    def _keep_final_globals(end: State, scope: Scope) -> None:
        """Functions and importers run after the module body: they see each global as the
        body left it (``DEFAULT = ExternalStream(p)`` then ``DEFAULT = torch.npu.Stream()``
        is managed), joined with what functions assign through ``global``."""
        for name, value in end.env.items():
            if "." in name or name not in scope.summary:
                continue
            writes = scope.outer_writes
            scope.summary[name] = join(value, writes[name]) if name in writes else value

    def _pass(self, learning: bool) -> None:
        self._passes += 1
        self.learning = learning
        if learning:  # which calls use copies: this pass's (decisions.py)
            self._applied_generic.clear()
            self._decided_any.clear()
            self._undecided_keys.clear()
        self.reporting = not learning
        scope = self._scope(self.module, "module", None)
        self.package_effects()  # its packages' __init__ ran first (imports.py)
        self._run_body(self.module.body, State({}), scope)

    def _run_body(self, body: Sequence[cst.CSTNode], state: State, scope: Scope) -> None:
        outer = self._deferred
        self._deferred = []
        end = self.exec_block(body, state, scope)
        if self.learning and end is not None and scope.kind == "module":
            self._keep_final_globals(end, scope)
        pending, self._deferred = self._deferred, outer
        for node, parent, cls in self._callees_first(pending) if self._callees_order else pending:
            self._run_function(node, parent, cls)

    def _callees_first(self, pending: list[Deferred]) -> list[Deferred]:
        """The bodies deferred to the end of a scope, each after the functions and methods
        of its own class it calls by name (recursion: in definition order). A body that
        runs before a helper it calls sees the helper's summary of the previous pass, and
        the pass must be run again: in definition order, on the standard library set with
        every file analysed, 49 of 216 modules took three or four learning passes, and 27
        stopped at the cap (:data:`_LEARNING_ROUNDS`). The order changes when a fact is
        learnt, not what is learnt: the last learning pass and the reporting pass see every
        summary final either way, unless the passes stop at their cap, which few reach in
        this order. Finding the callees walks every body once (a quarter of a pass on
        transformers' modules): only modules whose first pass was not enough pay it."""
        if len(pending) < 2:
            return pending
        at: dict[tuple[ClassInfo | None, str], int] = {}
        for index, (node, _, cls) in enumerate(pending):
            at.setdefault((cls, node.name.value), index)
        order: list[int] = []
        placed = [False] * len(pending)
        for start in range(len(pending)):
            if placed[start]:
                continue
            placed[start] = True
            stack = [(start, iter(self._callees(pending[start], at)))]
            while stack:  # depth first, each body after its callees
                index, callees = stack[-1]
                for callee in callees:
                    if not placed[callee]:
                        placed[callee] = True
                        stack.append((callee, iter(self._callees(pending[callee], at))))
                        break
                else:
                    stack.pop()
                    order.append(index)
        return [pending[index] for index in order]

    def _callees(self, entry: Deferred, at: dict[tuple[ClassInfo | None, str], int]) -> list[int]:
        node, _, cls = entry
        called = self._bodies.called(node)
        found = (at.get((cls if on_self else None, name)) for on_self, name in called)
        return [index for index in found if index is not None]

    def _scope(self, node: cst.CSTNode, kind: str, parent: Scope | None) -> Scope:
        scope = self._scopes.get(node)
        if scope is None:
            scope = self._scopes[node] = Scope(kind, parent)
        return scope

    @contextmanager
    def _static_only(self) -> Iterator[None]:
        """``if TYPE_CHECKING:`` never runs: its imports name annotations, but what it binds
        is no value any function sees at run time."""
        saved, self._static = self._static, True
        try:
            yield
        finally:
            self._static = saved

    @contextmanager
    def _silenced(self) -> Iterator[None]:
        saved = self.reporting
        self.reporting = False
        try:
            yield
        finally:
            self.reporting = saved

    def cut_at(self, bound: str, node: cst.CSTNode) -> None:
        """A bound cut what the analysis follows at ``node``, on code a stream flows
        through (the caller checked): said at the first such node of the reporting pass."""
        if not self.learning and bound not in self.cuts:
            self.cuts[bound] = node

    def _report(self, anchor: Anchor, issue: Issue) -> None:
        if self._collecting is not None:
            self._collecting.setdefault((id(anchor), issue.code), (anchor, issue))
            return
        stream = issue.stream
        if isinstance(stream, ExtStream) and stream.param is not None:
            for ref in stream.refs():
                self._learn_sink(anchor, issue, ref)
            return
        if self.learning and isinstance(stream, ExtStream) and self._function is not None:
            # known external here, without the caller: not also a sink (placement.py)
            drop_stale_sinks(self._function.summary, anchor, issue)
        if self.decided_elsewhere(anchor, issue):  # at the caller's literal (decisions.py)
            return
        if not self.reporting:
            return
        key = (id(anchor), issue.code)
        if key not in self.findings:
            self.findings[key] = replace(issue, anchor=anchor)

    def _learn_sink(self, anchor: Anchor, issue: Issue, ref: ParamRef) -> None:
        """A rule broken on a parameter of the function being analysed: a sink, not a finding."""
        info = self._function
        if not self.learning or info is None:
            return
        if ref.owner is not info:
            # A closure using an enclosing function's parameter: a sink of that function,
            # on the paths where the closure runs ("may": whether it runs is not followed).
            if not isinstance(ref.owner, FunctionInfo) or not isinstance(issue.stream, ExtStream):
                return
            issue = replace(issue, stream=issue.stream.weakened())
        if isinstance(issue, sm.CallIssue) and issue.sink is not None:
            inner = replace(issue.sink, through=(issue.callee, *issue.sink.through))
            sm.sink_of(ref, issue, anchor, inner)
        else:
            sm.sink_of(ref, issue, anchor)

    @staticmethod
    def _current(state: State) -> ExtStream | None:
        """The stream current in ``state`` as a value; the last one made is given again
        for the same (immutable) current (states share it), which :data:`_LAST_CURRENT`
        holds alive: no other current can take its ``id``."""
        _last = _LAST_CURRENT
        cur = state.current
        if cur is None:
            return None
        if cur is _last[0]:
            return _last[1]  # type: ignore[return-value]
        s = cur.stream
        made = ExtStream(
            s.must,
            "made current",
            cur.origin,
            s.noun,
            cur.label,
            param=s.param,
            also=s.also,
            device=s.device,
        )
        _last[0], _last[1] = cur, made
        return made

    #: Late binding (:mod:`.higher_order`): per function defined in a function body, the
    #: enclosing names at its ``def``, what each is bound to after it, the pass; per enclosing
    #: scope (by ``id``), the functions defined in it so far. Made on first use.
    _late_defs: dict[cst.CSTNode, tuple[dict[str, Value], dict[str, Value], int]] | None = None
    _open_defs: dict[int, set[cst.FunctionDef]] | None = None
    #: Per function (its ``def``), the names of other scopes it binds through ``nonlocal``
    #: or ``global``: the scope and the value (:mod:`.higher_order`).
    _writes_through: dict[cst.FunctionDef, dict[str, tuple[Scope, Value]]] | None = None

    def bind(self, name: str, value: Value, state: State, scope: Scope) -> None:
        state.env[name] = value
        state.forget_paths_under(name)
        opened = self._open_defs
        if opened:
            self.note_late_binding(name, value, opened.get(id(scope.holder(name))))
        if self.learning and not (self._static and not isinstance(value, Ref)):
            holder = scope.holder(name)
            holder.local_names.add(name)
            holder.summary[name] = (
                join(holder.summary[name], value) if name in holder.summary else value
            )
            if holder is not scope:
                writes = holder.outer_writes
                writes[name] = join(writes[name], value) if name in writes else value
                self.note_write_through(scope, holder, name, value)

    def lookup(self, name: str, state: State, scope: Scope) -> Value:
        if name in state.env:
            return state.env[name]
        if name in scope.outer_names:
            return scope.outer_names[name].summary.get(name)
        if name in scope.local_names and scope.kind != "class":
            return None
        child, parent = scope, scope.parent
        while parent is not None:
            if parent.kind != "class":
                if parent.kind == "function" and self._late_defs:
                    found, value = self.late_value(child, name)
                    if found:
                        return value
                if name in parent.summary:
                    return parent.summary[name]
                if name in parent.local_names:
                    return None
            child, parent = parent, parent.parent
        if name in IMPLICIT_MODULES:
            return Ref(name)
        return None

    def bind_target(
        self,
        target: cst.CSTNode,
        value: Value,
        state: State,
        scope: Scope,
        anchor: cst.CSTNode | None = None,
    ) -> None:
        """Assign ``value`` to an assignment target (names, attributes, tuples, starred);
        a property's setter or a descriptor's ``__set__`` runs (reported at ``anchor``)."""
        if type(target) is cst.Name:
            self.bind(target.value, value, state, scope)
        elif type(target) in (cst.Tuple, cst.List):
            elements = target.elements
            stars = [i for i, e in enumerate(elements) if type(e) is cst.StarredElement]
            values = self.unpack(value, len(elements), stars[0] if len(stars) == 1 else None)
            for element, item in zip(elements, values):
                self.bind_target(element.value, item, state, scope)
        elif type(target) is cst.StarredElement:
            self.bind_target(target.value, value, state, scope)
        elif type(target) is cst.Attribute:
            owner = self.eval(target.value, state, scope)
            self.bind_attribute(target, owner, value, state, scope)  # attributes.py
            self.run_setter(target, owner, value, state, anchor or target)
        elif isinstance(target, cst.Subscript):  # d["s"] = v, lst[0] = v (containers.py)
            self.store_item(target, value, state, scope)
        else:  # anything else: evaluate for the calls inside
            self.eval(target, state, scope)

    def set_default_capture(self, value: Value, state: State) -> None:
        """``torch.npu.graph.default_capture_stream = value`` runs here. Outside functions it
        is state every function may see; in a function body it is an effect of calling that
        function (its summary, :meth:`note_capture_exit`), seen in program order."""
        state.env[DEFAULT_CAPTURE_STREAM] = value
        if self.learning and self._function is None:
            seen = self._default_capture_seen
            self._default_capture = join(self._default_capture, value) if seen else value
            self._default_capture_seen = True

    def note_capture_exit(self, info: FunctionInfo, state: State) -> None:
        """A return of ``info``: what it leaves as the default capture stream."""
        if DEFAULT_CAPTURE_STREAM in state.env:
            info.summary.note_capture(True, state.env[DEFAULT_CAPTURE_STREAM])
        else:
            info.summary.note_capture(False, None)

    def _in_own_init(self, owner: Instance) -> bool:
        """``self.x = ...`` in the ``__init__`` of ``owner``'s class, on its ``self``."""
        info = self._function
        ref = owner.param
        return (
            info is not None
            and info.name == "__init__"
            and ref is not None
            and ref.owner is info
            and ref.index == 0
            and not ref.path
            and (owner.cls.methods.get("__init__") or owner.cls.method("__init__")) is info
        )


#: The "key" of an element a call adds to a list, deque or set outside its frame (``append``,
#: ``insert``, ``add``: :mod:`.registries`). Not a literal a program can spell as a key.
ADDED = Const(("<effect>", "added"))
#: The "key" of a rebinding outside the frame: the holder's attribute itself is the value
#: (``Cls.current = s``, ``_local.s = s``, ``var.set(s)``: what a shared holder holds).
REBOUND = Const(("<effect>", "rebound"))


def may_contain(values: list[Value]) -> Value:
    """A container whose element is one of ``values`` (positions unknown)."""
    interesting = [v for v in values if v is not None]
    if not interesting:
        return None
    return Seq((join_all(values),))


def is_symbolic(value: Value) -> bool:
    """Whether a value stands for a parameter of the function being summarised."""
    return isinstance(value, ExtStream) and value.param is not None
