"""Abstract values tracked by the interpreter, and how they merge where control flow joins.

The analysis only needs to know a few things about a Python value: is it an external stream
(surely, or only on some paths), a reference to a torch API object, an event, a graph, a
``torch.distributed`` work handle, a small literal, or nothing we care about (``None`` in
the environment, the bottom of the lattice).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Union


@dataclass(frozen=True)
class ExtStream:
    """A value that wraps an external stream, on every path (``must``) or on some (may)."""

    must: bool
    #: How the value became external, for messages: "created", "annotated", ...
    how: str
    #: The node where it became external (a call, ``with``, ``def`` or annotated assignment);
    #: its line goes into the message once positions are known.
    origin: object = field(compare=False)
    #: "ExternalStream" for the class, "external stream" for ``Stream(stream_ptr=...)``.
    noun: str = "ExternalStream"
    #: Set when the value is the *current* stream (``torch.npu.current_stream()`` while
    #: an external stream is current): the name that was made current.
    current_of: str | None = None
    #: ``None`` on some paths. Harmless for method calls (``None`` has no ``synchronize``),
    #: but ``torch.npu.stream(None)`` is a no-op, so making it current is only a "may".
    nullable: bool = False

    def weakened(self) -> ExtStream:
        return replace(self, must=False) if self.must else self


@dataclass(frozen=True)
class Ref:
    """A reference to a module, class or function, by canonical qualified name."""

    qualname: str


@dataclass(frozen=True)
class Const:
    """A literal small enough to matter for a pointer argument (int, bool, None, float, str)."""

    value: object


@dataclass(frozen=True)
class CVoidP:
    """A ``ctypes.c_void_p`` object: torch_npu's argument parser refuses it (TypeError)."""


@dataclass(frozen=True)
class Event:
    """A torch_npu or generic event: ``record()``/``wait()`` default to the current stream."""


@dataclass(frozen=True)
class Graph:
    """An ``NPUGraph``: ``capture_begin()``/``capture_end()`` use the current stream."""


@dataclass(frozen=True)
class CapturingGraph:
    """A ``torch.accelerator.Graph``: entering its ``with`` block captures on the current stream."""


@dataclass(frozen=True)
class Work:
    """A ``torch.distributed`` work handle: ``wait()`` blocks the current stream."""


@dataclass(frozen=True)
class StreamCtx:
    """``torch.npu.stream(s)``: entering it makes ``s`` current."""

    stream: Value
    label: str


@dataclass(frozen=True)
class Foreign:
    """An object of a known API that is not torch_npu's (``torch.cuda.CUDAGraph()``)."""


@dataclass(frozen=True)
class Seq:
    """A tuple or list display, kept element-wise for unpacking and iteration."""

    items: tuple[Value, ...]


@dataclass(eq=False)
class FunctionInfo:
    """A function defined in the analysed file; ``returns`` is filled by the first pass."""

    name: str
    returns: Value = None
    #: The return annotation decided it; ``return`` statements are not consulted.
    returns_known: bool = False
    returns_seen: bool = False
    #: ``@property``: reading the attribute calls it.
    is_property: bool = False


@dataclass(eq=False)
class ClassInfo:
    """A class defined in the analysed file: attributes assigned through ``self`` and methods."""

    name: str
    attrs: dict[str, Value] = field(default_factory=dict)
    methods: dict[str, FunctionInfo] = field(default_factory=dict)


@dataclass(frozen=True)
class Instance:
    """``self`` inside a method, or an instance of a class defined in the file."""

    cls: ClassInfo


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
    Seq,
    FunctionInfo,
    ClassInfo,
    Instance,
    None,
]


def join(a: Value, b: Value) -> Value:
    """Merge two values where control flow joins.

    ``None`` (the literal) does not dilute an external stream: a variable that is either
    ``None`` or an external stream can only be used as a stream when it is the latter.
    """
    if a == b:
        return a
    if isinstance(a, ExtStream):
        if isinstance(b, ExtStream):
            return replace(a, must=a.must and b.must, nullable=a.nullable or b.nullable)
        return replace(a, nullable=True) if _is_none(b) else a.weakened()
    if isinstance(b, ExtStream):
        return join(b, a)
    if isinstance(a, StreamCtx) or isinstance(b, StreamCtx):
        # ``torch.npu.stream(ext) if c else nullcontext()``: ext current on some paths.
        ctx = a if isinstance(a, StreamCtx) else b
        other = b if ctx is a else a
        stream = join(ctx.stream, other.stream) if isinstance(other, StreamCtx) else None
        if stream is None and isinstance(ctx.stream, ExtStream):
            stream = ctx.stream.weakened()
        return StreamCtx(stream, ctx.label)
    if isinstance(a, Seq) and isinstance(b, Seq) and len(a.items) == len(b.items):
        return Seq(tuple(join(x, y) for x, y in zip(a.items, b.items)))
    return None


def _is_none(value: Value) -> bool:
    return isinstance(value, Const) and value.value is None


def join_all(values: list[Value]) -> Value:
    """Join of a non-empty list of values."""
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result


@dataclass(frozen=True)
class Current:
    """The thread's current stream while it is (maybe) external, and where it was set."""

    stream: ExtStream
    label: str
    origin: object = field(compare=False)


def join_current(a: Current | None, b: Current | None) -> Current | None:
    if a == b:
        return a
    if a is None or b is None:
        known = a or b
        assert known is not None
        return Current(known.stream.weakened(), known.label, known.origin)
    return Current(join(a.stream, b.stream), a.label, a.origin)  # type: ignore[arg-type]


@dataclass
class State:
    """What is known at one program point: the bindings and the current stream."""

    env: dict[str, Value]
    current: Current | None = None
    #: Some key is a dotted path (``self.x``): rebinding ``self`` must forget it.
    has_paths: bool = False

    def copy(self) -> State:
        return State(dict(self.env), self.current, self.has_paths)

    def set_path(self, key: str, value: Value) -> None:
        """Bind an attribute path and forget the longer paths under it."""
        self.forget_paths_under(key)
        self.env[key] = value
        self.has_paths = True

    def forget_paths_under(self, name: str) -> None:
        if self.has_paths:
            prefix = name + "."
            for key in [k for k in self.env if k.startswith(prefix)]:
                del self.env[key]


def join_states(states: list[State | None]) -> State | None:
    """Join of the reachable states; ``None`` when none is reachable."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0].copy()
    first = live[0]
    env: dict[str, Value] = {}
    keys = set(first.env)
    for other in live[1:]:
        keys |= set(other.env)
    for key in keys:
        env[key] = join_all([s.env.get(key) for s in live])
    current = first.current
    for other in live[1:]:
        current = join_current(current, other.current)
    return State(env, current, any(s.has_paths for s in live))
