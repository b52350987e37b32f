"""Evaluating a call's arguments into a :class:`~..sites.CallSite`, spreads included.

A ``*`` spread whose elements are known (a tuple or list display, a tuple bound to a name)
is positional arguments, and a ``**`` spread of a dict with literal keys (``**{"s": v}``)
is keywords, as Python passes them. Any other spread is kept whole on the site
(``spread``, ``kw_spread``): :mod:`..binding` reads what it can of it (a wrapper's own
``*args`` / ``**kwargs`` passed on).
"""

from __future__ import annotations

import libcst as cst

from ..abstract.state import State
from ..abstract.values import Seq, Value
from ..semantics.sites import Arg, CallSite
from ..source.syntax import dotted_name
from .core import Scope


class Arguments:
    """A call's arguments, evaluated in order, spreads resolved where known."""

    def _arguments(self, node: cst.Call, state: State, scope: Scope, callee_text: str) -> CallSite:
        site = CallSite(node, callee_text, cuda_is_npu=self.transfer_to_npu)
        for arg in node.args:
            value = self.eval(arg.value, state, scope)
            text = dotted_name(arg.value)
            if arg.star == "*":
                items = _spread_items(value, arg.value) if site.star_at is None else None
                if items is not None:  # f(*(a, b)): positional arguments
                    site.positional.extend(Arg(item, None) for item in items)
                elif site.star_at is None:
                    site.star_at, site.spread = len(site.positional), value
            elif arg.star == "**":
                if isinstance(value, Seq) and value.keys and not site.double_star:
                    for key, item in value.keys:  # f(**{"s": v}): keywords
                        if isinstance(key, str):
                            site.keywords.setdefault(key, Arg(item, None))
                elif not site.double_star:
                    site.double_star, site.kw_spread = True, value
            elif arg.keyword is not None:
                site.keywords[arg.keyword.value] = Arg(value, text, arg.value)
            else:
                site.positional.append(Arg(value, text, arg.value))
        return site


def _spread_items(value: Value, node: cst.CSTNode) -> tuple[Value, ...] | None:
    """The elements a ``*`` spread surely passes, in order, when they are known: a tuple or
    list display, or a value known element-wise (a container built element by element
    holds one joined element: its length is not known, so it is not one argument)."""
    if not isinstance(value, Seq) or value.keys or value.is_dict:
        return None
    if isinstance(node, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return value.items
    return value.items if len(value.items) != 1 else None
