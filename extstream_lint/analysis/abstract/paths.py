"""One step along a parameter path, on any value: what ``x.name``, ``x[k]``, ``x[...]`` and
"an element of x" are, for the values the analysis knows and for symbolic ones.

A summary names what a function reads of its parameters as paths (``s.comm``, ``streams[]``:
:class:`.values.ParamRef`); applying it walks the same steps on what the caller passes
(:func:`.summaries.resolve`), and the interpreter takes the steps on the values it holds.
One definition for both keeps a summary meaning what the body saw.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from .atoms import REACHED, Const, ExtStream, ParamRef
from .choices import OneOf
from .handles import PinnedLoader
from .members import Member
from .records import renewed
from .tensors import FLAGGED, device_of
from .values import (
    PINNED,
    Bound,
    ClassInfo,
    Instance,
    Partial,
    Seq,
    Tensor,
    Value,
    is_none,
    join,
    join_all,
)
from .widening import reached

__all__ = [
    "ENTERED",
    "ITEMS",
    "ITERATED",
    "PARAM_KEY",
    "SUBSCRIPTED",
    "along",
    "attribute",
    "contents",
    "element",
    "item",
    "key_position",
    "literal_key",
    "param_keyed",
    "plan_of",
    "symbolic",
]


def symbolic(ref: ParamRef, must: bool = True) -> ExtStream:
    """The stand-in for whatever the caller passes: never reported, only summarised."""
    return ExtStream(must, "passed", None, param=ref)


#: Path steps: an element met by iterating the value, and one read by subscript or get().
#: They differ for dicts (keys vs values).
ITERATED = "[]"
SUBSCRIPTED = "[v]"
#: A path step: what entering a context manager parameter gives (``async with cm as s``).
ENTERED = "<entered>"
#: A path step of a module global's read (:class:`.atoms.GlobalSlot`) keyed by a parameter:
#: ``"[@0]"``, the item under the caller's argument 0 when it is a literal.
PARAM_KEY = "[@"


def element(value: Value) -> Value:
    """An element of an iterable value (``for s in streams``).

    Iterating a dict gives its keys: for a display with literal keys those are the
    literals, not the streams stored under them.
    """
    if isinstance(value, Seq) and value.keys:
        return join_all([Const(key) for key, _ in value.keys])
    if isinstance(value, Seq) and value.is_dict:
        return value.key
    if isinstance(value, ExtStream) and value.param is not None:
        return _step(value, ITERATED)
    if isinstance(value, PinnedLoader):  # a batch: every tensor in it is pinned
        return Tensor(PINNED)
    return contents(value)


#: The pseudo-field of an instance of a mapping class (``collections.abc.MutableMapping``):
#: what was stored in it under each literal key (:mod:`..interp.mappings`).
ITEMS = "<items>"


def item(value: Value, key: str | int) -> Value:
    """``value[key]`` for a literal ``key``: the value stored under it when known."""
    if isinstance(value, Seq):
        for known, stored in value.keys:
            if type(known) is type(key) and known == key:
                return stored
        if value.keys or value.default is not None:  # a literal key not among them
            return value.default
        if not value.keys and type(key) is int and -len(value.items) <= key < len(value.items):
            return value.items[key]
    if isinstance(value, ExtStream) and value.param is not None:
        return _step(value, f"[{key!r}]")
    if type(value) is Instance and value.fields:  # a mapping's, under that key
        held = value.field(ITEMS)[1]
        if held is not None:
            return item(held, key)
    return contents(value)


def param_keyed(value: ExtStream, key: Value, offset: int = 0) -> ExtStream | None:
    """``value[p + offset]``, ``value`` and ``p`` parameters of one function (a helper's
    ``links[rank]``): the step names ``p``'s position (``"[@1]"``, ``"[@1+1]"``), so applying
    the summary reads the item under what the call passed there (:func:`.summaries.resolve`);
    ``None`` where ``key`` is not such a parameter (then it is any item: :func:`contents`)."""
    ref = key.param if type(key) is ExtStream else None
    owner = value.param.owner if value.param is not None else None
    if ref is None or key.also or ref.path or ref.index < 0 or ref.owner is not owner:  # type: ignore[union-attr]
        return None
    return _step(
        value, f"{PARAM_KEY}{ref.index}{offset:+d}]" if offset else f"{PARAM_KEY}{ref.index}]"
    )


#: :func:`key_position` of each step text met.
_POSITIONS: dict[str, tuple[int, int]] = {}


def key_position(step: str) -> tuple[int, int]:
    """The parameter position and offset a :data:`PARAM_KEY` step names: ``"[@1+1]"``."""
    try:
        return _POSITIONS[step]
    except KeyError:
        inner = step[len(PARAM_KEY) : -1]
        cut = max(inner.find("+"), inner.find("-"))
        found = (int(inner), 0) if cut < 0 else (int(inner[:cut]), int(inner[cut:]))
        _POSITIONS[step] = found
        return found


def contents(value: Value) -> Value:
    """What a subscript, ``get()`` or ``pop()`` of a container gives: any of its values."""
    if isinstance(value, Seq) and (value.items or value.default is not None):
        held = value.items if value.default is None else (*value.items, value.default)
        return join_all(list(held))
    if isinstance(value, ExtStream) and value.param is not None:
        return _step(value, SUBSCRIPTED)
    if isinstance(value, Tensor) and (value.place or value.made):
        # An element, or a view: the same memory, computed where the tensor was.
        return Tensor(value.place, value.index, value.made)
    if type(value) is Instance and value.fields:  # a mapping's: any of its values
        held = value.field(ITEMS)[1]
        return contents(held) if held is not None else None
    return None


#: The longest parameter path followed (k-limited access paths, as points-to analyses
#: bound them), and how often one step may repeat in it: beyond either it is "unknown". A
#: recursive structure (``self._stream`` delegating to another wrapper, ``node.next``)
#: otherwise grows a path by one step in every learning pass, and summaries never settle;
#: ``self.model.model.layers`` keeps its repeat.
MAX_PATH = 6
MAX_REPEAT = 2
_WIDE = (REACHED,)


def _extends(path: tuple[str, ...], step: str) -> bool:
    """Whether ``path`` may take one more ``step`` (:data:`MAX_PATH`, :data:`MAX_REPEAT`)."""
    if path[-1:] == _WIDE:  # widened (:mod:`.widening`): no step is followed past it
        return step == REACHED
    return len(path) < MAX_PATH and path.count(step) < MAX_REPEAT


def _step(value: ExtStream, step: str) -> ExtStream | None:
    """``value.step`` of a symbolic value: the same step on every parameter it may be."""
    param = value.param
    if param is not None and not value.also:  # one parameter path, the common case
        return symbolic(param.child(step), value.must) if _extends(param.path, step) else None
    refs = [ref for ref in value.refs() if _extends(ref.path, step)]
    if not refs or refs[0] is not value.param:
        return None
    first, *others = (ref.child(step) for ref in refs)
    made = symbolic(first, value.must)
    # ``renewed``, not ``replace`` (which reads every field and runs ``__init__`` again):
    # 46,000 times on the stdlib overlay, once the parameter paths a value keeps grew.
    return renewed(made, also=tuple(others)) if others else made


def along(value: ExtStream, steps: tuple[str, ...]) -> ExtStream | None:
    """:func:`_step` taken for each of ``steps`` in turn on a symbolic value (``steps`` as
    :func:`_step` spells them), the values in between never made.

    Applying a summary walks its parameter paths on what the caller passed, which is most
    often the caller's own parameter: a step per path element made a parameter path, a
    symbolic value and its checks (about a dozen calls), and a value that may be any of k
    paths k of each (inspect's ``object.__func__.__code__...``, up to 160 paths). Here each
    step is a test and a tuple per path, and the paths left are made once, at the end: the
    same paths, kept or dropped by :data:`MAX_PATH` and :data:`MAX_REPEAT` step by step, and
    ``None`` once the first path (the value's own ``param``) cannot take a step.
    """
    if not steps:
        return value
    refs = value.refs()
    grown: list[tuple[str, ...] | None] = [ref.path for ref in refs]
    count = len(grown)
    for step in steps:
        first = grown[0]
        if first[-1:] == _WIDE:  # type: ignore[index]  # widened: no step past it
            if step != REACHED:
                return None
        elif first[MAX_PATH - 1 :] or (step in first and first.count(step) >= MAX_REPEAT):  # type: ignore[index, operator, union-attr]
            return None
        else:
            grown[0] = (*first, step)  # type: ignore[misc]
        for i in range(1, count):
            path = grown[i]
            if path is None:
                continue
            if path[-1:] == _WIDE:
                grown[i] = path if step == REACHED else None
                continue
            if path[MAX_PATH - 1 :] or (step in path and path.count(step) >= MAX_REPEAT):
                grown[i] = None
            else:
                grown[i] = (*path, step)
    made = [ParamRef(r.owner, r.index, p) for r, p in zip(refs, grown) if p is not None]
    return ExtStream(value.must, "passed", None, param=made[0], also=tuple(made[1:]))


#: Per rest of a parameter path: the steps :func:`along` takes for it on a symbolic value
#: (a literal key as :func:`item` spells it), and whether each step keeps the source text
#: (an attribute); ``None`` for a path with a step that reads the caller's binding
#: (:data:`PARAM_KEY`) or leaves no stream (:data:`ENTERED`).
_PLANS: dict[tuple[str, ...], tuple[tuple[str, ...], bool] | None] = {}


def plan_of(rest: tuple[str, ...]) -> tuple[tuple[str, ...], bool] | None:
    """How :func:`along` walks ``rest`` (a summary's path steps), worked out once per path."""
    try:
        return _PLANS[rest]
    except KeyError:
        pass
    steps: list[str] = []
    plain = True
    for step in rest:
        if step == ENTERED or step.startswith(PARAM_KEY):
            _PLANS[rest] = None
            return None
        if step.startswith("[") and step not in (ITERATED, SUBSCRIPTED):
            steps.append(f"[{literal_key(step)!r}]")  # a literal key, as :func:`item` has it
        else:
            steps.append(step)
        plain = plain and not step.startswith(("[", "<"))
    plan = _PLANS[rest] = (tuple(steps), plain)
    return plan


#: Literal keys of path steps, read once per step text: ``ast.literal_eval`` compiles its
#: argument, and applying summaries reads the same few steps tens of thousands of times.
_KEYS: dict[str, str | int] = {}


def literal_key(step: str) -> str | int:
    """The key of a path step such as ``"['ext']"`` or ``"[0]"``."""
    try:
        return _KEYS[step]
    except KeyError:
        key = _KEYS[step] = ast.literal_eval(step[1:-1])
        return key


def attribute(value: Value, name: str) -> Value:
    """``value.name`` for instances and symbolic values (what a summary path step means)."""
    kind = type(value)  # exact kinds: no value class has a subclass
    if name == REACHED and not (kind is ExtStream and value.param is not None):  # type: ignore[union-attr]
        return reached(value)  # a widened path's last step (:mod:`.widening`)
    if kind is Instance:
        found, known = value.field(name)
        if found:
            return known
        cls_value = value.cls.attr(name)
        if value.declared and type(cls_value) is ExtStream and not _guaranteed(cls_value):
            cls_value = None  # a declared type: only the streams every instance is given
        if value.param is None:
            if cls_value is None:  # obj.m of a parameter's path, resolved: the bound method
                method = value.cls.method(name)
                if method is not None and not method.is_property:
                    return Bound(method, value, None)
            return cls_value
        if not _extends(value.param.path, name):
            return cls_value if type(cls_value) is ExtStream and not cls_value.param else None
        if type(cls_value) is Instance and cls_value.param is None and _is_holder(cls_value):
            # ``self.jobs = queue.Queue()``: for this ``self``, the queue the caller's object
            # holds (what another method put there travels with the instance)
            return replace(cls_value, param=value.param.child(name))
        if type(cls_value) is Instance and cls_value.param is None:
            # ``self.kv = KVConnector(dev)``: what the class built is the class's own state
            # (``self.kv.stream``, its methods); only the fields it took from another call's
            # parameters are, for this ``self``, whatever the caller's instance holds.
            return _rebased(cls_value, value.param.child(name))
        if _holds_parameter(cls_value):
            # ``self.streams = [s]`` in ``__init__``: the class only saw another call's
            # parameter; for this ``self`` it is whatever the caller's instance holds.
            return symbolic(value.param.child(name))
        if type(cls_value) is ExtStream and cls_value.param is None:
            return cls_value
        if cls_value is None or is_none(cls_value):
            return (
                join(cls_value, symbolic(value.param.child(name)))
                if cls_value
                else symbolic(value.param.child(name))
            )
        return cls_value
    if kind is ExtStream and value.param is not None:  # type: ignore[union-attr]
        return _step(value, name)  # type: ignore[arg-type]
    if kind is Tensor and name == "device":  # a helper's ``t.device``: where the caller's is
        placed = device_of(value)  # type: ignore[arg-type]
        return None if placed is None else Const(placed)
    if kind is OneOf:  # cb.hook of ``for cb in self.callbacks``: each object's, joined
        return join_all([attribute(option, name) for option in value.options])  # type: ignore[union-attr]
    if kind is ClassInfo:  # KINDS[cls.__name__] = cls, KINDS[cls.kind] = cls
        return Const(value.name) if name == "__name__" else value.attr(name)  # type: ignore[union-attr]
    member = value.value if kind is Const else None  # type: ignore[union-attr]
    if isinstance(member, Member) and type(member.cls) is ClassInfo:
        method = member.cls.method(name)  # algo.stream(h), algo an enum member passed in
        if method is not None and not method.is_property:
            return Bound(method, value, None)
    if kind is Tensor and value.made is not None:  # type: ignore[union-attr]
        # ``model(**batch).loss``: read from a value computed under a stream, so was it.
        return Tensor(made=value.made)
    return None


def _guaranteed(value: Value) -> bool:
    """An external stream on every path, made by the class's own code."""
    return isinstance(value, ExtStream) and value.must and value.param is None


def _is_holder(instance: Instance) -> bool:
    """An object a flow-model row made (a queue: its class is named after the library's,
    dotted, with no methods of the project) holding nothing of its own yet."""
    cls = instance.cls
    return "." in cls.name and not cls.methods and not instance.fields and not cls.bases


def _rebased(instance: Instance, ref: ParamRef) -> Instance:
    """``instance`` with each field that holds a parameter read from ``ref`` instead."""
    if not any(_holds_parameter(item) for _, item in instance.fields):
        return instance
    fields = tuple(
        (key, symbolic(ref.child(key)) if _holds_parameter(item) else item)
        for key, item in instance.fields
    )
    return replace(instance, fields=fields)


def _holds_parameter(value: Value, depth: int = 0) -> bool:
    """A symbolic value inside a container or holder (``[s]``, ``Holder(s)``), or bound by
    ``functools.partial`` (its arguments are :class:`.sites.Arg`)."""
    if depth > 6:
        return False
    kind = type(value)
    if kind is ExtStream:
        return value.param is not None  # type: ignore[union-attr]
    if kind is Tensor:  # pinned or not as a parameter said: the caller's allocation's own
        return value.place == FLAGGED  # type: ignore[union-attr]
    if kind is Seq:
        return any(_holds_parameter(item, depth + 1) for item in value.items)  # type: ignore[union-attr]
    if kind is Instance:
        return any(_holds_parameter(item, depth + 1) for _, item in value.fields)  # type: ignore[union-attr]
    if kind is Partial:  # ``self.send = partial(send, non_blocking=flag)``
        bound = (*value.args, *(arg for _, arg in value.keywords))
        held = (value.func, *(getattr(arg, "value", None) for arg in bound))
        return any(_holds_parameter(item, depth + 1) for item in held)
    return False
