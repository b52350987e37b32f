"""A module's summary made shareable: what the interpreter learnt, without libcst nodes.

The interpreter's values point at libcst nodes (where a stream was made, where a sink is);
a summary kept for other modules and on disk names places instead (:class:`.values.Remote`,
file and line). Only computing a summary needs this (and libcst); checking or reviving a
kept one does not (:mod:`.index`).
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from .positions import locate
from .values import Module, Remote, Value

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


def export(values: dict[str, Value], tree: cst.Module, text: str, shown: str) -> dict[str, Value]:
    """A deep copy of ``values`` where every libcst node is a :class:`Remote` place."""
    nodes: dict[int, cst.CSTNode] = {}
    _walk(values, nodes, set())
    positions = locate(tree, nodes.values(), text, None) if nodes else {}
    remotes = {key: Remote(shown, positions[node][0]) for key, node in nodes.items()}
    memo: dict[int, object] = {}
    unknown = Remote(shown, 0)  # a node that is not a call, with or def: the file alone
    return {name: _copy(value, remotes, memo, unknown) for name, value in values.items()}


_SKIP = (str, int, float, bool, bytes, type(None))


def _walk(value: object, nodes: dict[int, cst.CSTNode], seen: set[int]) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (*_SKIP, Module)) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, cst.CSTNode):
            if _locatable(item):
                nodes[id(item)] = item
            continue
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif dataclasses.is_dataclass(item):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))


def _locatable(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.Call, cst.With, cst.FunctionDef, cst.AnnAssign))


def _copy(
    value: object, remotes: dict[int, Remote], memo: dict[int, object], unknown: Remote
) -> object:
    if isinstance(value, (_SKIP, Module)):
        return value  # an imported module is already exported: shared, never copied
    key = id(value)
    if key in memo:
        return memo[key]
    if isinstance(value, cst.CSTNode):
        return remotes.get(key, unknown)
    if isinstance(value, dict):
        out: dict[object, object] = {}
        memo[key] = out
        for k, v in value.items():
            out[_copy(k, remotes, memo, unknown)] = _copy(v, remotes, memo, unknown)
        return out
    if isinstance(value, list):
        out_list: list[object] = []
        memo[key] = out_list
        out_list.extend(_copy(v, remotes, memo, unknown) for v in value)
        return out_list
    if isinstance(value, (tuple, frozenset, set)):
        result = type(value)(_copy(v, remotes, memo, unknown) for v in value)
        memo[key] = result
        return result
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        params = type(value).__dataclass_params__  # type: ignore[attr-defined]
        if params.frozen:
            # Frozen values cannot be part of a cycle except through mutable ones.
            changes = {
                f.name: _copy(getattr(value, f.name), remotes, memo, unknown)
                for f in dataclasses.fields(value)
            }
            result = object.__new__(type(value))
            for name, item in changes.items():
                object.__setattr__(result, name, item)
            memo[key] = result
            return result
        clone = object.__new__(type(value))
        memo[key] = clone
        for f in dataclasses.fields(value):
            object.__setattr__(clone, f.name, _copy(getattr(value, f.name), remotes, memo, unknown))
        return clone
    return value
