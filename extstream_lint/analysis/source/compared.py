"""The literals a parameter is compared with, and the containers it is looked up in.

A string or integer literal a caller in another module passes decides only what the body
compares it with or looks it up by; :mod:`..interp.variants` learns a copy per such literal
(bounded there), as it does for ``True``/``False`` and enum members.
"""

from __future__ import annotations

import libcst as cst

from ... import contract as c
from .syntax import dotted_name, push_children

#: The torch_npu module whose attribute a parameter may name (``getattr(torch.npu, factory)``)
#: and the name there that makes an external stream: the literal a caller's copy is for.
_NPU_MODULES = frozenset(("torch.npu", c.EXTERNAL_STREAM_CLASS.rpartition(".")[0]))
_EXTERNAL_NAME = c.EXTERNAL_STREAM_CLASS.rpartition(".")[2]

#: Per parameter: the string and integer literals its body compares it with, and the names
#: of the containers it looks it up in (``_PLUGINS[name]``, ``_PLUGINS.get(name)``).
Compared = tuple[tuple[object, ...], tuple[str, ...]]
#: Literals kept per parameter at most (the copies are bounded again where they are made).
MAX_COMPARED = 8


def compared_literals(node: cst.FunctionDef) -> dict[str, Compared]:
    """What a string or integer literal given for a parameter may decide in ``node``'s body
    (issue 38 across the module boundary: :mod:`.interp.variants`): the literals the
    parameter is compared with (``kind == "external"``, ``kind != "pool"``, ``kind in
    ("a", "b")``, ``case "a" | "b":`` of ``match kind:``; as ``"spec.kind"``, those of a
    parameter's attribute: ``spec.kind == "pool"``, ``case LaneSpec(kind="external"):`` of
    ``match spec:``) and the names of the containers it
    is looked up in (``_PLUGINS[name]``, ``_PLUGINS.get(name)``); nested functions included.
    Asked only for a function whose summary reads streams."""
    params = node.params
    order = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    names = set(order)
    lits: dict[str, dict[object, None]] = {}
    keyed: dict[str, dict[str, None]] = {}
    stack: list[cst.CSTNode] = [node.body]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is cst.Comparison:
            operands = (item.left, *(t.comparator for t in item.comparisons))  # type: ignore[attr-defined]
            params_here = [n for n in map(dotted_name, operands) if n and n.split(".")[0] in names]
            for name in params_here:
                for operand in operands:
                    for value in _literal_values(operand):
                        lits.setdefault(name, {})[value] = None
        elif kind is cst.Match:
            name = dotted_name(item.subject)  # type: ignore[attr-defined]
            if name and name.split(".")[0] in names:
                for case in item.cases:  # type: ignore[attr-defined]
                    for value in _case_values(case.pattern):
                        lits.setdefault(name, {})[value] = None
                    for field, value in _class_case_values(case.pattern):
                        lits.setdefault(f"{name}.{field}", {})[value] = None
        elif kind is cst.Subscript and len(item.slice) == 1:  # type: ignore[attr-defined]
            index = item.slice[0].slice  # type: ignore[attr-defined]
            value = index.value if type(index) is cst.Index else None
            owner = _container(item.value)  # type: ignore[attr-defined]
            if owner and type(value) is cst.Name and value.value in names:  # type: ignore[attr-defined]
                keyed.setdefault(value.value, {})[owner] = None  # type: ignore[attr-defined]
        elif kind is cst.Call and (name := _npu_attribute_named(item, names)):  # type: ignore[arg-type]
            lits.setdefault(name, {})[_EXTERNAL_NAME] = None  # getattr(torch.npu, factory)
        elif (
            kind is cst.Call
            and item.args
            and type(item.func) is cst.Attribute
            and item.func.attr.value == "get"
        ):  # type: ignore[attr-defined]
            first, owner = item.args[0].value, _container(item.func.value)  # type: ignore[attr-defined]
            if owner and type(first) is cst.Name and first.value in names:
                keyed.setdefault(first.value, {})[owner] = None  # type: ignore[attr-defined]
        push_children(item, stack)
    found = {
        name: (
            tuple(lits.get(name, {}))[:MAX_COMPARED],
            tuple(keyed.get(name, {}))[:MAX_COMPARED],
        )
        for name in order
        if name in lits or name in keyed
    }
    dotted = (name for name in lits if "." in name)  # ``spec.kind``: literals only
    found.update((name, (tuple(lits[name])[:MAX_COMPARED], ())) for name in dotted)
    return found


def _npu_attribute_named(call: cst.Call, names: set[str]) -> str | None:
    """The parameter ``getattr(torch.npu, p)`` names an attribute of torch_npu's module by."""
    args = call.args
    if type(call.func) is not cst.Name or call.func.value != "getattr" or len(args) < 2:
        return None
    name = args[1].value
    if type(name) is not cst.Name or name.value not in names:
        return None
    return name.value if dotted_name(args[0].value) in _NPU_MODULES else None


def _container(node: cst.CSTNode) -> str | None:
    """``TABLE`` (a module's name), or ``.registry`` for ``cls.registry`` / ``self.registry``
    / ``Backend.registry`` (an attribute of the method's class)."""
    if type(node) is cst.Name:
        return node.value  # type: ignore[attr-defined]
    if type(node) is cst.Attribute and type(node.value) is cst.Name:  # type: ignore[attr-defined]
        return f".{node.attr.value}"  # type: ignore[attr-defined]
    return None


def _literal_values(node: cst.CSTNode) -> list[object]:
    """A string or integer literal, or a tuple, list or set display of them."""
    if type(node) in (cst.Tuple, cst.List, cst.Set):
        return [v for e in node.elements for v in _literal_values(e.value)]  # type: ignore[attr-defined]
    if type(node) is cst.SimpleString:
        value = node.evaluated_value  # type: ignore[attr-defined]
        return [value] if isinstance(value, str) else []
    if type(node) is cst.Integer:
        return [node.evaluated_value]  # type: ignore[attr-defined]
    return []


def _class_case_values(pattern: cst.CSTNode) -> list[tuple[str, object]]:
    """``case LaneSpec(kind="external"):``: per keyword, the literals its value pattern
    matches (the subject's attribute compared with them, as ``spec.kind == "external"``)."""
    if type(pattern) is cst.MatchAs and pattern.pattern is not None:  # type: ignore[attr-defined]
        pattern = pattern.pattern  # type: ignore[attr-defined]
    if type(pattern) is cst.MatchOr:
        return [v for p in pattern.patterns for v in _class_case_values(p.pattern)]  # type: ignore[attr-defined]
    if type(pattern) is not cst.MatchClass:
        return []
    return [(k.key.value, v) for k in pattern.kwds for v in _case_values(k.pattern)]  # type: ignore[attr-defined]


def _case_values(pattern: cst.CSTNode) -> list[object]:
    if type(pattern) is cst.MatchValue:
        return _literal_values(pattern.value)  # type: ignore[attr-defined]
    if type(pattern) is cst.MatchOr:
        return [v for p in pattern.patterns for v in _case_values(p.pattern)]  # type: ignore[attr-defined]
    if type(pattern) is cst.MatchAs and pattern.pattern is not None:  # type: ignore[attr-defined]
        return _case_values(pattern.pattern)  # type: ignore[attr-defined]
    return []


__all__ = ["MAX_COMPARED", "Compared", "compared_literals"]
