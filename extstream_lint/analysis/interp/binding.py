"""Argument binding: which value each parameter of a called function gets, as Python binds.

Positional arguments fill the positional parameters, the rest go to ``*args`` (a tuple),
keywords to their parameter or to ``**kwargs`` (a dict); a parameter left unfilled takes its
default. Spreads are resolved where their contents are known: ``*(a, b)`` and a tuple bound
to a name are positional arguments, ``**{"k": v}`` and a dict with literal keys are keywords
(the interpreter expands those while it evaluates the call, :class:`.sites.CallSite`). What
is left is a spread of unknown length: a list built by a comprehension, or the ``*args`` /
``**kwargs`` a wrapper received and passes on (``fn(*args, **kwargs)``, ``self.h.sync(*args)``).
Each parameter it may fill gets the element it would be (``args[0]``, ``kwargs['s']``), a
path of the caller's own parameter, so a sink inside the callee becomes a sink of the
wrapper on that path and is resolved at the wrapper's call sites. After such a spread no
default is assumed: what the spread fills is not known.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..abstract.atoms import ExtStream
from ..abstract.values import FunctionInfo, Seq, Value
from ..semantics.sites import Arg, CallSite
from .summaries import Binding, item

__all__ = ["bind_arguments"]


@lru_cache(maxsize=4096)
def _layout(
    params: tuple[tuple[str, str], ...],
) -> tuple[tuple[int, ...], dict[str, int], int | None, int | None]:
    """Per parameter list (shared by every call): the positional slots, the parameters a
    keyword can name, and where ``*args`` / ``**kwargs`` are."""
    kinds = [kind for _, kind in params]
    positional = tuple(i for i, kind in enumerate(kinds) if kind in ("pos", "posonly"))
    named = {name: i for i, (name, kind) in enumerate(params) if kind in ("pos", "kwonly")}
    star = kinds.index("star") if "star" in kinds else None
    starstar = kinds.index("starstar") if "starstar" in kinds else None
    return positional, named, star, starstar


def bind_arguments(info: FunctionInfo, site: CallSite | None, receiver: Arg | None) -> Binding:
    """Match a call's arguments to ``info``'s parameters (``receiver`` is ``self``)."""
    args: dict[int, Arg] = {}
    params = info.params
    first = 0
    if params and "staticmethod" not in info.decorators:
        if receiver is not None:
            args[0] = receiver
            first = 1
        elif "classmethod" in info.decorators:
            first = 1  # ``Tools.sync(ext)``: ``cls`` is implicit, ``ext`` is the next one
    if site is None:
        return Binding(info, args, None)
    positional, named, star, starstar = _layout(params)
    known = site.positional if site.star_at is None else site.positional[: site.star_at]
    extra: list[Arg] = []
    for offset, arg in enumerate(known):
        slot = first + offset
        if slot < len(positional):
            args[positional[slot]] = arg
        else:
            extra.append(arg)
    if star is not None and site.star_at is None:  # the tuple ``*args`` is, even empty
        args[star] = Arg(Seq(tuple(arg.value for arg in extra)), None)
    if site.keywords:
        for name, index in named.items():
            if name in site.keywords:
                args[index] = site.keywords[name]
    rest = {k: v for k, v in site.keywords.items() if k not in named} if site.keywords else {}
    if starstar is not None and not site.double_star:
        values = tuple(arg.value for arg in rest.values())
        keys = tuple((key, arg.value) for key, arg in rest.items())
        args[starstar] = Arg(Seq(values, keys), None)
    if site.star_at is not None:
        _bind_spread(site, args, positional[first + len(known) :], star)
    if site.double_star:
        _bind_keyword_spread(site.kw_spread, args, named, starstar)
    if site.star_at is None and not site.double_star:
        for index, default in info.defaults.items():
            args.setdefault(index, Arg(default, None))
    return Binding(info, args, None)


def _bind_spread(
    site: CallSite, args: dict[int, Arg], slots: tuple[int, ...], star: int | None
) -> None:
    """The slots a ``*spread`` of unknown length fills, from its first element on: when no
    positional argument follows it, slot ``k`` is element ``k`` (a forwarded ``*args``: as
    many as the caller passes; a list: as many as it is known to hold)."""
    spread = site.spread
    if site.star_at != len(site.positional):
        return  # f(*xs, y): where y lands is not known
    forwarded = isinstance(spread, ExtStream) and spread.param is not None
    if forwarded:
        count = len(slots)
    elif isinstance(spread, Seq) and not spread.keys and not spread.is_dict:
        count = min(len(slots), len(spread.items))
    else:
        return
    for k in range(count):
        args.setdefault(slots[k], Arg(item(spread, k), None))
    if forwarded and star is not None and not slots:
        args.setdefault(star, Arg(spread, None))  # def g(*a) given *args: the same tuple


def _bind_keyword_spread(
    spread: Value, args: dict[int, Arg], named: dict[str, int], starstar: int | None
) -> None:
    """A forwarded ``**kwargs``: each parameter a keyword can name may be ``kwargs[name]``;
    one already filled by position may be either (a sink on each, resolved at the caller)."""
    if not (isinstance(spread, ExtStream) and spread.param is not None):
        return
    for name, index in named.items():
        by_name = item(spread, name)
        if not isinstance(by_name, ExtStream):
            continue
        bound = args.get(index)
        if bound is None:
            args[index] = Arg(by_name, None)
        elif isinstance(bound.value, ExtStream) and bound.value.param is not None:
            also = tuple(dict.fromkeys((*bound.value.also, *by_name.refs())))
            args[index] = Arg(replace(bound.value, also=also), bound.text)
    if starstar is not None:
        args.setdefault(starstar, Arg(spread, None))
