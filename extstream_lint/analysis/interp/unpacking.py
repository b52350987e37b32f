"""One unpacking routine for every binding site (issue 27, point 3).

Assignment (``a, *rest = xs``), ``for a, b in pairs``, ``with f() as (a, b)``,
comprehension targets and ``match`` sequence patterns (``case [a, *rest]``) all unpack the
same way, as Python's ``UNPACK_SEQUENCE`` / ``UNPACK_EX`` do: a value known element by
element gives each target its element, the starred one the elements between; a value of
unknown length (a generator, ``tuple(genexpr)``, a list built by a comprehension) gives every
target any element it may hold, the starred one a list of them; a parameter of the function
being summarised gives each target its element by position (``pair[1]``, resolved where the
function is called), the starred one any element.
"""

from __future__ import annotations

from ..abstract.values import Seq, Value
from . import summaries as sm
from .core import is_symbolic, may_contain


class Unpacking:
    """What each target of an unpacking gets."""

    def unpack(self, value: Value, count: int, star: int | None) -> list[Value]:
        """Values for ``count`` targets, ``star`` the index of the starred one (if any)."""
        seq = self._as_seq(value)
        exact = isinstance(seq, Seq) and not seq.keys and not seq.is_dict
        items = seq.items if exact else None  # type: ignore[union-attr]
        if items is not None and star is None and len(items) == count:
            return list(items)
        if items is not None and star is not None and len(items) >= count - 1 and len(items) != 1:
            after = count - 1 - star  # a, *rest, z = seq
            return [
                *items[:star],
                Seq(items[star : len(items) - after]),
                *items[len(items) - after :],
            ]
        if is_symbolic(value) and star is None:  # a, b = pair: pair[0], pair[1]
            return [sm.item(value, index) for index in range(count)]
        element = self.element_of(value)
        return [may_contain([element]) if index == star else element for index in range(count)]
