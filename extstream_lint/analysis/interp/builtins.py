"""Builtins: the language's own hooks here, the rest rows of the flow-model table.

A builtin is followed only while the module does not rebind its name (:data:`BUILTINS`).
Those that move values as a library function does (``list``, ``zip``, ``sorted``, ``map``,
``min``, ``next``, ``dict``...) are rows ``builtins.NAME`` of
:mod:`..semantics.flowmodels`, applied by :mod:`.flows`. Kept in code here are the builtins
that are the language's semantics rather than a library call's behaviour, each the
function form of something the interpreter does anyway:

* ``getattr``/``setattr``/``vars``: attribute access and assignment, and an object's
  ``__dict__`` (the language reference's attribute protocol, 3.3.2), as ``obj.name`` is
  read and assigned, with ``__getattr__`` delegation;
* ``type(x)``: the class of a value (the data model's object identity and type, 3.1);
  ``staticmethod(f)``: the descriptor a method definition makes (3.3.2.2);
* ``bool(x)``: truth value testing (the constants' truth, as ``if x`` decides it);
* ``isinstance(x, type(None))``: None-ness, as ``x is None`` tests it (:mod:`.nones`);
* ``__import__``: the hook the ``import`` statement calls (the import system, 5).

``dict``'s constructor is shared by the table's ``dict`` kind (:meth:`Builtins._make_dict`).
"""

from __future__ import annotations

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.state import State
from ..abstract.values import Instance, Seq, Value, is_none, join
from ..semantics import flowmodels as fm
from ..semantics.effects import canonical, class_of
from ..semantics.sites import CallSite
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
        model = fm.BUILTINS.get(name)
        if model is not None:  # zip, list, sorted, map...: the flow-model table (flows.py)
            return self.apply_flow(model, None, site, state, current)
        values = [arg.value for arg in site.positional]
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
        if name == "staticmethod" and len(values) == 1:  # datamodel.py
            return unbound(values[0], site.node, site.positional[0].text)
        if name == "type" and len(values) == 1 and not site.keywords:  # type(self)(...)
            if is_none(values[0]):
                return NONE_TYPE  # type(None): isinstance(x, type(None)) tests None-ness
            return values[0].cls if isinstance(values[0], Instance) else class_of(values[0])
        if name == "__import__":  # the top-level package, as ``import a.b`` binds ``a``,
            listed = site.arg(3, "fromlist")  # or the module itself given a ``fromlist``
            empty = listed is None or listed.value in (Const(None), Seq(()))
            return self.import_by_call(site, whole=not empty)
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


#: The builtins followed, unless the module rebinds the name: the language's (here) and the
#: flow-model table's rows.
BUILTINS = frozenset(
    {"bool", "isinstance", "getattr", "setattr", "vars", "type", "staticmethod", "__import__"}
) | frozenset(fm.BUILTINS)
