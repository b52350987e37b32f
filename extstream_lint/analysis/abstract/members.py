"""Members of an ``enum.Enum`` class, as the literals they are (language reference 3.3,
``enum`` HOWTO).

A member is a singleton made when its class is created: ``Kind.EXTERNAL is Kind.EXTERNAL``
always, and no two members of a class are identical. So a member is kept as a literal,
``Const(Member(...))``, which the interpreter compares (``is``, ``==``, ``in``), tests for
truth, uses as a literal dict key and follows into the functions it is passed to, like
``True`` or ``3`` (:mod:`..interp.constants`). Its ``value`` is the abstract value its class
body assigned. A member of an ``IntEnum`` (``StrEnum``) also equals its int (str) value and
is true exactly when that value is, as the mixed-in type decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .atoms import Const

#: The mixed-in type of an enum class, by the library base it derives from.
INT, STR, PLAIN = "int", "str", ""
ENUM_BASES: dict[str, str] = {
    "enum.Enum": PLAIN,
    "enum.Flag": PLAIN,
    "enum.IntEnum": INT,
    "enum.IntFlag": INT,
    "enum.StrEnum": STR,
}

#: What the comparisons below answer when a member is not involved.
UNDECIDED = object()


@dataclass(frozen=True)
class Member:
    """``Cls.NAME``: one member of an enum class (identity: the class and the name)."""

    #: The enum class (a :class:`..values.ClassInfo`; compared by identity).
    cls: object
    name: str
    #: What the class body assigned (a :class:`..values.Value`), or ``None`` when unknown.
    value: object = field(compare=False, hash=False)
    #: The mixed-in type (:data:`INT`, :data:`STR`, :data:`PLAIN`).
    mixin: str = field(default=PLAIN, compare=False, hash=False)

    def __repr__(self) -> str:  # the key of a summary's copy (constants.py): short, stable
        return f"<{getattr(self.cls, 'name', '?')}.{self.name}>"

    def raw(self) -> object:
        """The literal a mixed-in member stands for in ``==`` and truth, else itself."""
        value = self.value
        if self.mixin and isinstance(value, Const):
            return value.value
        return self


def member_of(value: object) -> Member | None:
    """The member a value is, if it is one."""
    if isinstance(value, Const) and isinstance(value.value, Member):
        return value.value
    return None


def member_truth(member: Member) -> bool | None:
    """``bool(member)``: true for a plain member, its value's truth for a mixed-in one."""
    raw = member.raw()
    if raw is member:
        return True
    if raw is None or type(raw) in (bool, int, str):
        return bool(raw) if type(raw) is not str or raw else None
    return None


def compare_members(left: object, operator: str, right: object) -> object:
    """``left <op> right`` when a member is an operand: a ``Const`` bool, ``None`` when not
    known, :data:`UNDECIDED` when neither operand is a member."""
    a, b = member_of(left), member_of(right)
    if a is None and b is None:
        return UNDECIDED
    if operator in ("is", "is not"):
        if a is None or b is None:
            other = right if a is not None else left
            if not isinstance(other, Const):
                return None
            same = False  # a member is never a literal of another kind
        else:
            same = a == b
        return Const(same if operator == "is" else not same)
    if operator in ("==", "!="):
        x = a.raw() if a is not None else _literal(left)
        y = b.raw() if b is not None else _literal(right)
        if x is _UNKNOWN or y is _UNKNOWN:
            return None
        if isinstance(x, Member) or isinstance(y, Member):
            same = x == y
        else:
            same = x == y and (type(x) is str) == (type(y) is str)
        return Const(same if operator == "==" else not same)
    return None


_UNKNOWN = object()


def _literal(value: object) -> object:
    if not isinstance(value, Const):
        return _UNKNOWN
    raw = value.value
    if raw is None or type(raw) in (bool, int) or (type(raw) is str and raw):
        return raw
    return _UNKNOWN
