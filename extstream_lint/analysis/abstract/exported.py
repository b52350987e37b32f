"""A module's summary made shareable: what the interpreter learnt, without libcst nodes.

The interpreter's values point at libcst nodes (where a stream was made, where a sink is);
a summary kept for other modules and on disk names places instead (:class:`.values.Remote`,
file and line). Only computing a summary needs this (and libcst); checking or reviving a
kept one does not (:mod:`.index`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Container
from operator import attrgetter, is_not

import libcst as cst

from ..source.positions import locate
from .atoms import Remote
from .values import ClassInfo, FunctionInfo, Module, Value

__all__ = ["export", "literal_all"]


def literal_all(tree: cst.Module) -> tuple[str, ...] | None:
    """``__all__`` when the module spells it as a literal list or tuple of strings."""
    for line in tree.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == "__all__"
                and isinstance(small.value, (cst.List, cst.Tuple))
            ):
                names = []
                for element in small.value.elements:
                    value = element.value
                    if isinstance(value, cst.SimpleString) and isinstance(
                        value.evaluated_value, str
                    ):
                        names.append(value.evaluated_value)
                return tuple(names)
    return None


def export(
    values: dict[str, Value],
    tree: cst.Module,
    text: str,
    shown: str,
    python_tree: ast.Module | None = None,
    exported: Container[object] = (),
) -> dict[str, Value]:
    """A deep copy of ``values`` where every libcst node is a :class:`Remote` place
    (``python_tree``, CPython's tree of ``text`` if known, gives the lines). Functions and
    classes in ``exported`` (another module's summary holds them, already exported) are
    shared, not copied, as imported modules are."""
    nodes: dict[int, cst.CSTNode] = {}
    memo: dict[int, object] = {}
    _walk(values, nodes, exported, memo)
    positions = locate(tree, nodes.values(), text, python_tree) if nodes else {}
    remotes = {key: Remote(shown, positions[node][0]) for key, node in nodes.items()}
    unknown = Remote(shown, 0)  # a node that is not a call, with or def: the file alone
    return {name: _copy(value, remotes, memo, unknown) for name, value in values.items()}


#: How each type is walked and copied, decided once per type (the walk visits millions of
#: objects on a large project: one dictionary lookup each, not a chain of ``isinstance``).
_KEEP, _NODE, _DICT, _LIST, _SET, _COLLECTION, _FROZEN, _RECORD = range(8)
_Fields = Callable[[object], tuple[object, ...]]
_KINDS: dict[type, tuple[int, _Fields | None]] = {
    kind: (_KEEP, None) for kind in (str, int, float, bool, bytes, type(None), Module)
}
#: The types kept as they are (``_KEEP``), for a test without a call.
_LEAVES: set[type] = set(_KINDS)
#: The fields of each data class met, in the order its getter reads them.
_NAMES: dict[type, tuple[str, ...]] = {}
_LOCATABLE = (cst.Call, cst.With, cst.FunctionDef, cst.AnnAssign)
#: What another module's summary exports and this one may hold: shared, never copied.
_SHAREABLE = frozenset({FunctionInfo, ClassInfo})


def _kind(value: object) -> tuple[int, _Fields | None]:
    kind = type(value)
    found = _KINDS.get(kind)
    if found is None:
        found = _KINDS[kind] = _classify(kind)
        if found[0] == _KEEP:
            _LEAVES.add(kind)
    return found


def _classify(kind: type) -> tuple[int, _Fields | None]:
    if issubclass(kind, (str, int, float, bytes, type(None), Module, type)):
        return _KEEP, None  # an imported module is already exported: shared, never copied
    if issubclass(kind, cst.CSTNode):
        return _NODE, None
    if issubclass(kind, dict):
        return _DICT, None
    if issubclass(kind, list):
        return _LIST, None
    if issubclass(kind, set):
        return _SET, None
    if issubclass(kind, (tuple, frozenset)):
        return _COLLECTION, None
    if dataclasses.is_dataclass(kind):
        names = tuple(f.name for f in dataclasses.fields(kind))
        frozen = kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        _NAMES[kind] = names
        return (_FROZEN if frozen else _RECORD), _getter(names)
    return _KEEP, None


def _getter(names: tuple[str, ...]) -> _Fields:
    """The fields of a record as a tuple, read in C (an ``attrgetter``): no call of ours
    per record."""
    if names:  # one field read twice: a tuple all the same (the copy zips it with names)
        return attrgetter(*names) if len(names) > 1 else attrgetter(names[0], names[0])
    return lambda value: ()


def _walk(
    value: object,
    nodes: dict[int, cst.CSTNode],
    exported: Container[object],
    shared: dict[int, object],
) -> None:
    """Collect the locatable libcst nodes under ``value``, and into ``shared`` the records
    in ``exported``, which are neither searched nor copied."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)  # a million items: no call for most
        how, fields = _KINDS[kind] if kind in _KINDS else _kind(item)
        if how == _KEEP or id(item) in seen:
            continue
        seen.add(id(item))
        if type(item) in _SHAREABLE and item in exported:
            shared[id(item)] = item
        elif how == _NODE:
            if isinstance(item, _LOCATABLE):
                nodes[id(item)] = item  # type: ignore[assignment]
        elif how == _DICT:
            stack.extend(item.keys())  # type: ignore[attr-defined]
            stack.extend(item.values())  # type: ignore[attr-defined]
        elif how in (_LIST, _SET, _COLLECTION):
            stack.extend(item)  # type: ignore[call-overload]
        else:
            stack.extend(fields(item))  # type: ignore[misc]


def _copy(
    value: object, remotes: dict[int, Remote], memo: dict[int, object], unknown: Remote
) -> object:
    """``value`` with every libcst node a :class:`Remote`. What can be mutated (dicts,
    lists, sets, records such as :class:`FunctionInfo`) is copied, since the interpreter
    that made it may go on changing its own; an immutable value (tuple, frozenset, frozen
    record) is copied only when something under it was, and shared otherwise. Leaves are
    taken as they are without a call (they are most of what a summary holds)."""
    kind = type(value)
    how, getter = _KINDS[kind] if kind in _KINDS else _kind(value)  # no call for most
    if how == _KEEP:
        return value
    key = id(value)
    if key in memo:
        return memo[key]
    if how == _NODE:
        return remotes.get(key, unknown)
    leaves = _LEAVES
    if how == _DICT:
        out: dict[object, object] = {}
        memo[key] = out
        for k, v in value.items():  # type: ignore[attr-defined]
            if type(k) not in leaves:
                k = _copy(k, remotes, memo, unknown)
            out[k] = v if type(v) in leaves else _copy(v, remotes, memo, unknown)
        return out
    # (``leaves.issuperset(map(type, items))``: whether all are leaves, tested in C)
    if how == _LIST:
        out_list: list[object] = []
        memo[key] = out_list
        if leaves.issuperset(map(type, value)):  # type: ignore[call-overload]
            out_list.extend(value)  # type: ignore[call-overload]
        else:
            out_list.extend(
                [v if type(v) in leaves else _copy(v, remotes, memo, unknown) for v in value]  # type: ignore[attr-defined]
            )
        return out_list
    if how == _SET:  # mutable, and of hashable items only: never part of a cycle
        if leaves.issuperset(map(type, value)):  # type: ignore[call-overload]
            result = kind(value)
        else:
            items = [v if type(v) in leaves else _copy(v, remotes, memo, unknown) for v in value]  # type: ignore[attr-defined]
            result = kind(items)
        memo[key] = result
        return result
    if how == _COLLECTION:  # immutable: shared unless something under it is copied
        if leaves.issuperset(map(type, value)):  # type: ignore[call-overload]
            result = value
        else:
            items = [v if type(v) in leaves else _copy(v, remotes, memo, unknown) for v in value]  # type: ignore[attr-defined]
            result = kind(items) if any(map(is_not, items, value)) else value  # type: ignore[call-overload]
        memo[key] = result
        return result
    fields = getter(value)  # type: ignore[misc]
    if how == _FROZEN:
        # Frozen values cannot be part of a cycle except through mutable ones.
        if leaves.issuperset(map(type, fields)):
            memo[key] = value  # nothing under it to copy: shared
            return value
        copied = [v if type(v) in leaves else _copy(v, remotes, memo, unknown) for v in fields]
        if not any(map(is_not, copied, fields)):
            memo[key] = value  # nothing under it was copied: shared
            return value
        result = object.__new__(kind)
        for name, item in zip(_NAMES[kind], copied):
            object.__setattr__(result, name, item)
        memo[key] = result
        return result
    clone = object.__new__(kind)
    memo[key] = clone
    for name, v in zip(_NAMES[kind], fields):
        if type(v) not in leaves:
            v = _copy(v, remotes, memo, unknown)
        object.__setattr__(clone, name, v)
    return clone
