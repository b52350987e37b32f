"""Where a function uses a parameter (or a parameter's attribute) as an attribute's name:
``getattr(obj, p)``, ``setattr``, ``hasattr``, ``attrgetter(p)``, ``methodcaller(p)``,
``obj.__dict__[p]``, ``vars(obj)[p]``, and names spliced from a literal and a parameter
(``getattr(self, "visit_" + node.kind)``, a visitor's dispatch). A caller's literal there
decides which attribute is read: :mod:`.bodies` reports such parameters as ``"@p"``."""

from __future__ import annotations

import libcst as cst

from .syntax import dotted_name, push_children

__all__ = ["NAMING", "named", "uses_as_name"]


#: The nodes that may use a parameter as an attribute's name.
NAMING = (cst.Call, cst.Subscript)
#: Calls whose argument at that position is an attribute's name.
_NAME_ARGUMENT = {
    "getattr": 1,
    "setattr": 1,
    "hasattr": 1,
    "delattr": 1,
    "attrgetter": 0,
    "methodcaller": 0,
}


def named(item: cst.Call | cst.Subscript, names: set[str]) -> str:
    """The parameter ``item`` uses as an attribute's name, if any: ``getattr(obj, p)``,
    ``setattr``, ``hasattr``, ``attrgetter(p)``, ``methodcaller(p, ...)``, and the
    lookups ``obj.__dict__[p]`` / ``vars(obj)[p]``."""
    if type(item) is cst.Subscript:
        base = item.value
        reads_dict = (type(base) is cst.Attribute and base.attr.value == "__dict__") or (
            type(base) is cst.Call and _is_name(base.func, "vars")
        )
        index = item.slice[0].slice if reads_dict and len(item.slice) == 1 else None
        key = index.value if type(index) is cst.Index else None
        return key.value if type(key) is cst.Name and key.value in names else ""
    func = item.func
    tail = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
    position = _NAME_ARGUMENT.get(tail)
    args = item.args
    if position is None or len(args) <= position or args[position].keyword is not None:
        return ""
    name = _spliced(args[position].value)
    if type(name) is cst.Attribute:  # ``"visit_" + node.kind``: the parameter's attribute
        path = dotted_name(name)
        return path if path is not None and path.split(".", 1)[0] in names else ""
    return name.value if type(name) is cst.Name and name.value in names else ""


def _spliced(name: cst.BaseExpression) -> cst.BaseExpression:
    """The part of a name made by joining a literal to it that is not the literal:
    ``"visit_" + kind``, ``kind + "_hook"`` (a visitor's dispatch; the interpreter folds
    ``+`` of literals, not f-strings)."""
    if type(name) is cst.BinaryOperation and type(name.operator) is cst.Add:
        if type(name.left) is cst.SimpleString:
            return name.right
        if type(name.right) is cst.SimpleString:
            return name.left
    return name


def uses_as_name(body: cst.CSTNode, names: set[str]) -> bool:
    stack: list[cst.CSTNode] = [body]
    while stack:
        item = stack.pop()
        if type(item) in NAMING and named(item, names):  # type: ignore[arg-type]
            return True
        push_children(item, stack)
    return False


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return type(node) is cst.Name and node.value == name  # type: ignore[attr-defined]
