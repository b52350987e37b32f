"""Process modes set by plain calls: grad mode (``torch.no_grad()`` and its kin as
decorators and calls) and the current NPU (``torch.npu.set_device(k)``).

What each grad-mode object means, and what no-grad mode does to values, is
:mod:`..semantics.autograd`; ``with`` blocks are :mod:`.statements`'. This mixin keeps the
two other ways a mode is set: a decorator over a ``def`` (its body runs in that mode, whoever
calls it) and a plain ``torch.set_grad_enabled(flag)`` call (the mode from there on). The
current device (:data:`DEVICE_KEY`) puts a stream made without ``device=``
(``ExternalStream(p)`` after ``set_device(k)``) on that device, so the per-device copy
rules (:mod:`..semantics.copies`) can judge it.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.handles import GradMode
from ..abstract.state import State
from ..abstract.values import Tensor, Value
from ..semantics import autograd as ag
from ..semantics.devices import literal, npu_index
from ..semantics.sites import CallSite

__all__ = ["DEVICE_KEY", "GradModes"]

#: The state key of the current NPU's index (``Const(int)`` or ``Const(Sym)``), once
#: ``set_device`` gave one; absent: not known.
DEVICE_KEY = "<npu device>"
#: Tensor methods that read ``non_blocking`` (the copies of hazard 1).
_COPIES = frozenset({"to", "npu", "cuda", "copy_"})
_SET_DEVICE = frozenset(
    {
        "torch_npu.npu.set_device",
        "torch_npu.npu.utils.set_device",
        "torch.accelerator.set_device_index",
    }
)


class GradModes:
    """Decorated definitions and plain ``set_grad_enabled`` calls."""

    #: ``def`` nodes under a grad-mode decorator, and the mode (made on first use).
    grad_decorated: dict[cst.CSTNode, GradMode] | None = None

    def note_grad_decorators(
        self, node: cst.FunctionDef, applied: list[tuple[cst.Decorator, Value]]
    ) -> None:
        """``@torch.no_grad()``, ``@torch.no_grad``, ``@torch.inference_mode()``...: the body
        of ``node`` runs in that mode (the outermost one wins, as the calls nest)."""
        for _, value in applied:
            mode = value if isinstance(value, GradMode) else None
            if mode is None and isinstance(value, Ref):
                mode = ag.grad_mode(None, value.qualname)
            if mode is not None:
                if self.grad_decorated is None:
                    self.grad_decorated = {}
                self.grad_decorated[node] = mode
                return

    def enter_body_mode(self, node: cst.CSTNode, state: State) -> None:
        """A decorated body starts in its decorator's mode."""
        mode = self.grad_decorated.get(node) if self.grad_decorated else None
        if mode is not None:
            ag.set_mode(state.env, mode)

    def after_torch_call(self, qualname: str, site: CallSite, value: Value, state: State) -> Value:
        """What a torch call sets for what follows: ``torch.set_grad_enabled(False)`` as a
        statement (the grad mode from here on), ``set_device(k)`` (the current NPU); a
        stream it makes without a device is on the current NPU."""
        if isinstance(value, GradMode) and qualname.endswith(".set_grad_enabled"):
            ag.set_mode(state.env, value)
        elif qualname in _SET_DEVICE:
            found, node = literal(site, site.arg(0, "device"))
            index = npu_index(found, node, self.transfer_to_npu)  # type: ignore[attr-defined]
            if index is None:
                state.env.pop(DEVICE_KEY, None)
            else:
                state.env[DEVICE_KEY] = Const(index)
        elif isinstance(value, ExtStream) and value.param is None and value.device is None:
            known = state.env.get(DEVICE_KEY)
            if isinstance(known, Const) and known.value is not None:
                return replace(value, device=frozenset({known.value}))
        return value

    def note_in_place(
        self,
        method: str,
        receiver: cst.CSTNode,
        result: Value,
        state: State,
        scope: object,
        site: CallSite,
    ) -> None:
        """``t.detach_()``, ``t.requires_grad_()`` change ``t`` itself: a plain name bound to
        the receiver is bound to the result from here on. A copy given a helper's own
        ``**kwargs`` (``t.to(dev, **kwargs)``) passes them on where ``non_blocking`` is read:
        a caller's literal flags there get a copy of the summary (:mod:`.constants`)."""
        if site.double_star and method in _COPIES:
            self._note_passed_on(site.kw_spread)  # type: ignore[attr-defined]
        if method in ag.IN_PLACE and isinstance(result, Tensor) and type(receiver) is cst.Name:
            self.bind(receiver.value, result, state, scope)  # type: ignore[attr-defined]
