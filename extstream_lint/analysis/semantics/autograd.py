"""The autograd model: grad mode, which tensors require grad, and what cuts their history.

XST203 (hazard 3 of ``shared/spec/hazards.md``) is about the nodes a backward walks: the
streams they were *recorded* under, not every stream a value was computed under. torch records
a node only when grad mode is on and some input requires grad, so a tensor made under an
external stream inside ``torch.no_grad()``, cut by ``.detach()``, or computed from inputs that
never required grad brings no node of that stream into a later loss's graph.

So this module says, from torch's own rules:

* **grad mode** (:func:`grad_mode`): ``torch.no_grad()``, ``enable_grad()``,
  ``inference_mode(mode=True)`` and ``set_grad_enabled(flag)`` with a literal flag give a
  :class:`.handles.GradMode`; the interpreter keeps the mode in the state under
  :data:`GRAD_KEY` (as a context, as a decorator, after a plain ``set_grad_enabled(False)``)
  and, while it is off, every value an operation yields has no history (:func:`cut`);
* **what requires grad**: ``nn.Parameter(t)``, a factory given ``requires_grad=True``, and
  ``t.requires_grad_()`` give a leaf that may require grad (a tensor whose provenance is not
  known: whatever an op under a stream records from it, it records); a factory otherwise
  gives :data:`.made.NOGRAD`; an op on tensors that all carry no history has none
  (:func:`.provenance.derive`);
* **what cuts history** (:data:`CUT_METHODS`, :data:`CUT_ATTRS`): ``detach()``, ``detach_()``,
  ``.data``, and the Python values of ``item()``, ``tolist()``, ``numpy()``.
"""

from __future__ import annotations

from dataclasses import replace

from ..abstract.atoms import Const
from ..abstract.handles import GradMode
from ..abstract.made import NOGRAD
from ..abstract.values import Seq, Tensor, Value
from .sites import CallSite

__all__ = [
    "CUT_ATTRS",
    "CUT_METHODS",
    "FROZEN",
    "GRAD_KEY",
    "GRAD_MODES",
    "LEAF_METHODS",
    "PARAMETERS",
    "cut",
    "grad_mode",
    "grad_off",
    "leaf",
]

#: The state key holding the grad mode (``Const(False)``: off, ``Const(True)``: on; absent:
#: whatever the caller has, taken as on). Not a Python name, so no binding can clash with it.
GRAD_KEY = "<grad mode>"

_SPELLED = ("torch.", "torch.autograd.", "torch.autograd.grad_mode.")
#: The grad-mode objects by canonical name: the mode they set, or "flag" (their argument).
GRAD_MODES: dict[str, object] = {
    f"{prefix}{name}": mode
    for prefix in _SPELLED
    for name, mode in (
        ("no_grad", False),
        ("enable_grad", True),
        ("inference_mode", "inference"),
        ("set_grad_enabled", "flag"),
    )
}
#: ``nn.Parameter(t)``: a leaf that requires grad.
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
#: Methods whose result has no autograd history (a detached tensor, or a Python value).
CUT_METHODS = frozenset({"detach", "detach_", "item", "tolist", "numpy"})
#: Attributes whose value has no autograd history.
CUT_ATTRS = frozenset({"data"})
#: The attribute a module's ``requires_grad_(flag)`` sets on it (``True``: every parameter
#: frozen, so a call of it records nodes only from inputs that require grad). An identifier
#: Python code would not spell, so no user attribute clashes with it.
FROZEN = "_xst_params_frozen_"
#: Methods that make their receiver a leaf that requires grad.
LEAF_METHODS = frozenset({"requires_grad_"})
#: Methods that change the receiver itself (the name it is bound to gets the result).
IN_PLACE = frozenset({"detach_", "requires_grad_"})


def grad_mode(site: CallSite | None, qualname: str) -> GradMode | None:
    """The grad mode ``qualname(...)`` (or, uncalled, ``@qualname``) sets, or None when it is
    not a grad-mode object. A flag the analysis cannot read leaves the mode unknown."""
    mode = GRAD_MODES.get(qualname)
    if mode is None:
        return None
    if isinstance(mode, bool):
        return GradMode(mode)
    if mode == "inference":  # inference_mode(mode=True): off unless given a false literal
        if site is None:
            return GradMode(False)
        arg = site.arg(0, "mode")
        return GradMode(False) if arg is None else GradMode(_flag(arg.value, negate=True))
    if site is None:
        return None
    arg = site.arg(0, "mode")
    return GradMode(None) if arg is None else GradMode(_flag(arg.value, negate=False))


def _flag(value: Value, negate: bool) -> bool | None:
    if isinstance(value, Const) and isinstance(value.value, bool):
        return (not value.value) if negate else value.value
    return None


def grad_off(env: dict[str, Value]) -> bool:
    """Grad mode is off on every path here."""
    mode = env.get(GRAD_KEY)
    return isinstance(mode, Const) and mode.value is False


def set_mode(env: dict[str, Value], mode: GradMode) -> None:
    """Enter ``mode``: a literal mode is kept; an unknown one is the caller's (absent)."""
    if mode.enabled is None:
        env.pop(GRAD_KEY, None)
    else:
        env[GRAD_KEY] = Const(mode.enabled)


def restore_mode(env: dict[str, Value], saved: Value) -> None:
    """Leave a grad-mode block: the mode from before it."""
    if saved is None:
        env.pop(GRAD_KEY, None)
    else:
        env[GRAD_KEY] = saved


_CUT = Tensor(made=NOGRAD)


def cut(value: Value, depth: int = 0) -> Value:
    """``value`` without autograd history: a tensor's provenance is :data:`.made.NOGRAD`
    (kept where its memory is); each element of a tuple or list alike. Anything else (a
    stream, an object, an unknown value) is returned as it is."""
    if isinstance(value, Tensor):
        if value.made is NOGRAD:
            return value
        if value.place == _CUT.place and value.index is None:
            return _CUT
        return replace(value, made=NOGRAD)
    if isinstance(value, Seq) and not value.keys and not value.is_dict and depth < 2:
        items = tuple(cut(item, depth + 1) for item in value.items)
        if all(a is b for a, b in zip(items, value.items)):
            return value
        return replace(value, items=items)
    return value


def leaf(value: Value) -> Value:
    """A leaf that may require grad (``nn.Parameter(t)``, ``t.requires_grad_()``): where
    ``value``'s memory is, no provenance (what ops under a stream record from it, they record)."""
    if isinstance(value, Tensor):
        return Tensor(value.place, value.index)
    return Tensor()
