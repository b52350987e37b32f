"""A call as the analysis sees it, and what judging it yields: shared by effects and hazards.

The interpreter builds a :class:`CallSite` (the callee's text and its evaluated arguments);
:mod:`.effects` (refusals) and :mod:`.hazards` (deferred failures) judge it and answer with
:class:`Issue` objects and, for module-level callees, an :class:`Outcome`. Both rule modules
import these types from here, so neither imports the other's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..abstract.atoms import ExtStream
from ..abstract.values import Value

__all__ = ["Arg", "CallSite", "Issue", "Outcome"]


@dataclass
class Arg:
    """One argument as the analysis sees it: its value and its source text (if simple)."""

    value: Value
    text: str | None
    #: The argument as written, where the call spells it: a callee's device named by its
    #: parameter is this expression in the caller's terms (:func:`.devices.in_caller`).
    node: cst.BaseExpression | None = field(default=None, compare=False, repr=False)


@dataclass
class CallSite:
    """A call, with its arguments evaluated."""

    node: cst.Call
    #: The callee as written, for messages: ``torch.npu.graph``, ``ext.synchronize``...
    callee_text: str
    positional: list[Arg] = field(default_factory=list)
    keywords: dict[str, Arg] = field(default_factory=dict)
    #: ``*args`` of unknown length seen: positions after it are unknown. A spread whose
    #: elements are known (``*(a, b)``, a tuple bound to a name) is in ``positional``.
    star_at: int | None = None
    #: ``**kw`` whose keys are not all literals seen (``**{"k": v}`` is in ``keywords``).
    double_star: bool = False
    #: The value spread at ``star_at`` (a caller's ``*args`` passed on, a list) and the
    #: one spread by the first unknown ``**``: :mod:`.binding` reads what it can from them.
    spread: Value = None
    kw_spread: Value = None
    #: ``torch_npu.contrib.transfer_to_npu`` was imported: ``"cuda"`` devices and
    #: ``Tensor.cuda`` are the NPU's (:mod:`.devices`).
    cuda_is_npu: bool = False
    #: How many of the call's positional argument expressions precede ``positional``: 1
    #: where ``C.m(obj, *args)`` is judged as ``obj.m(*args)`` (:mod:`.effects`).
    skipped: int = 0

    def arg(self, position: int, keyword: str) -> Arg | None:
        if keyword and keyword in self.keywords:
            return self.keywords[keyword]
        if self.star_at is not None and position >= self.star_at:
            return None
        if position < len(self.positional):
            return self.positional[position]
        return None


@dataclass(frozen=True)
class Issue:
    """A broken rule: the one finding type of the analysis until positions are known.

    ``stream`` is the external stream the call got (None for constructor rules), ``text``
    how the source names it, ``implicit`` that it is whatever is current. ``anchor`` is the
    node the finding is reported on (set by the interpreter when it reports the issue).
    """

    code: str
    operation: str
    stream: ExtStream | None = None
    text: str | None = None
    implicit: bool = False
    anchor: object = field(default=None, compare=False)
    #: Only while a function is summarised, on the caller's current stream: the operation
    #: is a method of an event, graph or work handle received as a parameter, so it happens
    #: only if the caller passes such a handle: (the parameter's :class:`.values.ParamRef`,
    #: the handle kind of the contract table).
    guard: tuple[object, str] | None = field(default=None, compare=False)
    #: Only while a function is summarised: a parameter (``ParamRef``) whose being external
    #: makes an earlier check raise first (``a.wait_stream(b)`` records on ``b`` before ``a``
    #: waits), so the issue does not happen when the caller passes an external stream there.
    unless: object = field(default=None, compare=False)


@dataclass
class Outcome:
    """What a call of a module-level function or class does."""

    issues: list[Issue] = field(default_factory=list)
    value: Value = None
    #: The argument the call makes current (``set_stream``), if any.
    makes_current: Arg | None = None
