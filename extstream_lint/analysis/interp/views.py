"""Which code runs for an instance: subclasses' views of the methods they inherit.

Python looks an attribute of an instance up through the MRO of the instance's class, so a
base class's method called on an instance of a subclass runs with ``self`` that instance:
``self._make_stream()`` in an inherited ``__init__`` runs the subclass's override, and
``self.stream`` in an inherited ``flush`` is what the subclass's instances hold. Summaries are
learnt once per function, with ``self`` an instance of the class that defines it; where a
subclass defines differently something such a method reads through ``self`` (a method, a
class attribute, an attribute its methods set, what ``super().name`` finds) and either
definition acts on streams (:func:`acts`), the method is run again for the subclass with
``self`` an instance of it: a *view* (:attr:`.values.ClassInfo.views`), which lookups through
the subclass's MRO answer (object sensitivity bounded by the class hierarchy of the file, as
in points-to analyses that key a method's context by its receiver's class). What a method
reads is syntax (:func:`self_uses`); whether a definition acts on streams is what a learning
pass learnt, so views are decided after each learning pass (:meth:`Views.decide_views`) and
a new one asks for one more pass. A base defined in another module has no view: its body
is not parsed here.

A view's body is the base's, shared with the base's other subclasses: an operation it finds
surely external there is made so by the caller's choice of the subclass (issue 38, family
2), so it is reported at the calls that apply the view (the innermost one: a call on a
parameter is applied where its argument is passed), never inside the base's method, as a
copy learnt with a caller's literal is (:mod:`.decisions`). Where no call in the module
applies the view (an instance handed to a registry, a thread), it stays at the operation,
as the class-level join does. The view is exported with its class, carrying what it decides
(:attr:`.values.FunctionInfo.view_decided`): a call in another module that applies it
reports it there (the views' module, linted alone, does not know its importers).
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef, Ref
from ..abstract.choices import OneOf
from ..abstract.sinks import SinkKey
from ..abstract.values import (
    Bound,
    ClassInfo,
    FunctionInfo,
    Instance,
    Module,
    Partial,
    Seq,
    Tensor,
    Value,
    is_caller_current,
)
from ..semantics.effects import handle_matches
from ..semantics.sites import Arg
from ..source.bodies import SelfUses, self_uses
from . import summaries as sm


class Views:
    """Subclasses' views of inherited methods: which to make, and what each runs as."""

    def method_run(
        self, node: cst.FunctionDef, cls: ClassInfo | None
    ) -> tuple[FunctionInfo, object]:
        """The function a deferred body runs as (a subclass's view, or the function
        itself) and the key of its scope (a view's locals are its own)."""
        view = self._views.get((node, id(cls))) if cls is not None else None
        if view is not None:
            return view, (node, id(cls))
        return self._functions[node], node

    def make_views(self, cls: ClassInfo, own_names: set[str]) -> None:
        """At the end of a class body: the views of base methods made for ``cls`` so far
        run after the enclosing scope, like its own methods; in a learning pass, the class
        is noted for :meth:`decide_views`. ``own_names``: what the class body binds."""
        for node, scope in self._class_views.get(id(cls), ()):
            view = self._views[(node, id(cls))]
            if self.learning:
                original = self._functions.get(node)
                if original is not None:
                    self._refresh_view(cls, original, view)
            self._deferred.append((node, scope, cls))
        if self.learning and len(cls.mro()) > 1:
            self._view_candidates.append((cls, own_names))

    def decide_views(self) -> bool:
        """After a learning pass, with what it learnt: make the views the noted classes
        need (:meth:`_views_for`). True if any is new: it runs from the next pass on."""
        candidates, self._view_candidates = self._view_candidates, []
        before = len(self._views)
        lookups: dict[int, _Lookup] = {}  # one per class: a base's serves each subclass
        for cls, own_names in candidates:
            self._views_for(cls, own_names, lookups)
        return len(self._views) > before

    def _views_for(self, cls: ClassInfo, own_names: set[str], lookups: dict[int, _Lookup]) -> None:
        """Make, for ``cls``, a view of each method of a base defined in this file whose
        body reads through ``self`` what ``cls`` (or a class before that base in its MRO)
        defines differently, where either definition does something to streams
        (:func:`acts`), transitively. ``lookups``: the ``_Lookup`` of each class met so
        far in this decision (a class's serves again as its subclasses' base's)."""
        mro = cls.mro()
        if not any(id(base) in self._class_nodes for base in mro[1:]):
            return  # no base defined in this file: no body to run again
        defined: set[str] = set()
        changed: set[str] = set()
        checked: set[str] = set()
        inits = {id(k) for k in cls.inits_run()}  # the same at every position
        mine = _lookup(cls, lookups)
        shadowed = _Shadowed()
        for position in range(1, len(mro)):
            before = mro[position - 1]
            self._shadow(before, shadowed)
            # What it defines: its methods, class attributes and the attributes its
            # methods set on ``self`` (learnt: ``attrs``).
            defined.update(before.methods, before.attrs)
            if position == 1:
                defined.update(own_names)
            base = mro[position]
            node = self._class_nodes.get(id(base))
            if node is None:  # another module's class: its bodies are not here
                continue
            fresh = defined - checked
            checked |= fresh
            if fresh:
                theirs = _lookup(base, lookups)
                changed.update(name for name in fresh if _differs(mine, theirs, name))
            methods = self._method_nodes(node)
            if not changed and not self._special_uses(node, methods):
                continue  # nothing it reads differs, no super() nor cls(...): the common case
            after = mro[position + 1 :]
            pending = {
                name: found
                for name, found in methods.items()
                if "staticmethod" not in found[1].decorators
            }
            if id(base) not in inits:
                # Its __init__ never runs for cls's instances (cls's own does not chain).
                pending.pop("__init__", None)
            for name in shadowed.names():
                pending.pop(name, None)
            grew = True
            while grew:
                grew = False
                for name, (fnode, info) in list(pending.items()):
                    uses = self._self_uses(fnode)
                    if (
                        uses.reads & changed
                        or any(self._super_differs(cls, base, after, n) for n in uses.super_reads)
                        or uses.makes_own
                        or (fnode, id(cls)) in self._views
                    ):
                        del pending[name]
                        changed.add(name)
                        changed.update(uses.writes)
                        self._view_of(cls, base, fnode, info)
                        grew = True

    def _shadow(self, klass: ClassInfo, shadowed: _Shadowed) -> None:
        """Add ``klass``, the next class of the MRO before a base, to ``shadowed``: its
        methods, and what they call through ``super()`` (one step per position, not the
        whole prefix again at each: that made a class n deep cost n^2, issue 43)."""
        if shadowed.foreign:
            return
        node = self._class_nodes.get(id(klass))
        if node is None:
            shadowed.foreign = True
            return
        shadowed.defined.update(klass.methods)
        for fnode, _ in self._method_nodes(node).values():
            shadowed.supered |= self._self_uses(fnode).super_reads

    @staticmethod
    def _super_differs(cls: ClassInfo, base: ClassInfo, after: list[ClassInfo], name: str) -> bool:
        """``super().name`` in ``base``'s method finds something else for an instance of
        ``cls`` (whose MRO continues differently after ``base``) that matters."""
        mine = _first_definition(after, name)
        theirs = _first_definition(base.mro()[1:], name)
        if mine is theirs:
            return False
        return acts(mine, cls) or acts(theirs, base)

    def _view_of(
        self, cls: ClassInfo, base: ClassInfo, node: cst.FunctionDef, original: FunctionInfo
    ) -> None:
        scope = self._scopes.get(self._class_nodes[id(base)])
        if scope is None or (node, id(cls)) in self._views:
            return
        view = self._views[(node, id(cls))] = FunctionInfo(original.name)
        self._view_origin[view] = original  # its findings are its callers' (decisions.py)
        self._class_views.setdefault(id(cls), []).append((node, scope))
        self._refresh_view(cls, original, view)

    @staticmethod
    def _refresh_view(cls: ClassInfo, original: FunctionInfo, view: FunctionInfo) -> None:
        """What the ``def`` says of the function (it ran again this pass), for the view."""
        view.params = original.params
        view.decorators = original.decorators
        view.defaults = original.defaults
        view.is_property = original.is_property
        view.predicate = original.predicate
        if original.returns_known:
            view.returns, view.returns_known = original.returns, True
        cls.views[original] = view

    def _special_uses(
        self, node: cst.ClassDef, methods: dict[str, tuple[cst.FunctionDef, FunctionInfo]]
    ) -> bool:
        """Some method of the class calls ``super()`` or its own class (kept per class)."""
        known = self._special.get(node)
        if known is None:
            uses = [self._self_uses(fnode) for fnode, _ in methods.values()]
            known = self._special[node] = any(u.super_reads or u.makes_own for u in uses)
        return known

    def _method_nodes(self, node: cst.ClassDef) -> dict[str, tuple[cst.FunctionDef, FunctionInfo]]:
        """The methods a class body defines, by name (the last ``def`` of a name wins;
        kept once the class body has run: its functions are the same in every pass)."""
        found = self._methods_of.get(node)
        if found is not None:
            return found
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        found = {}
        complete = True
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                info = self._functions.get(statement)
                if info is not None:
                    found[statement.name.value] = (statement, info)
                else:
                    complete = False
        if complete:
            self._methods_of[node] = found
        return found

    def _self_uses(self, node: cst.FunctionDef) -> SelfUses:
        return self._bodies.self_uses(node)  # one walk per method per run (bodies.py)


def acts(value: Value, cls: ClassInfo) -> bool:
    """Whether a class's attribute or method may matter to the analysis, on an instance of
    ``cls`` with nothing known of it but its class: a method with a sink, or that returns,
    yields, sets or makes current something that matters (:func:`_matters`)."""
    if not isinstance(value, FunctionInfo):
        return _matters(value)
    summary = value.summary
    if (
        value.returns is None
        and not summary.sinks
        and not summary.sets_attrs
        and not summary.yield_seen
        and not summary.capture_seen
        and (not summary.exit_seen or is_caller_current(summary.exit_current, value))
    ):
        return False  # the common case, without substituting anything
    binding = sm.Binding(value, {0: Arg(Instance(cls), None)}, None)
    if summary.capture_seen or any(_sink_applies(key, binding) for key in summary.sinks):
        return True
    made = [value.returns, *summary.sets_attrs.values()]
    if summary.yield_seen:
        made.append(summary.yielded)
    if any(_matters(sm.substitute(item, binding)) for item in made):
        return True
    return any(
        seen and not is_caller_current(current, value)
        for seen, current in (
            (summary.exit_seen, summary.exit_current),
            (summary.yield_seen, summary.yield_current),
        )
    )


class _Shadowed:
    """The methods the classes before a base in the MRO define, which an instance runs
    instead of the base's (so a view of the base's would run code no instance runs), but
    for those one of them calls through ``super()``. Nothing when one of them is another
    module's class (its bodies, and their ``super()`` calls, are not here)."""

    def __init__(self) -> None:
        self.defined: set[str] = set()
        self.supered: set[str] = set()
        self.foreign = False

    def names(self) -> set[str]:
        return set() if self.foreign else self.defined - self.supered


class _Lookup:
    """``cls.method(name) or cls.attr(name)`` for any name, from one walk of the MRO: each
    lookup walking the MRO again made a class n deep cost n^2 per subclass (issue 43)."""

    def __init__(self, cls: ClassInfo) -> None:
        self.cls = cls
        mro = cls.mro()
        self.methods: dict[str, FunctionInfo] = {}
        self.attrs: dict[str, Value] = {}
        runs: set[int] | None = None
        for owner in reversed(mro):  # the first in the MRO written last: it wins
            self.methods.update(owner.methods)
            if owner is cls or not owner.init_only:
                self.attrs.update(owner.attrs)
                continue
            if runs is None:
                runs = {id(k) for k in cls.inits_run()}
            if id(owner) in runs:
                self.attrs.update(owner.attrs)
            else:  # what only its __init__ sets, and that never runs: ClassInfo.attr
                skip = owner.init_only
                self.attrs.update((k, v) for k, v in owner.attrs.items() if k not in skip)

    def find(self, name: str) -> Value:
        found = self.methods.get(name)
        if found is not None:
            return self.cls.views.get(found, found)
        return self.attrs.get(name)


def _lookup(cls: ClassInfo, lookups: dict[int, _Lookup]) -> _Lookup:
    """``_Lookup(cls)``, made once per decision (what it copies does not change while
    views are decided: a view made meanwhile is read through ``cls.views`` at ``find``)."""
    found = lookups.get(id(cls))
    if found is None:
        found = lookups[id(cls)] = _Lookup(cls)
    return found


def _differs(mine: _Lookup, theirs: _Lookup, name: str) -> bool:
    """Whether ``name`` read through ``self`` may mean something else for an instance
    of ``mine.cls`` than for one of ``theirs.cls`` that matters here: either meaning acts on
    streams (what is learnt so far; a view made in a later pass is run from then on)."""
    found, other = mine.find(name), theirs.find(name)
    if found is other or (type(found) is ExtStream and found == other):
        return False  # the same stream: each class's join made anew (a device re-read)
    return acts(found, mine.cls) or acts(other, theirs.cls)


def _first_definition(order: list[ClassInfo], name: str) -> Value:
    for cls in order:
        if name in cls.methods:
            return cls.methods[name]
        if name in cls.attrs:
            return cls.attrs[name]
    return None


def _sink_applies(key: SinkKey, binding: sm.Binding) -> bool:
    """A sink that may be reached on an instance of the class: any but one guarded by a
    handle of ``self`` that is not that kind of handle (``with self._lock:`` is a capture
    only if ``self._lock`` is a graph)."""
    guard = key[3]
    if guard is None or guard[0] != 0:
        return True
    handle, _ = sm.resolve(ParamRef(binding.info, guard[0], guard[1]), binding)
    if isinstance(handle, ExtStream) and handle.param is not None:
        return True
    return handle_matches(guard[2], handle)


def _matters(value: Value, depth: int = 0) -> bool:
    """A value the analysis follows for its own sake: a real stream, a handle, a stream
    context, a tensor with a known place, a container or object holding one (what a
    parameter becomes, literals and unknown results do not)."""
    if value is None or isinstance(value, (Const, FunctionInfo)) or depth > 3:
        return False
    if isinstance(value, ExtStream):
        return value.param is None
    if isinstance(value, Tensor):
        made = value.made
        return bool(value.place) or (
            made is not None and any(s.param is None for s in made.streams)
        )
    if isinstance(value, Seq):
        return any(_matters(item, depth + 1) for item in (*value.items, value.key))
    if isinstance(value, Instance):
        held = (*(item for _, item in value.fields), *value.cls.attrs.values())
        return any(_matters(item, depth + 1) for item in held)
    if isinstance(value, ClassInfo):
        return any(_matters(item, depth + 1) for item in value.attrs.values())
    if isinstance(value, Ref):  # socket.AF_INET does not matter, torch.npu.Stream may
        return value.qualname.split(".", 1)[0] in ("torch", "torch_npu")
    return True


def carries_stream(value: Value, depth: int = 0) -> bool:
    """A value a bound's cut may lose a finding on: a stream, a handle, a tensor with a
    known place (:func:`_matters`), or a container, object, class, bound method,
    partial or choice of callees holding one. Functions, modules and what a parameter
    becomes do not: a cut on ordinary code that merely imports ``ExternalStream`` says
    nothing (a class attribute that is one of several functions, ``TYPE_CHECKER =
    {"int": check_builtin, ...}``, or a method bound to its class, is not a stream)."""
    if value is None or depth > 3 or isinstance(value, (FunctionInfo, Module)):
        return False
    inner: tuple[object, ...] | None = None
    if isinstance(value, OneOf):
        inner = value.options
    elif isinstance(value, Seq):
        inner = (*value.items, value.key)
    elif isinstance(value, Instance):
        inner = (*(item for _, item in value.fields), *value.cls.attrs.values())
    elif isinstance(value, ClassInfo):
        inner = tuple(value.attrs.values())
    elif isinstance(value, Bound):
        inner = (value.receiver,)
    elif isinstance(value, Partial):
        inner = (value.func, *value.args, *(item for _, item in value.keywords))
    if inner is not None:
        return any(carries_stream(item, depth + 1) for item in inner)  # type: ignore[arg-type]
    return _matters(value)


__all__ = ["SelfUses", "Views", "acts", "carries_stream", "self_uses"]
