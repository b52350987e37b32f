"""Standard-library calls that pass values through: ``contextlib``, ``itertools``, and
imports by call (``importlib.import_module("pkg.mod")``, ``__import__``).

They hold no stream semantics of their own, but a stream given to them comes back out:
each ``itertools`` function that rearranges elements gives an iterable of the elements of
its arguments, as :mod:`.builtins` does for ``zip`` and ``list``. Those the flow-model table
can say (``contextlib.nullcontext``/``closing``, ``cycle``, ``compress``, ``filterfalse``,
``takewhile``, ``dropwhile``: :mod:`..semantics.flowmodels`) are rows there; these keep
their order-aware code here:

* ``chain(a, b)``: a's then b's, kept in order when both are known element by element;
  ``chain.from_iterable(xs)``: the elements of the elements;
* ``islice(xs, ...)``: a slice of a known sequence by literal bounds, else any element;
* ``accumulate`` (no function): any element; ``repeat(x)``: ``x``;
* ``zip_longest(a, b, fillvalue=f)``: tuples of an element of each (or the fill value);
  ``product``: tuples of an element of each; ``pairwise``: pairs of elements;
  ``permutations``, ``combinations``: tuples of any element; ``groupby``: (key, group)
  pairs whose groups hold any element;
* ``tee(xs, n)``: ``n`` iterators over the same elements.

Called only for the qualified names of :data:`LIBRARY_CALLS`, so the cost is one set lookup
per resolved call.
"""

from __future__ import annotations

from ..abstract.atoms import Const, Ref
from ..abstract.values import Seq, Value, join
from ..semantics.effects import canonical, enables_transfer_to_npu
from ..semantics.sites import CallSite
from .core import may_contain

LIBRARY_CALLS = frozenset(
    {
        "importlib.import_module",
        "itertools.accumulate",
        "itertools.chain",
        "itertools.chain.from_iterable",
        "itertools.islice",
        "itertools.repeat",
        "itertools.zip_longest",
        "itertools.product",
        "itertools.pairwise",
        "itertools.permutations",
        "itertools.combinations",
        "itertools.combinations_with_replacement",
        "itertools.groupby",
        "itertools.tee",
    }
)


class Library:
    """What the pass-through calls of ``contextlib`` and ``itertools`` give."""

    def call_library(self, qualname: str, site: CallSite) -> Value:
        """The value of a call of one of :data:`LIBRARY_CALLS`."""
        if qualname == "importlib.import_module":
            return self.import_by_call(site, whole=True)
        if site.star_at is not None:  # chain(*lists): any element of any of them
            spread = self.element_of(site.spread)
            values = [arg.value for arg in site.positional] + [spread]
            if qualname in ("itertools.chain", "itertools.zip_longest", "itertools.product"):
                return may_contain([self.element_of(v) for v in values])
            return None
        values = [arg.value for arg in site.positional]
        if not values and qualname != "itertools.repeat":
            return None
        if qualname == "itertools.chain":
            return _chain(values, self.element_of)
        if qualname == "itertools.chain.from_iterable":
            return may_contain([self.element_of(self.element_of(values[0]))])
        if qualname == "itertools.islice":
            return _islice(values, self.element_of)
        if qualname == "itertools.repeat":
            obj = site.arg(0, "object")
            return may_contain([obj.value]) if obj is not None else None
        if qualname == "itertools.accumulate":
            return None if len(values) > 1 or "func" in site.keywords else _any(values[0], self)
        if qualname in ("itertools.zip_longest", "itertools.product"):
            fill = site.keywords.get("fillvalue")
            filler = (
                (fill.value if fill is not None else Const(None)) if "zip" in qualname else None
            )
            elements = (self.element_of(v) for v in values)
            row = tuple(join(e, filler) if filler is not None else e for e in elements)
            return Seq((Seq(row),))
        if qualname == "itertools.pairwise":
            element = self.element_of(values[0])
            return Seq((Seq((element, element)),))
        if qualname == "itertools.groupby":
            return Seq((Seq((None, _any(values[0], self))),))
        if qualname == "itertools.tee":
            count = site.arg(1, "n")
            n = count.value.value if count is not None and isinstance(count.value, Const) else 2
            copy = _same_elements(values[0], self)
            if type(n) is int and 0 < n <= 16:
                return Seq((copy,) * n)
            return may_contain([copy])
        # permutations, combinations: tuples of any element
        return may_contain([_any(values[0], self)])

    def import_by_call(self, site: CallSite, whole: bool) -> Value:
        """``importlib.import_module("a.b")`` (the module ``a.b``: ``whole``) or
        ``__import__("a.b")`` (the package ``a``): an import by a literal name runs the
        module as an ``import`` statement does, with its effects (``transfer_to_npu``)."""
        given = site.arg(0, "name")
        name = given.value.value if given is not None and isinstance(given.value, Const) else None
        if not isinstance(name, str) or not name or name.startswith("."):
            return None
        if enables_transfer_to_npu(name):
            self._remap_cuda()
        else:
            self._import_effects(name.split(".", 1)[0], name)
        wanted = name if whole else name.split(".", 1)[0]
        found = self._project_module(wanted)
        return found if found is not None else Ref(canonical(wanted, self.transfer_to_npu))


def _any(value: Value, interp: Library) -> Value:
    """An iterable of unknown length whose elements are any element of ``value``."""
    return may_contain([interp.element_of(value)])  # type: ignore[attr-defined]


def _same_elements(value: Value, interp: Library) -> Value:
    """An iterator over ``value``'s elements, in order when they are known."""
    if _exact(value):
        return value
    return _any(value, interp)


def _exact(value: Value) -> bool:
    """A sequence known element by element (a display, not a dict or a "may contain")."""
    return isinstance(value, Seq) and not value.keys and not value.is_dict and len(value.items) != 1


def _chain(values: list[Value], element_of) -> Value:
    if all(_exact(v) for v in values):
        return Seq(tuple(item for v in values for item in v.items))  # type: ignore[union-attr]
    return may_contain([element_of(v) for v in values])


def _islice(values: list[Value], element_of) -> Value:
    """``islice(xs, stop)`` / ``islice(xs, start, stop[, step])``, as ``xs[start:stop:step]``."""
    source, bounds = values[0], values[1:]
    known = [b.value if isinstance(b, Const) else b for b in bounds]
    literal = all(b is None or type(b) is int for b in known) and 1 <= len(known) <= 3
    if _exact(source) and literal and all(isinstance(b, Const) for b in bounds):
        part = slice(*known) if len(known) > 1 else slice(known[0])
        return Seq(source.items[part])  # type: ignore[union-attr]
    return may_contain([element_of(source)])
