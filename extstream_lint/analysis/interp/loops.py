"""What a loop carries round, and when running its body once more can tell something new.

A value a loop body assigns may be read by the next iteration: ``a, b, c = b, c, ext`` makes
``a`` external in the third iteration only. Running the body until the whole state stops
changing re-runs almost every loop of ordinary code (a counter, a literal, a growing list
change every time) for nothing the rules read. So :meth:`Statements._loop` runs the body
again (silenced) only while the state at the loop's head changes in what the analysis
reports on: its :func:`stream_view`, the part of each binding that holds an external stream,
a stream-related handle, a tensor computed under an external stream or in pinned or NPU
memory, with the containers and objects that hold them. Everything else is widened by the
join, as one run always did.

The runs are bounded per loop by the names and attribute paths its body assigns and also reads
(:func:`carried`: each may move a stream one step further round a rotation), plus one, and
at most :data:`MAX_RUNS`: a run that stops at the cap reports on the state it has
(``docs/limitations.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from ..abstract.atoms import CALLER_CURRENT, Const, ExtStream, ParamRef, Ref
from ..abstract.callables import Closure
from ..abstract.choices import OneOf
from ..abstract.made import stream_key
from ..abstract.state import State
from ..abstract.values import (
    NPU,
    PINNED,
    Bound,
    ClassInfo,
    Forward,
    FunctionInfo,
    Instance,
    Module,
    Partial,
    Seq,
    Tensor,
    Value,
)
from ..semantics.sites import Arg
from ..source.syntax import children, dotted_name, push_children

__all__ = ["MAX_RUNS", "carried", "carries_news", "stream_view"]

#: Silenced runs of one loop's body, at most, before the run that reports (or, in a
#: learning pass, in all). Rotations of more names than this are cut.
MAX_RUNS = 8

#: Mutators that return nothing: a statement ``q.append(v)`` changes ``q`` by what it is
#: given, never by what ``q`` held, so it assigns ``q`` without reading it (a list a loop
#: only fills is not carried round: one more run would append the same values).
_WRITE_ONLY = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "extendleft",
        "insert",
        "add",
        "update",
        "put",
        "put_nowait",
    }
)

#: Values that hold no stream fact: what they are is widened by the join like a counter.
_PLAIN = (Const, Ref, FunctionInfo, ClassInfo, Module, OneOf)

#: Containers deeper than this are compared as "too deep to tell" (no news).
_MAX_DEPTH = 12

#: Stands for a part nested too deeply to look into.
_DEEP = object()

#: Methods that change the container they are called on (:mod:`.containers`, ``deque``, ``set``).
_MUTATORS = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "extendleft",
        "insert",
        "pop",
        "popleft",
        "popitem",
        "remove",
        "clear",
        "setdefault",
        "update",
        "add",
        "discard",
        "rotate",
        "reverse",
        "sort",
        "put",
        "put_nowait",
    }
)


def stream_view(value: Value, depth: int = 0) -> object:
    """The part of ``value`` a finding can depend on: None when it holds no external stream,
    handle or tensor fact; streams, handles and tensors themselves; containers, objects,
    bound methods and partials by the parts of them that hold one.

    A caller's value (a parameter's path) is widened to its parameter and first step: a
    loop that walks it (``rest = rest.partition(sep)[2]``, ``node = node.next``) grows the
    path each run, and telling those apart ran such loops to their bound for no finding.
    A value that may be several such paths is the set of them widened, whichever is listed
    first: a join lists ``e.cause`` first and ``e.cause.cause`` among the others, whose
    widened form is the first's again (traceback's queue of causes and contexts ran once
    more per call for that). Names swapping parameters, or a parameter's attributes, still
    carry news."""
    if value is None or isinstance(value, _PLAIN):
        return None
    if depth > _MAX_DEPTH:
        return _DEEP
    kind = type(value)
    depth += 1
    if kind is Seq:
        items = tuple(stream_view(item, depth) for item in value.items)  # type: ignore[union-attr]
        keys = tuple((k, stream_view(v, depth)) for k, v in value.keys)  # type: ignore[union-attr]
        key = stream_view(value.key, depth)  # type: ignore[union-attr]
        if key is None and all(v is None for v in items) and all(v is None for _, v in keys):
            return None
        return (Seq, items, keys, key)
    if kind is Instance:
        fields = tuple(
            (name, view)
            for name, view in ((n, stream_view(v, depth)) for n, v in value.fields)  # type: ignore[union-attr]
            if view is not None
        )
        return (Instance, id(value.cls), fields) if fields else None  # type: ignore[union-attr]
    if kind is Bound:
        return _holding(Bound, [value.receiver], depth)  # type: ignore[union-attr]
    if kind is Forward:
        return _holding(Forward, [value.target], depth)  # type: ignore[union-attr]
    if kind is Partial:
        given = [*value.args, *(v for _, v in value.keywords)]  # type: ignore[union-attr]
        parts = [part.value if isinstance(part, Arg) else part for part in given]
        return _holding(Partial, parts, depth)  # type: ignore[arg-type]
    if kind is Closure:
        parts = [v for _, bound in value.captured for _, v in bound]  # type: ignore[union-attr]
        return _holding(Closure, parts, depth)
    if kind is ExtStream:  # which stream, and on which NPU: not whether on every path
        if value.param is not None:  # type: ignore[union-attr]
            # widened: the parameters it may be, each by its first step only, as one set
            refs = frozenset(_widened(ref) for ref in value.refs())  # type: ignore[union-attr]
            return (ExtStream, refs)
        return (ExtStream, stream_key(value), value.device)  # type: ignore[arg-type,union-attr]
    if kind is Tensor:
        return _tensor_view(value)  # type: ignore[arg-type]
    return value  # a handle, a stream context or method


def _widened(ref: ParamRef) -> tuple[object, ...]:
    """A caller's value by its parameter and first step; the calls a summary keeps on them
    (negative indices below the caller's current stream, one per call made) all as one."""
    index = ref.index if ref.index >= CALLER_CURRENT else None
    return (ref.owner if index is not None else None, index, ref.path[:1])


def _tensor_view(tensor: Tensor) -> object:
    """The external streams a tensor was computed under, and its memory when pinned or on a
    visible NPU; None for a tensor no rule can report on by itself (a counter, ``x = x + 1``,
    or one whose provenance is only a summarised function's parameters: what the caller
    passes is not iterated)."""
    made = tensor.made
    streams = frozenset(stream_key(s) for s in made.streams if s.param is None) if made else None
    place = tensor.place if tensor.place in (PINNED, NPU) else ""
    if not streams and not place and tensor.index is None:
        return None
    return (Tensor, streams, place, tensor.index)


def _holding(kind: type, parts: Sequence[Value], depth: int) -> object:
    views = tuple(stream_view(part, depth) for part in parts)
    return (kind, views) if any(view is not None for view in views) else None


def carries_news(head: State, new: State, keys: frozenset[str]) -> bool:
    """Whether ``new`` (the loop head joined with where one more run of the body ends) differs
    from ``head`` in what the next run reads and the rules look at: the current stream, the
    grad mode, the NPU, and the stream views of the loop-carried ``keys``. Only they can
    make the next run differ: every other binding the body reads is either not changed by
    it or assigned before it is read."""
    if new.current != head.current:
        return True
    old_env, new_env = head.env, new.env
    for key in keys:
        value, old = new_env.get(key), old_env.get(key)
        if value is not old and stream_view(value) != stream_view(old):
            return True
    for env, other in ((new_env, old_env), (old_env, new_env)):
        for key in env:  # grad mode, NPU, a stream current on another NPU
            if key.startswith("<") and env.get(key) != other.get(key):
                return True
    return False


def carried(
    target: cst.CSTNode | None, test: cst.CSTNode | None, body: cst.CSTNode
) -> tuple[frozenset[str], int]:
    """The names and attribute paths a loop carries round: those its body assigns (a
    container changed by a method counts as assigned) and may read before assigning them in
    the same iteration. A plain assignment binds for the rest of its block; what a nested
    block binds (a branch, a loop's body) may not run, so it binds only inside that block.
    Nested functions and classes are their own scopes and are not looked into.

    A container the body only fills (``q.append(v)``, :data:`_WRITE_ONLY`) is not carried:
    the next run appends what this one did unless something it reads changed, and joining
    the longer list into the head gives the same list again. It still counts in the bound
    on the runs, the second figure (the carried names and those plus one), so a loop's
    other news (the current stream) is followed as far as before."""
    found = _Carried()
    definite: set[str] = set()
    if target is not None:
        definite |= _walk([target], target_of=True)[0]
    if test is not None:
        found.read([test], definite)
    found.block(body, definite)
    keys = found.assigned & found.exposed
    return frozenset(keys), len(keys | (found.assigned & found.filled)) + 1


class _Carried:
    """What a loop body assigns, and what it reads before assigning (:func:`carried`)."""

    def __init__(self) -> None:
        self.assigned: set[str] = set()
        self.exposed: set[str] = set()
        #: Containers a statement only fills (``q.append(v)``) before assigning them.
        self.filled: set[str] = set()

    def read(self, nodes: Sequence[cst.CSTNode | None], definite: set[str]) -> set[str]:
        filled: set[str] = set()
        wrote, reads = _walk([node for node in nodes if node is not None], filled=filled)
        self.exposed |= reads - definite
        self.filled |= filled - definite
        self.assigned |= filled
        self.assigned |= wrote
        return wrote

    def block(self, block: cst.CSTNode | None, definite: set[str]) -> None:
        """Statements of ``block`` in order; ``definite``: bound before it, updated."""
        if block is None:
            return
        if isinstance(block, (cst.Else, cst.Finally)):
            block = block.body
        for stmt in getattr(block, "body", ()):
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    wrote = self.read([small], definite)
                    if type(small) in _PLAIN_ASSIGNMENTS:
                        definite |= wrote
            else:
                self.compound(stmt, definite)

    def compound(self, stmt: cst.CSTNode, definite: set[str]) -> None:
        kind = type(stmt)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            self.read(stmt.decorators, definite)  # type: ignore[attr-defined]
            self.assigned.add(stmt.name.value)  # type: ignore[attr-defined]
            definite.add(stmt.name.value)  # type: ignore[attr-defined]
        elif kind is cst.For:
            self.read([stmt.iter], definite)  # type: ignore[attr-defined]
            bound = _walk([stmt.target], target_of=True)[0]  # type: ignore[attr-defined]
            self.assigned |= bound
            self.block(stmt.body, definite | bound)  # type: ignore[attr-defined]
            self.block(stmt.orelse, set(definite))  # type: ignore[attr-defined]
        elif kind is cst.While or kind is cst.If:
            self.read([stmt.test], definite)  # type: ignore[attr-defined]
            self.block(stmt.body, set(definite))  # type: ignore[attr-defined]
            orelse = stmt.orelse  # type: ignore[attr-defined]
            if type(orelse) is cst.If:
                self.compound(orelse, set(definite))
            else:
                self.block(orelse, set(definite))
        elif kind is cst.With:
            inner = set(definite)
            for item in stmt.items:  # type: ignore[attr-defined]
                self.read([item.item], inner)
                if item.asname is not None:
                    bound = _walk([item.asname.name], target_of=True)[0]
                    self.assigned |= bound
                    inner |= bound
            self.block(stmt.body, inner)  # type: ignore[attr-defined]
        elif kind is cst.Try or kind is cst.TryStar:
            self.block(stmt.body, set(definite))  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                self.read([handler.type], definite)
                inner = set(definite)
                if handler.name is not None:
                    bound = _walk([handler.name.name], target_of=True)[0]
                    self.assigned |= bound
                    inner |= bound
                self.block(handler.body, inner)
            self.block(stmt.orelse, set(definite))  # type: ignore[attr-defined]
            self.block(stmt.finalbody, set(definite))  # type: ignore[attr-defined]
        else:  # match, and anything else: every read before every assignment
            self.read([stmt], definite)


#: Statements that bind their targets whenever they run (in a block run straight through).
_PLAIN_ASSIGNMENTS = (cst.Assign, cst.AnnAssign, cst.AugAssign)


def _walk(
    nodes: Sequence[cst.CSTNode], target_of: bool = False, filled: set[str] | None = None
) -> tuple[set[str], set[str]]:
    """The keys ``nodes`` assign and those they read (``a.b.c`` reads ``a``, ``a.b`` and
    ``a.b.c``), in no order; ``target_of``: ``nodes`` are assignment targets; ``filled``,
    when given, receives the containers only filled (``q.append(v)``, ``q[k] = v``:
    :func:`_fills`), assigned and not read; without it they count as read."""
    assigned: set[str] = set()
    reads: set[str] = set()
    stack: list[cst.CSTNode] = []

    def target(node: cst.CSTNode) -> None:
        kind = type(node)
        if kind is cst.Name or kind is cst.Attribute:
            key = dotted_name(node)  # type: ignore[arg-type]
            if key is not None:
                assigned.add(key)
                if kind is cst.Attribute:
                    stack.append(node.value)  # type: ignore[attr-defined]
                return
        if kind is cst.Tuple or kind is cst.List:
            for element in node.elements:  # type: ignore[attr-defined]
                target(element.value)
            return
        if kind is cst.StarredElement:
            target(node.value)  # type: ignore[attr-defined]
            return
        if kind is cst.Subscript:  # q[k] = v changes q
            key = dotted_name(node.value)  # type: ignore[attr-defined]
            if key is not None:
                assigned.add(key)
                if filled is not None:  # by what it is given: filled, not read
                    _filled(key, filled, reads)
                    stack.extend(node.slice)  # type: ignore[attr-defined]
                    return
        stack.append(node)

    if target_of:
        for node in nodes:
            target(node)
    else:
        stack.extend(nodes)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        if kind is cst.Name:
            reads.add(node.value)  # type: ignore[attr-defined]
            continue
        if kind is cst.Attribute:
            key = dotted_name(node)  # type: ignore[arg-type]
            if key is not None:  # a.b.c reads a, a.b and a.b.c
                at = key.find(".")
                while at >= 0:
                    reads.add(key[:at])
                    at = key.find(".", at + 1)
                reads.add(key)
                continue
        elif kind is cst.Assign:
            for item in node.targets:  # type: ignore[attr-defined]
                target(item.target)
            stack.append(node.value)  # type: ignore[attr-defined]
            continue
        elif kind is cst.AnnAssign or kind is cst.NamedExpr:
            target(node.target)  # type: ignore[attr-defined]
            if node.value is not None:  # type: ignore[attr-defined]
                stack.append(node.value)  # type: ignore[attr-defined]
            continue
        elif kind is cst.AugAssign:  # reads and assigns its target
            target(node.target)  # type: ignore[attr-defined]
            stack.extend((node.target, node.value))  # type: ignore[attr-defined]
            continue
        elif kind is cst.For or kind is cst.CompFor:
            target(node.target)  # type: ignore[attr-defined]
            stack.extend(child for child in children(node) if child is not node.target)  # type: ignore[attr-defined]
            continue
        elif kind is cst.AsName:
            target(node.name)  # type: ignore[attr-defined]
            continue
        elif kind is cst.Expr and filled is not None and _fills(node.value, reads, filled):  # type: ignore[attr-defined]
            stack.extend(arg.value for arg in node.value.args)  # type: ignore[attr-defined]
            continue
        elif kind is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is cst.Attribute and func.attr.value in _MUTATORS:
                key = dotted_name(func.value)
                if key is not None:
                    assigned.add(key)
        push_children(node, stack)
    return assigned, reads


def _fills(node: cst.CSTNode, reads: set[str], filled: set[str]) -> bool:
    """Whether ``node``, a statement's expression, is ``q.append(v)`` (a :data:`_WRITE_ONLY`
    method of a name or attribute path): if so, ``q`` is noted filled (:func:`_filled`);
    its arguments are left to the caller."""
    if type(node) is not cst.Call:
        return False
    func = node.func  # type: ignore[attr-defined]
    if type(func) is not cst.Attribute or func.attr.value not in _WRITE_ONLY:
        return False
    key = dotted_name(func.value)
    if key is None:
        return False
    _filled(key, filled, reads)
    return True


def _filled(key: str, filled: set[str], reads: set[str]) -> None:
    """``key`` filled, and the paths above it (``self`` of ``self.q``) read."""
    filled.add(key)
    at = key.find(".")
    while at >= 0:
        reads.add(key[:at])
        at = key.find(".", at + 1)
