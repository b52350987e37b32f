"""Python's data model beyond plain classes (language reference 3.3): enum members.

An ``enum.Enum`` class body's names become its members when the class is created (not its
functions, descriptors, ``_sunder_``/``__dunder__`` names or ``nonmember(...)``; a function
given as ``member(...)`` is one): each is the literal of :mod:`..abstract.members`, so
``Kind.EXTERNAL``, ``Kind["EXTERNAL"]`` and ``Kind("external")`` are the same member, a test
``kind is Kind.EXTERNAL`` decides its branch, and a function given a member is learnt with
it like a ``True`` flag. ``member.value`` is what the body assigned, ``member.name`` its
name; a method called on a member is bound to it, and what an enum's ``__init__`` sets on
``self`` from the value (``EXTERNAL = ("ext", factory)``) is read from the member.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, Ref
from ..abstract.members import ENUM_BASES, Member, member_of
from ..abstract.values import Bound, ClassInfo, FunctionInfo, Instance, Seq, Value
from ..semantics.sites import Arg, CallSite
from ..source.syntax import tail_name
from . import summaries as sm
from .binding import bind_arguments

#: ``enum.member(x)`` / ``enum.nonmember(x)`` evaluate to ``x`` (the class body decides).
ENUM_MARKS = frozenset({"enum.member", "enum.nonmember"})


def enum_mixin(cls: ClassInfo) -> str | None:
    """The mixed-in type of an enum class (:data:`..members.ENUM_BASES`), ``None`` if it is
    not one."""
    for klass in cls.mro():
        for name in klass.library:
            if name in ENUM_BASES:
                return ENUM_BASES[name]
    return None


class DataModel:
    """Enum members made by a class body, and what they answer."""

    def enum_value(self, node: cst.ClassDef, cls: ClassInfo, name: str, value: Value) -> Value:
        """What the class attribute ``name`` of the class just created holds: a member when
        ``cls`` is an enum class and the name is one of its members, else ``value``."""
        mixin = enum_mixin(cls)
        if mixin is None or name.startswith("_"):
            return value
        marked = _marks(node).get(name)
        if marked == "nonmember":
            return value
        if marked != "member" and isinstance(value, (FunctionInfo, ClassInfo, Bound)):
            return value  # a function in an enum body is a method, a class a nested class
        if marked != "member" and isinstance(value, Instance) and value.cls.method("__get__"):
            return value  # a descriptor
        return Const(Member(cls, name, value, mixin))

    def member_attribute(self, member: Member, name: str, text: str | None) -> Value:
        """``member.name``: its value, its name, a method bound to it, what the enum's
        ``__init__`` set on it from its value, or a class attribute."""
        if name in ("value", "_value_"):
            return member.value  # type: ignore[return-value]
        if name in ("name", "_name_"):
            return Const(member.name)
        cls: ClassInfo = member.cls  # type: ignore[assignment]
        if name == "__class__":
            return cls
        method = cls.method(name)
        receiver = Const(member)
        if method is not None:
            if method.is_property:
                return sm.substitute(
                    method.returns, bind_arguments(method, None, Arg(receiver, None))
                )
            return Bound(method, receiver, text)
        init = cls.method("__init__")
        if init is not None and (0, (name,)) in init.summary.sets_attrs:
            if self.learning:
                self._applied.append((init.summary, init.summary.version))
            given = member.value
            items = given.items if isinstance(given, Seq) and not given.keys else (given,)
            site = CallSite(None, "__init__", [Arg(item, None) for item in items])  # type: ignore[arg-type]
            binding = bind_arguments(init, site, Arg(receiver, None))
            return sm.substitute(init.summary.sets_attrs[(0, (name,))], binding)
        return cls.attr(name)

    def enum_lookup(self, cls: ClassInfo, key: Value, by: str) -> tuple[bool, Value]:
        """``Cls["NAME"]`` (``by="name"``) or ``Cls(value)`` (``by="value"``) on an enum
        class: ``(True, member)`` when one member matches, ``(True, None)`` when the class is
        an enum but the key is not known; ``(False, None)`` for any other class."""
        if enum_mixin(cls) is None:
            return False, None
        if member_of(key) is not None and by == "value":
            return True, key  # Kind(Kind.EXTERNAL) is Kind.EXTERNAL
        if not isinstance(key, Const) or key.value in (None, ""):
            return True, None
        for klass in cls.mro():
            for value in klass.attrs.values():
                member = member_of(value)
                if member is None or member.cls is not cls:
                    continue
                if by == "name" and member.name == key.value:
                    return True, value
                if by == "value" and member.value == key:
                    return True, value
        return True, None

    def member_value(self, receiver: Value, name: str) -> Value:
        """``member.name`` read to be called (``Factory.EXTERNAL.value(h)``); ``None`` when
        ``receiver`` is no member."""
        member = member_of(receiver)
        return None if member is None else self.member_attribute(member, name, None)

    def member_call(self, receiver: Value, method: str) -> FunctionInfo | None:
        """``member.method(...)``: the enum class's method, bound to the member."""
        member = member_of(receiver)
        if member is None:
            return None
        return member.cls.method(method)  # type: ignore[attr-defined, no-any-return]


def enum_mark(callee: Value, site: CallSite) -> tuple[bool, Value]:
    """``enum.member(x)`` / ``enum.nonmember(x)``: ``x`` (the class body decides which)."""
    if isinstance(callee, Ref) and callee.qualname in ENUM_MARKS:
        return True, site.positional[0].value if site.positional else None
    return False, None


def _marks(node: cst.ClassDef) -> dict[str, str]:
    """The names a class body assigns ``member(...)`` or ``nonmember(...)``."""
    found: dict[str, str] = {}
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call):
                continue
            mark = tail_name(small.value.func)
            if mark in ("member", "nonmember"):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        found[target.target.value] = mark
    return found
