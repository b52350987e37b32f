"""Grad mode in the interpreter: ``torch.no_grad()`` and its kin as decorators and plain calls.

What each grad-mode object means, and what no-grad mode does to values, is
:mod:`..semantics.autograd`; ``with`` blocks are :mod:`.statements`'. This mixin keeps the
two other ways a mode is set: a decorator over a ``def`` (its body runs in that mode, whoever
calls it) and a plain ``torch.set_grad_enabled(flag)`` call (the mode from there on).
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Ref
from ..abstract.handles import GradMode
from ..abstract.state import State
from ..abstract.values import Tensor, Value
from ..semantics import autograd as ag

__all__ = ["GradModes"]


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

    @staticmethod
    def note_grad_call(qualname: str, value: Value, state: State) -> None:
        """``torch.set_grad_enabled(False)`` as a statement: the mode from here on."""
        if isinstance(value, GradMode) and qualname.endswith(".set_grad_enabled"):
            ag.set_mode(state.env, value)

    def note_in_place(
        self, method: str, receiver: cst.CSTNode, result: Value, state: State, scope: object
    ) -> None:
        """``t.detach_()``, ``t.requires_grad_()`` change ``t`` itself: a plain name bound to
        the receiver is bound to the result from here on."""
        if method in ag.IN_PLACE and isinstance(result, Tensor) and type(receiver) is cst.Name:
            self.bind(receiver.value, result, state, scope)  # type: ignore[attr-defined]
