"""A module's summary made shareable: what the interpreter learnt, without libcst nodes.

The interpreter's values point at libcst nodes (where a stream was made, where a sink is);
a summary kept for other modules and on disk names places instead (:class:`.values.Remote`,
file and line). Only computing a summary needs this (and libcst); checking or reviving a
kept one does not (:mod:`.index`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Container

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
_KEEP, _NODE, _DICT, _LIST, _COLLECTION, _FROZEN, _RECORD = range(7)
_KINDS: dict[type, tuple[int, tuple[str, ...]]] = {
    kind: (_KEEP, ()) for kind in (str, int, float, bool, bytes, type(None), Module)
}
_LOCATABLE = (cst.Call, cst.With, cst.FunctionDef, cst.AnnAssign)
#: What another module's summary exports and this one may hold: shared, never copied.
_SHAREABLE = frozenset({FunctionInfo, ClassInfo})


def _kind(value: object) -> tuple[int, tuple[str, ...]]:
    kind = type(value)
    found = _KINDS.get(kind)
    if found is None:
        found = _KINDS[kind] = _classify(kind)
    return found


def _classify(kind: type) -> tuple[int, tuple[str, ...]]:
    if issubclass(kind, (str, int, float, bytes, type(None), Module, type)):
        return _KEEP, ()  # an imported module is already exported: shared, never copied
    if issubclass(kind, cst.CSTNode):
        return _NODE, ()
    if issubclass(kind, dict):
        return _DICT, ()
    if issubclass(kind, list):
        return _LIST, ()
    if issubclass(kind, (tuple, frozenset, set)):
        return _COLLECTION, ()
    if dataclasses.is_dataclass(kind):
        names = tuple(f.name for f in dataclasses.fields(kind))
        frozen = kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        return (_FROZEN if frozen else _RECORD), names
    return _KEEP, ()


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
        how, names = _KINDS[kind] if kind in _KINDS else _kind(item)
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
        elif how in (_LIST, _COLLECTION):
            stack.extend(item)  # type: ignore[call-overload]
        else:
            stack.extend([getattr(item, name) for name in names])


def _copy(
    value: object, remotes: dict[int, Remote], memo: dict[int, object], unknown: Remote
) -> object:
    kind = type(value)
    how, names = _KINDS[kind] if kind in _KINDS else _kind(value)  # no call for most
    if how == _KEEP:
        return value
    key = id(value)
    if key in memo:
        return memo[key]
    if how == _NODE:
        return remotes.get(key, unknown)
    if how == _DICT:
        out: dict[object, object] = {}
        memo[key] = out
        for k, v in value.items():  # type: ignore[attr-defined]
            out[_copy(k, remotes, memo, unknown)] = _copy(v, remotes, memo, unknown)
        return out
    if how == _LIST:
        out_list: list[object] = []
        memo[key] = out_list
        out_list.extend([_copy(v, remotes, memo, unknown) for v in value])  # type: ignore[attr-defined]
        return out_list
    if how == _COLLECTION:
        result = type(value)(_copy(v, remotes, memo, unknown) for v in value)  # type: ignore[call-arg, attr-defined]
        memo[key] = result
        return result
    if how == _FROZEN:
        # Frozen values cannot be part of a cycle except through mutable ones.
        copied = [_copy(getattr(value, name), remotes, memo, unknown) for name in names]
        result = object.__new__(type(value))
        for name, item in zip(names, copied):
            object.__setattr__(result, name, item)
        memo[key] = result
        return result
    clone = object.__new__(type(value))
    memo[key] = clone
    for name in names:
        object.__setattr__(clone, name, _copy(getattr(value, name), remotes, memo, unknown))
    return clone
