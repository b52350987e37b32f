"""Abstract values tracked by the interpreter, and how they merge where control flow joins.

The analysis only needs to know a few things about a Python value: is it an external stream
(surely, or only on some paths), a reference to a torch API object, an event, a graph, a
``torch.distributed`` work handle, a small literal, or nothing we care about (``None`` in
the environment, the bottom of the lattice).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Union

from .atoms import CALLER_CURRENT, PRESENT_HOW, Const, ExtStream, ParamRef, Ref
from .choices import Callee, OneOf, either
from .handles import CapturingGraph, CVoidP, Event, Foreign, Graph, PinnedLoader, Work
from .mro import bases_changed, bases_stamp, linearise_kept
from .records import renewed
from .sinks import Sink, SinkKey
from .tensors import HOST as HOST
from .tensors import NPU as NPU
from .tensors import PINNED as PINNED
from .tensors import UNKNOWN as UNKNOWN
from .tensors import Tensor, join_tensors


@dataclass(frozen=True)
class StreamCtx:
    """``torch.npu.stream(s)``: entering it makes ``s`` current."""

    stream: Value
    label: str
    #: What ``with ... as x`` binds (a ``@contextmanager`` helper's yielded value).
    yielded: Value = None
    #: Entering it leaves the current stream as it is (a helper that sets none).
    keeps_current: bool = False


@dataclass(frozen=True)
class Seq:
    """A tuple or list display, kept element-wise for unpacking and iteration."""

    items: tuple[Value, ...]
    #: A dict display with literal keys: ``(key, value)`` pairs, so ``d["a"]`` is the value
    #: stored under ``"a"`` and not every value of the dict (``items`` holds their join).
    keys: tuple[tuple[object, Value], ...] = ()
    #: A dict whose keys are not literals (``dict(zip(names, streams))``, a comprehension):
    #: iterating it gives ``key`` (the join of its keys), not the values in ``items``.
    is_dict: bool = False
    key: Value = None
    #: A ``defaultdict``'s: what reading a key not stored gives (what its factory made).
    default: Value = None


#: Stores into containers and attributes a function does not own that its summary keeps at
#: most (past it, the function's further effects on them are not seen at its calls).
MAX_STORES = 32


@dataclass(eq=False)
class Summary:
    """What one function does, in terms of its parameters; grows monotonically.

    Learnt and applied by :mod:`.summaries`; kept here, with the :class:`FunctionInfo` that
    owns it, so that values do not import the module that interprets them.
    """

    sinks: dict[SinkKey, Sink] = field(default_factory=dict)
    #: (parameter index, attribute path) -> value assigned (``self.x = s``).
    sets_attrs: dict[tuple[int, tuple[str, ...]], Value] = field(default_factory=dict)
    #: The current stream where the function returns (joined over every return).
    exit_current: Current | None = None
    exit_seen: bool = False
    #: The current stream at ``yield`` and the yielded value (``@contextmanager``).
    yield_current: Current | None = None
    yielded: Value = None
    yield_seen: bool = False
    #: ``torch.npu.graph.default_capture_stream = v`` in the body: the value where it
    #: returns, joined; ``capture_kept``: some return leaves the caller's value in place.
    capture_set: Value = None
    capture_seen: bool = False
    capture_kept: bool = False
    #: Calls of a function-valued parameter (:class:`.callables.ParamCall`), in order.
    calls: list[object] = field(default_factory=list)
    #: Attributes of ``self`` (by name) set from a call of a method of ``self``
    #: (``self.s = self._make(h)``): the method's name, the function the body ran for it and
    #: the call's arguments (a :class:`.callables.ParamCall`). Applied to an instance whose
    #: class resolves the name to another function (an override in a subclass of another
    #: module), the attribute is what that override returns (:mod:`.interp.receivers`).
    overridable: dict[str, tuple[str, FunctionInfo, object]] = field(default_factory=dict)
    #: Stores into a container the function does not own, under a key, of a value given in
    #: terms of its parameters (``REGISTRY[name] = cls``, ``Plugin.registry[key] = cls``):
    #: (holder, name, key, value), the holder ``("<module>", its name)`` (a global) or a class.
    #: Applied where the function is called (a class statement running a metaclass or
    #: ``__init_subclass__``: :mod:`.interp.registries`).
    stores: list[tuple[object, str, Value, Value]] = field(default_factory=list)
    #: The body turns grad mode on itself (``enable_grad()``, ``set_grad_enabled(True)``, as
    #: a context, a decorator or a call): what it returns may have history even when the
    #: caller is in no-grad mode (:mod:`.interp.gradmode`).
    grad_on: bool = False
    #: (parameter index, literal key) -> what it returns when a call passes that key (its
    #: body reads a dict with literal keys by it), for other modules (:mod:`.interp.constants`).
    by_literal: dict[tuple[int, object], Value] = field(default_factory=dict)
    #: Bumped on every change, so the interpreter knows when a learning pass is stable.
    version: int = 0

    def add_sink(self, key: SinkKey, sink: Sink) -> None:
        old = self.sinks.get(key)
        if old is None:
            self.sinks[key] = sink
            self.version += 1
            return
        merged = old
        if old.must and not sink.must:
            merged = replace(merged, must=False)
        if old.unless is not None and old.unless != sink.unless:
            # Another operation reaches the same parameter with no earlier check to
            # pre-empt it (``a.wait_event(e)`` beside ``a.wait_stream(b)``): always applies.
            merged = replace(merged, unless=None)
        if merged is not old:
            self.sinks[key] = merged
            self.version += 1

    def add_store(self, store: tuple[object, str, Value, Value]) -> None:
        if store not in self.stores and len(self.stores) < MAX_STORES:
            self.stores.append(store)
            self.version += 1

    def set_attr(self, key: tuple[int, tuple[str, ...]], value: Value) -> None:
        if key in self.sets_attrs:
            value = join(self.sets_attrs[key], value)
            if value == self.sets_attrs[key]:
                return
        self.sets_attrs[key] = value
        self.version += 1

    def note_exit(self, current: Current | None, owner: object) -> None:
        """A return with ``current`` current; ``owner``: the function whose caller's stream
        the body started with. The version moves only when a caller would see another
        effect (:func:`.summaries.current_change`): a first return that leaves the caller's
        stream current changes nothing a caller reads, so callers that ran before it in
        the pass need not run again."""
        merged = join_current(self.exit_current, current) if self.exit_seen else current
        if not self.exit_seen or merged != self.exit_current:
            before = self._exit_effect(owner)
            self.exit_current, self.exit_seen = merged, True
            if self._exit_effect(owner) != before:
                self.version += 1

    def _exit_effect(self, owner: object) -> Current | bool | None:
        """What returning does to a caller's current stream: ``False`` for nothing."""
        if not self.exit_seen:
            return False
        current = self.exit_current
        if is_caller_current(current, owner) and current.stream.must:  # type: ignore[union-attr]
            return False
        return current

    def note_capture(self, assigned: bool, value: Value) -> None:
        """At a return: whether the body assigned the default capture stream, and to what."""
        if not assigned:
            if not self.capture_kept:
                self.capture_kept = True
                if self.capture_seen:  # no caller can have used it before it was seen
                    self.version += 1
            return
        merged = join(self.capture_set, value) if self.capture_seen else value
        if not self.capture_seen or merged != self.capture_set:
            self.capture_set, self.capture_seen = merged, True
            self.version += 1

    def note_yield(self, current: Current | None, value: Value) -> None:
        if self.yield_seen:
            merged = join_current(self.yield_current, current)
            value = join(self.yielded, value)
        else:
            merged = current
        if not self.yield_seen or merged != self.yield_current or value != self.yielded:
            self.yield_current, self.yielded, self.yield_seen = merged, value, True
            self.version += 1


@dataclass(eq=False)
class FunctionInfo:
    """A function defined in the analysed file; ``returns`` is filled by the first pass."""

    name: str
    returns: Value = None
    #: The return annotation decided it; ``return`` statements are not consulted.
    returns_known: bool = False
    returns_seen: bool = False
    #: The learning pass whose ``return`` statements ``returns`` joins.
    returns_pass: int = -1
    #: ``@property``: reading the attribute calls it.
    is_property: bool = False
    #: Parameters in order: (name, kind) with kind "pos", "posonly", "kwonly", then "star"
    #: (``*args``) and "starstar" (``**kwargs``) when present.
    params: tuple[tuple[str, str], ...] = ()
    #: ``@staticmethod`` / ``@classmethod`` / ``@contextmanager`` (decorator tail names).
    decorators: frozenset[str] = frozenset()
    #: Default values by parameter index, where they may be streams (``def f(s=EXT)``).
    defaults: dict[int, Value] = field(default_factory=dict)
    #: ``(parameter index, True)``: it returns true exactly when that argument is an external
    #: stream (``False``: exactly when it is not); its calls narrow like ``isinstance``.
    predicate: tuple[int, bool] | None = None
    #: What calling it does, learnt while its body is analysed (:mod:`.summaries`).
    summary: Summary = field(default_factory=Summary)
    #: The function whose body defines it (its closure's parameters), if any.
    enclosing: FunctionInfo | None = None
    #: What its return annotation declares (an instance of a project class whose origin is
    #: unknown, :mod:`.interp.declared`): the result where the body's return is unknown.
    declared: Value = None
    #: Copies of the summary its module learnt for literals a caller in another module may
    #: give, keyed by (parameter index, attribute path, the literal's repr)
    #: (:mod:`..interp.variants`).
    variants: tuple[tuple[tuple[int, tuple[str, ...], str], FunctionInfo], ...] = ()
    view_decided: tuple = ()  # a view's surely external operations, for calls (decisions.py)


@dataclass(eq=False)
class ClassInfo:
    """A class defined in the analysed file: attributes assigned through ``self`` and methods."""

    name: str
    attrs: dict[str, Value] = field(default_factory=dict)
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    #: Base classes defined in the analysed project, in declaration order.
    bases: list[ClassInfo] = field(default_factory=list)
    #: Fields of a dataclass, ``NamedTuple`` or attrs class, in order (index access).
    fields: list[str] = field(default_factory=list)
    #: Attributes only this class's own ``__init__`` sets through ``self`` (a subclass whose
    #: ``__init__`` does not chain to it never gets them), and those set anywhere else.
    init_only: set[str] = field(default_factory=set)
    set_elsewhere: set[str] = field(default_factory=set)
    #: False when the class defines ``__init__`` and it calls no ``__init__`` of a base.
    init_chains: bool = True
    #: A base's method run again with ``self`` an instance of this class (its body reads
    #: what this class overrides): the base's function -> this class's view of it
    #: (:mod:`.interp.objects`). Lookups through this class's MRO answer the view.
    views: dict[FunctionInfo, FunctionInfo] = field(default_factory=dict)
    #: Decorated with ``typing.dataclass_transform()`` (or made by such a metaclass): the
    #: classes derived from it get a generated ``__init__`` taking their fields (PEP 681).
    transform: bool = False
    library: tuple[str, ...] = ()  #: library classes among its bases, by qualified name
    #: ``class C(metaclass=M)`` with ``M`` a class of the project (inherited: :mod:`.datamodel`).
    meta: ClassInfo | None = None
    #: ``@name.setter`` / ``@name.deleter`` functions of its properties, by ``("set", name)``
    #: / ``("delete", name)`` (an assignment or ``del`` runs them, :mod:`.interp.datamodel`).
    accessors: dict[tuple[str, str], FunctionInfo] = field(default_factory=dict)

    def __setattr__(self, name: str, value: object) -> None:
        if name == "bases":  # replaced, never changed in place: kept MROs may be stale
            bases_changed(self.__dict__.get("bases"), value)  # type: ignore[arg-type]
        object.__setattr__(self, name, value)

    def mro(self) -> list[ClassInfo]:
        """This class then its bases in Python's order (C3, :func:`linearise`), kept while
        no class has other bases (:func:`.mro.bases_stamp`; bookkeeping, not a fact: not in
        digests)."""
        if not self.bases:
            return [self]
        kept = self.__dict__.get("_mro")
        stamp = bases_stamp()
        if kept is not None and kept[0] == stamp:
            return kept[1]  # type: ignore[no-any-return]
        order, shape = linearise_kept(self, stamp)  # from the base's kept MRO if it can
        self.__dict__["_mro"] = (stamp, order, shape)
        return order

    def method(self, name: str) -> FunctionInfo | None:
        for cls in self.mro():
            found = cls.methods.get(name)
            if found is not None:
                return self.views.get(found, found)
        return None

    def attr(self, name: str) -> Value:
        for cls in self._with_attrs():
            if name in cls.attrs and not cls._init_skipped(name, self):
                return cls.attrs[name]
        return None

    def has_attr(self, name: str) -> bool:
        return any(
            name in cls.attrs and not cls._init_skipped(name, self) for cls in self._with_attrs()
        )

    def note_attr(self, name: str, in_init: bool) -> None:
        """``self.name = ...`` ran in this class's own ``__init__`` or somewhere else."""
        if in_init and name not in self.set_elsewhere:
            self.init_only.add(name)
        elif not in_init:
            self.set_elsewhere.add(name)
            self.init_only.discard(name)

    def _with_attrs(self) -> list[ClassInfo]:
        return self.mro() if self.bases else [self]

    def _init_skipped(self, name: str, instance_cls: ClassInfo) -> bool:
        """An attribute only this class's ``__init__`` sets, on an instance of
        ``instance_cls`` whose constructor never runs that ``__init__``."""
        if self is instance_cls or name not in self.init_only:
            return False
        return not any(cls is self for cls in instance_cls.inits_run())

    def inits_run(self) -> list[ClassInfo]:
        """The classes whose own ``__init__`` runs when this class is instantiated: the
        first ``__init__`` in the MRO, then the next for as long as each chains to a base."""
        running: list[ClassInfo] = []
        for cls in self.mro():
            if "__init__" in cls.methods:
                running.append(cls)
                if not cls.init_chains:
                    break
        return running


@dataclass(frozen=True)
class Instance:
    """``self`` inside a method, or an instance of a class defined in the file."""

    cls: ClassInfo
    #: Attributes known for this instance only (set by ``__init__`` from its arguments).
    fields: tuple[tuple[str, Value], ...] = ()
    #: ``self`` of the method being summarised.
    param: ParamRef | None = None
    #: Known only by a declared type (``p: Pool = factory()``, ``cast(Pool, x)``): only
    #: what the class guarantees every instance is read from it (:mod:`.interp.declared`).
    declared: bool = False

    def field(self, name: str) -> tuple[bool, Value]:
        for key, value in self.fields:
            if key == name:
                return True, value
        return False, None

    def with_field(self, name: str, value: Value) -> Instance:
        kept = tuple(item for item in self.fields if item[0] != name)
        return replace(self, fields=(*kept, (name, value)))


@dataclass(frozen=True)
class Bound:
    """A method read from an object and kept for later (``m = obj.flush``)."""

    func: FunctionInfo
    receiver: Value
    text: str | None


@dataclass(eq=False)
class Module:
    """A module of the analysed project, by its summary (:mod:`.index`)."""

    name: str
    #: Module-level names and what they hold (functions with summaries, classes, streams).
    exports: dict[str, Value] = field(default_factory=dict)
    #: ``__all__`` if the module spells it as a literal list of strings.
    all_names: tuple[str, ...] | None = None
    #: The file, relative to its import root, for messages.
    path: str = ""


# Values that carry a callable or a receiver to where it is used: ``functools.partial``, a
# refused method read and kept for later, ``__getattr__`` delegation.


@dataclass(frozen=True)
class Partial:
    """``functools.partial(f, *args, **kwargs)``: calling it calls ``f`` with them first."""

    func: Value
    args: tuple[object, ...]
    keywords: tuple[tuple[str, object], ...]
    #: The ``partial(...)`` call, for messages: where a torch method got its receiver.
    at: object = field(default=None, compare=False)
    #: ``f`` as written (``torch.npu.Stream.synchronize``), for messages.
    text: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class StreamMethod:
    """A refused method read from a stream or handle and kept for later (``poll = ext.query``,
    ``getattr(ext, "synchronize")``): a value that carries its receiver, so calling it is the
    method call on ``receiver``, checked then, with the current stream of then."""

    method: str
    #: The stream, handle or unknown object (``None``: ``side.wait_stream`` on a managed one).
    receiver: Value
    #: How the source names the receiver (``ext``), for messages.
    text: str | None
    #: Where the method was read (a libcst node or a :class:`Remote`): the message names it.
    bound_at: object = field(compare=False)


@dataclass(frozen=True)
class Forward:
    """``getattr(target, name)`` in a ``__getattr__``: every attribute the class lacks is
    read from ``target`` (delegation; a "may", since the class may still answer some)."""

    target: Value


Value = Union[
    ExtStream,
    Ref,
    Const,
    CVoidP,
    Event,
    Graph,
    CapturingGraph,
    Work,
    StreamCtx,
    Foreign,
    Tensor,
    PinnedLoader,
    Seq,
    FunctionInfo,
    ClassInfo,
    Instance,
    Bound,
    Partial,
    StreamMethod,
    Forward,
    Module,
    OneOf,
    None,
]

#: The kinds a join with ``None`` does not simply give the other value for.
_PLAIN_JOINS = frozenset((Const, ExtStream, StreamCtx))
#: What a call dispatches on: two different ones join into a :class:`.choices.OneOf`.
_CALLEES = (FunctionInfo, ClassInfo, Bound, Partial, Ref, Module, Callee)


def join(a: Value, b: Value) -> Value:
    """Merge two values where control flow joins.

    ``None`` (the literal) dilutes neither an external stream nor an object: a variable that
    is either ``None`` or a stream (a function, an object, a container: the optional-import
    idiom) can only be used as one when it is the latter.
    """
    # Kinds by exact type (no value class has a subclass; isinstance was a third of a join's
    # calls). Values of two kinds are never equal: a dataclass's ``==`` is not asked.
    if a is b:
        return a
    kind_a, kind_b = type(a), type(b)
    if kind_a is kind_b and a == b:  # a dataclass's ``==`` compares every field
        return a
    if kind_a is Const and a.value is None:  # type: ignore[union-attr]
        other = b
    elif kind_b is Const and b.value is None:  # type: ignore[union-attr]
        other = a
    else:
        other = None
    if other is not None and type(other) not in _PLAIN_JOINS:
        return other
    if kind_a is ExtStream:
        if kind_b is ExtStream:
            if (a.param is None) != (b.param is None):
                # A real external stream wins over a symbolic one (which may be anything).
                real = a if a.param is None else b
                return real.weakened()
            refs = tuple(dict.fromkeys((*a.refs(), *b.refs())))
            union = len(refs) > len(a.refs())  # each parameter only on some paths
            return renewed(
                a,
                how=a.how if a.how == b.how or a.how != PRESENT_HOW else "passed",
                must=a.must and b.must and not union,
                nullable=a.nullable or b.nullable,
                also=refs[1:],
                device=a.device | b.device if a.device and b.device else None,
            )
        return renewed(a, nullable=True) if is_none(b) else a.weakened()
    if kind_b is ExtStream:
        return join(b, a)
    if kind_a is StreamCtx or kind_b is StreamCtx:
        # ``torch.npu.stream(ext) if c else nullcontext()``: ext current on some paths.
        ctx = a if isinstance(a, StreamCtx) else b
        other = b if ctx is a else a
        stream = join(ctx.stream, other.stream) if isinstance(other, StreamCtx) else None
        if stream is None and isinstance(ctx.stream, ExtStream):
            stream = ctx.stream.weakened()
        return StreamCtx(stream, ctx.label)
    if kind_a is Seq and kind_b is Seq:
        return _join_seqs(a, b)  # type: ignore[arg-type]
    if kind_a is StreamMethod and kind_b is StreamMethod and a.method == b.method:  # type: ignore[union-attr]
        # ``(a if c else b).query`` kept for later: the same method of either receiver.
        text = a.text if a.text == b.text else None
        return StreamMethod(a.method, join(a.receiver, b.receiver), text, a.bound_at)
    if kind_a is Tensor and kind_b is Tensor:
        return join_tensors(a, b)  # type: ignore[arg-type]
    tensor, other = (a, b) if kind_a is Tensor else (b, a)
    if type(tensor) is Tensor and tensor.made is not None and _is_number(other):  # type: ignore[union-attr]
        # ``total = 0`` then ``total = total + loss``: a number has no backward, so where
        # the value is used as a root it is the tensor, computed where it was.
        return Tensor(made=tensor.made)
    if kind_a is Instance and kind_b is Instance and a.cls is b.cls:  # type: ignore[union-attr]
        mine, theirs = dict(a.fields), dict(b.fields)
        fields = tuple((k, join(mine.get(k), theirs.get(k))) for k in {**mine, **theirs})
        param = a.param if a.param == b.param else None
        return Instance(a.cls, fields, param, a.declared or b.declared)
    if isinstance(a, _CALLEES) and isinstance(b, _CALLEES):  # ``f = a if c else b``
        return either(a, b)
    if (kind_a is Instance or kind_a is OneOf) and (kind_b is Instance or kind_b is OneOf):
        return either(a, b)  # objects of two classes: ``for cb in self.callbacks: cb.hook()``
    return None


def _join_seqs(a: Seq, b: Seq) -> Value:
    """Literal keys key by key; same lengths element-wise; else any element (grown on a path)."""
    if all((s.keys or s.is_dict) and (s.keys or not s.items) for s in (a, b)):
        mine, theirs = dict(a.keys), dict(b.keys)  # a key stored on one path only: d[k]
        keys = tuple((k, _either(mine.get(k), theirs.get(k))) for k in {**mine, **theirs})
        default = _either(a.default, b.default)  # did not raise on the path that stored it
        held = (join_any([v for _, v in keys]),) if keys else ()
        return Seq(held, keys, is_dict=not keys, default=default)
    dicts = [bool(s.keys or s.is_dict) for s in (a, b)]
    if len(a.items) == len(b.items) or dicts[0] != dicts[1]:
        items = tuple(join(x, y) for x, y in zip(a.items, b.items))
        if a.is_dict and b.is_dict:  # still a dict: iterating gives keys, not values
            return Seq(items, is_dict=True, key=join(a.key, b.key))
        return Seq(items) if len(a.items) == len(b.items) else None
    key = join_all([*(Const(k) for k, _ in (*a.keys, *b.keys)), a.key, b.key]) if dicts[0] else None
    return Seq((join_all([*a.items, *b.items]),), is_dict=dicts[0], key=key)


def _either(a: Value, b: Value) -> Value:
    one = a if b is None else b if a is None else None  # a container or object: the value
    return one if isinstance(one, (Seq, Instance)) else join(a, b)


def is_none(value: Value) -> bool:
    """The literal ``None``."""
    return type(value) is Const and value.value is None  # type: ignore[union-attr]


def _is_number(value: Value) -> bool:
    return isinstance(value, Const) and type(value.value) in (int, float)


def join_all(values: list[Value]) -> Value:
    """Join of a non-empty list of values."""
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result


def join_any(values: list[Value]) -> Value:
    """Any one of ``values`` (a dict's values read by a key not known): :func:`join_all`,
    except that a container some of them are and others are not (``None``: nothing the
    analysis follows, such as a lane of managed streams) is kept, its elements on some
    paths only, as ``join`` keeps a stream external on some paths."""
    present = [v for v in values if v is not None]
    result = join_all(present) if present else None
    if isinstance(result, Seq) and len(present) < len(values):
        return _on_some_paths(result, 0)
    return join_all(values) if values else None


def _on_some_paths(value: Value, depth: int) -> Value:
    if isinstance(value, ExtStream):
        return value.weakened()
    if not isinstance(value, Seq) or depth > 2:
        return value
    items = tuple(_on_some_paths(v, depth + 1) for v in value.items)
    keys = tuple((k, _on_some_paths(v, depth + 1)) for k, v in value.keys)
    return Seq(items, keys, value.is_dict, value.key)


@dataclass(frozen=True)
class Current:
    """The thread's current stream while it is (maybe) external, and where it was set."""

    stream: ExtStream
    label: str
    origin: object = field(compare=False)


def is_caller_current(current: Current | None, owner: object) -> bool:
    """``current`` is the caller's own current stream, as ``owner``'s body started with it
    (on every path when its stream is a "must")."""
    return current is not None and current.stream.param == ParamRef(owner, CALLER_CURRENT)


def join_current(a: Current | None, b: Current | None) -> Current | None:
    if a is b or a == b:  # the same object most often: no field-by-field ``==``
        return a
    if a is None or b is None:
        known = a or b
        assert known is not None
        return Current(known.stream.weakened(), known.label, known.origin)
    if a.stream.param is not None and b.stream.param is None:
        a, b = b, a  # name the real stream in messages, not the symbolic one
    elif a.stream.param is not None and a.stream.param.index == CALLER_CURRENT:
        # Keep the stream a path made current, not the caller's: the caller's would read
        # as "nothing changed" (summaries.current_change) and lose the other path.
        a, b = b, a
    return Current(join(a.stream, b.stream), a.label, a.origin)  # type: ignore[arg-type]
