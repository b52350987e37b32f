"""The flow-model table's kinds over iterables: what the builtins and ``itertools`` give.

The rows are in :mod:`..semantics.flowmodels` (``builtins.zip``, ``itertools.chain``...);
:meth:`.flows.Flows.apply_flow` hands a row of one of these kinds
(:data:`..semantics.flowmodels.ITERABLE_KINDS`) to :meth:`Library.iterable_flow`, which
does what the kind says with the row's argument. No callee is named here:

* ``sequence``: the argument's elements, the same (in order: ``list``, ``iter``), reversed,
  or any of them (``sorted``, ``set``) when the sequence is known element by element;
* ``element``: an element (``next``); ``repeats``: the argument itself (``repeat``);
* ``zips``: tuples of an element of each argument (``zip``, ``product``, ``zip_longest``
  with its fill value); ``pairs``: pairs by the row's shape (``enumerate``, ``pairwise``,
  ``groupby``); ``combines``: tuples of any element (``permutations``);
* ``chains``: each argument's elements in turn, in order when all are known (``chain``;
  of argument i's elements: ``chain.from_iterable``); ``slices``: a slice by literal
  bounds (``islice``); ``tees``: ``n`` iterators over the same elements;
* ``picks``: one of the arguments (``min``, ``max``);
* ``imports``: an import by a literal name (``importlib.import_module``), run as the
  ``import`` statement runs it (:meth:`Library.import_by_call`, which ``__import__``, a
  language hook kept in :mod:`.builtins`, shares).

A call whose ``*args`` spread is of unknown length gives nothing known, or (a row's
``spread``) any element of any argument.
"""

from __future__ import annotations

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.state import State
from ..abstract.values import Seq, Value, join, join_all
from ..semantics import flowmodels as fm
from ..semantics.effects import canonical, enables_transfer_to_npu
from ..semantics.sites import Arg, CallSite
from .core import is_symbolic, may_contain
from .higher_order import CALLABLE


class Library:
    """The kinds of the flow-model table over iterables."""

    def iterable_flow(
        self, model: fm.FlowModel, site: CallSite, state: State, current: ExtStream | None
    ) -> Value:
        """The value of a call ``site`` by ``model``, a row of one of the iterables' kinds."""
        kind = model.kind
        if kind == fm.IMPORTS:
            return self.import_by_call(site, whole=True)
        if kind == fm.PICKS:
            return self._picks(site, state, current)
        if site.star_at is not None:  # chain(*lists): any element of any of them
            if not model.spread:
                return None
            spread = self.element_of(site.spread)
            values = [arg.value for arg in site.positional] + [spread]
            return may_contain([self.element_of(v) for v in values])
        if kind == fm.CHAINS and model.arg is None:
            values = [arg.value for arg in site.positional]
            return _chain(values, self.element_of) if values else None
        given = site.arg(model.arg, model.keyword)  # type: ignore[arg-type]
        if given is None:
            return Seq(()) if model.empty and not site.positional else None
        value = given.value
        if kind == fm.SEQUENCE:
            if isinstance(value, Seq) and not value.keys and not value.is_dict:
                if model.order == fm.SAME:  # the same elements, in order
                    return value
                if model.order == fm.REVERSED:
                    return Seq(value.items[::-1])
            return may_contain([self.element_of(value)])  # order unknown: any element
        if kind == fm.ELEMENT:
            return self.element_of(value)
        if kind == fm.REPEATS:
            return may_contain([value])
        if kind == fm.CHAINS:  # chain.from_iterable(xs): the elements of the elements
            return may_contain([self.element_of(self.element_of(value))])
        if kind == fm.SLICES:
            bounds = [arg.value for arg in site.positional[model.arg + 1 :]]  # type: ignore[operator]
            return _islice(value, bounds, self.element_of)
        if kind == fm.ZIPS:
            return self._zips(model, site)
        if kind == fm.PAIRS:
            element = self.element_of(value)
            group = may_contain([element]) if "E" in model.shape else None
            parts = {"?": None, "e": element, "E": group}
            return Seq((Seq(tuple(parts[c] for c in model.shape)),))
        if kind == fm.TEES:
            count = site.arg(model.arg + 1, "n")  # type: ignore[operator]
            n = count.value.value if count is not None and isinstance(count.value, Const) else 2
            copy = value if _exact(value) else self._any(value)
            if type(n) is int and 0 < n <= 16:
                return Seq((copy,) * n)
            return may_contain([copy])
        # combines: permutations, combinations: tuples of any element
        return may_contain([self._any(value)])

    def call_key(
        self, model: fm.FlowModel, site: CallSite, state: State, current: ExtStream | None
    ) -> None:
        """A row's ``key``: ``sorted(xs, key=f)``, ``min``/``max(..., key=f)`` call ``f`` on
        an element; ``filter(f, xs)`` calls ``f`` on each."""
        if isinstance(model.key, int):
            if len(site.positional) <= max(model.key, model.arg):  # type: ignore[type-var]
                return
            func = site.positional[model.key].value
            items = site.positional[model.arg].value  # type: ignore[index]
        else:
            key = site.keywords.get(model.key)  # type: ignore[arg-type]
            if key is None or not site.positional:
                return
            func, items = key.value, site.positional[0].value
            if model.kind == fm.PICKS and len(site.positional) > 1:
                items = may_contain([a.value for a in site.positional])
        if isinstance(func, CALLABLE):
            inner = CallSite(site.node, "call", [Arg(self.element_of(items), None)])
            self._call_value(func, site.node, inner, state, current)

    def _picks(self, site: CallSite, state: State, current: ExtStream | None) -> Value:
        """``min``/``max``: one of the arguments, or of the one sequence's elements."""
        values = [arg.value for arg in site.positional]
        if len(values) == 1 and (isinstance(values[0], Seq) or is_symbolic(values[0])):
            return self.element_of(values[0])  # min(streams, key=...): one of them
        if any(isinstance(v, ExtStream) for v in values):
            return join_all(values)  # max(a, b, key=...): one of the arguments
        return self._call_value(None, site.node, site, state, current)  # a tensor's operands

    def _zips(self, model: fm.FlowModel, site: CallSite) -> Value:
        """Tuples of an element of each argument, each joined with the fill value if any."""
        values = [arg.value for arg in site.positional[model.arg :]]  # type: ignore[misc]
        filler: Value = None
        if model.fill:
            fill = site.keywords.get(model.fill)
            filler = fill.value if fill is not None else Const(None)
        elements = (self.element_of(v) for v in values)
        row = tuple(join(e, filler) if filler is not None else e for e in elements)
        return Seq((Seq(row),))

    def _any(self, value: Value) -> Value:
        """An iterable of unknown length whose elements are any element of ``value``."""
        return may_contain([self.element_of(value)])

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


def _exact(value: Value) -> bool:
    """A sequence known element by element (a display, not a dict or a "may contain")."""
    return isinstance(value, Seq) and not value.keys and not value.is_dict and len(value.items) != 1


def _chain(values: list[Value], element_of) -> Value:
    if all(_exact(v) for v in values):
        return Seq(tuple(item for v in values for item in v.items))  # type: ignore[union-attr]
    return may_contain([element_of(v) for v in values])


def _islice(source: Value, bounds: list[Value], element_of) -> Value:
    """``islice(xs, stop)`` / ``islice(xs, start, stop[, step])``, as ``xs[start:stop:step]``."""
    known = [b.value if isinstance(b, Const) else b for b in bounds]
    literal = all(b is None or type(b) is int for b in known) and 1 <= len(known) <= 3
    if _exact(source) and literal and all(isinstance(b, Const) for b in bounds):
        part = slice(*known) if len(known) > 1 else slice(known[0])
        return Seq(source.items[part])  # type: ignore[union-attr]
    return may_contain([element_of(source)])
