"""The builtins that move values: containers, iteration, ``getattr``, ``map``, ``dict``.

A builtin is followed only while the module does not rebind its name (:data:`BUILTINS`).
``list``/``tuple``/``iter`` keep a known sequence as it is, ``reversed`` reverses it, and
``sorted``/``set`` keep only what it may hold (the order is not known); ``map`` calls its
function on an element; ``dict`` keeps literal keywords as keys.
"""

from __future__ import annotations

from collections.abc import Callable

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.state import State
from ..abstract.values import Instance, Seq, Value, is_none, join, join_all
from ..semantics.effects import canonical, class_of
from ..semantics.sites import Arg, CallSite
from .constants import const_truth
from .core import may_contain
from .datamodel import unbound
from .nones import NONE_TYPE, is_none_type


class Builtins:
    """Calls of the builtins that move values, by name."""

    def _call_builtin(
        self, name: str, site: CallSite, state: State, current: ExtStream | None
    ) -> Value:
        """The builtins that move values around: containers, iteration, ``getattr``."""
        values = [arg.value for arg in site.positional]
        if name in _KEYED:  # sorted(xs, key=f), filter(f, xs): f is called on elements
            self.call_with_key(name, site, state, current)
            if name == "filter":
                return may_contain([self.element_of(values[1])]) if len(values) > 1 else None
            if name != "sorted" and len(values) == 1 and isinstance(values[0], Seq):
                return self.element_of(values[0])  # min(streams, key=...): one of them
            if name != "sorted" and any(isinstance(v, ExtStream) for v in values):
                return join_all(values)  # max(a, b, key=...): one of the arguments
            if name != "sorted":  # min, max: as any other call (a tensor's operands)
                return self._call_value(None, site.node, site, state, current)
        if name == "bool":  # bool(flag): a literal's truth stays a literal (constants.py)
            truth = const_truth(values[0]) if len(values) == 1 and not site.keywords else None
            if truth is not None:
                return Const(truth)
            return self._call_value(None, site.node, site, state, current)
        if name == "isinstance":  # isinstance(stream, type(None)): None-ness (nones.py)
            truth = is_none_type(values) if len(values) == 2 and not site.keywords else None
            if truth is not None:
                return Const(truth)
            return self._call_value(None, site.node, site, state, current)
        if name == "getattr" and len(values) >= 2:
            attr = values[1].value if isinstance(values[1], Const) else None  # a literal name
            if isinstance(attr, str) and attr.isidentifier():
                if isinstance(values[0], Ref):  # getattr(torch.npu.Stream, "synchronize")
                    return Ref(canonical(f"{values[0].qualname}.{attr}", self.transfer_to_npu))
                text = site.positional[0].text
                method = self._stream_method(values[0], attr, text, site.node)
                found = method or self._attribute_of(values[0], attr, text)
                if len(values) > 2 and not self.has_attribute(values[0], attr):
                    return join(found, values[2])  # getattr(obj, "x", default)
                return found
            return self.forwarding(values[0])  # in a __getattr__: delegation (objects.py)
        if name == "vars" and len(values) == 1:  # the object's __dict__ (classes.py)
            return self._attribute_of(values[0], "__dict__", None)
        if name == "enumerate" and values:
            return Seq((Seq((None, self.element_of(values[0]))),))
        if name == "zip" and values and site.star_at is None:
            return Seq((Seq(tuple(self.element_of(v) for v in values)),))
        if name == "map" and len(values) >= 2:
            inner = CallSite(site.node, site.positional[0].text or "map")
            inner.positional = [Arg(_mapped_element(self.element_of, v), None) for v in values[1:]]
            made = self._call_value(values[0], site.node, inner, state, current)
            return may_contain([made])
        if name == "staticmethod" and len(values) == 1:  # datamodel.py
            return unbound(values[0], site.node, site.positional[0].text)
        if name in ("next", "anext") and values:  # anext(agen): awaited, what it yields
            return self.element_of(values[0])
        if name == "type" and len(values) == 1 and not site.keywords:  # type(self)(...)
            if is_none(values[0]):
                return NONE_TYPE  # type(None): isinstance(x, type(None)) tests None-ness
            return values[0].cls if isinstance(values[0], Instance) else class_of(values[0])
        if name == "dict":
            return self._make_dict(site) if values or site.keywords else Seq((), is_dict=True)
        if name == "list" and not values and not site.keywords and site.star_at is None:
            return Seq(())  # an empty list (containers.py adds to it)
        if name == "set" and not values and not site.keywords and site.star_at is None:
            return Seq(())  # an empty set: what ``add`` adds is what iterating it gives
        if name == "__import__":  # the top-level package, as ``import a.b`` binds ``a``,
            listed = site.arg(3, "fromlist")  # or the module itself given a ``fromlist``
            empty = listed is None or listed.value in (Const(None), Seq(()))
            return self.import_by_call(site, whole=not empty)
        if name in ("list", "tuple", "set", "frozenset", "sorted", "reversed", "iter") and values:
            value = values[0]
            if isinstance(value, Seq) and not value.keys and not value.is_dict:
                if name in ("list", "tuple", "iter"):  # the same elements, in order
                    return value
                if name == "reversed":
                    return Seq(value.items[::-1])
            return may_contain([self.element_of(value)])  # order unknown: any element
        return None

    def _make_dict(self, site: CallSite) -> Value:
        """``dict(pairs)``, ``dict(mapping)``, ``dict(k=v)``: values by literal keyword, or
        a dict whose values are any of the pairs' second items (``dict(zip(names, streams))``).
        """
        if site.star_at is not None or site.double_star or len(site.positional) > 1:
            return None
        keywords = tuple((key, arg.value) for key, arg in site.keywords.items())
        if not site.positional:
            values = [value for _, value in keywords]
            made = may_contain(values)
            return Seq(made.items, keywords) if isinstance(made, Seq) else None
        source = site.positional[0].value
        if not isinstance(source, Seq):
            return None
        if source.keys or source.is_dict:  # a copy of a dict (keywords: unknown keys)
            return None if keywords else source
        pair = self._as_seq(self.element_of(source))
        if not isinstance(pair, Seq) or len(pair.items) != 2 or keywords:
            return None
        key, value = pair.items
        return Seq((value,), is_dict=True, key=key) if value is not None else None


def _mapped_element(element_of: Callable[[Value], Value], value: Value) -> Value:
    """The element ``map`` surely calls its function on: a listed external stream if any
    (``map(f, [side, ext])`` calls ``f(ext)``), else any element."""
    if isinstance(value, Seq) and not value.keys and not value.is_dict:
        for item in value.items:
            if isinstance(item, ExtStream) and item.must and item.param is None:
                return item
    return element_of(value)


#: Builtins that move values: handled unless the module rebinds the name.
BUILTINS = frozenset(
    {
        "bool",
        "isinstance",
        "getattr",
        "setattr",
        "vars",
        "type",
        "dict",
        "enumerate",
        "zip",
        "map",
        "next",
        "anext",
        "staticmethod",
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "reversed",
        "iter",
        "min",
        "max",
        "filter",
        "__import__",
    }
)

#: Builtins that call a function they are given on elements (``key=``, ``filter``).
_KEYED = frozenset({"sorted", "min", "max", "filter"})
