"""Process modes set by plain calls: grad mode (``torch.no_grad()`` and its kin as
decorators and calls) and the current NPU (``torch.npu.set_device(k)``, the ``with`` block
of ``torch.npu.device(k)``, and a caller's, for a stream a helper makes).

What each grad-mode object means, and what no-grad mode does to values, is
:mod:`..semantics.autograd`; ``with`` blocks are :mod:`.statements`'. This mixin keeps the
two other ways a mode is set: a decorator over a ``def`` (its body runs in that mode, whoever
calls it) and a plain ``torch.set_grad_enabled(flag)`` call (the mode from there on). The
current device (:data:`DEVICE_KEY`) puts a stream made without ``device=``
(``ExternalStream(p)`` after ``set_device(k)``) on that device, so the per-device copy
rules (:mod:`..semantics.copies`) can judge it. A function body starts on
:data:`..semantics.devices.ENTRY`, the NPU current at its call, so a stream it makes there is
put on the caller's current NPU when the call returns it (:meth:`GradModes.on_caller_device`).

The current stream is kept per device: a managed stream on npu:1 made current while an
external stream is current on npu:0 leaves npu:0's as it was (:data:`AWAY_KEY`): copies that
touch npu:0 are still judged against it (:meth:`GradModes.away_current`); everything else
runs on npu:1's managed stream.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ... import contract as c
from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.handles import DeviceCtx, GradMode, ManagedStream
from ..abstract.state import State
from ..abstract.values import (
    NPU,
    Current,
    FunctionInfo,
    Instance,
    Seq,
    Tensor,
    Value,
    join_all,
)
from ..semantics import autograd as ag
from ..semantics.copies import AWAY
from ..semantics.devices import (
    DIFFERENT,
    ENTRY,
    MODULE_DEVICE,
    compare,
    entered,
    literal,
    npu_index,
    visible,
)
from ..semantics.hazards import computed, method_hazards
from ..semantics.provenance import made_of
from ..semantics.sites import Arg, CallSite

__all__ = ["AWAY_KEY", "COPY_METHODS", "DEVICE_KEY", "GradModes"]

#: The state key of the current NPU's index (``Const(int)`` or ``Const(Sym)``), once
#: ``set_device`` gave one; absent: not known.
DEVICE_KEY = "<npu device>"
#: The state key of an external stream still current on its own NPU while a managed stream
#: on another NPU is the current one (an :class:`.values.ExtStream`); absent: none.
AWAY_KEY = "<external stream on another npu>"
#: ``torch.npu.device(k)`` and ``device_of(t)``: context managers that select an NPU (the
#: torch_npu wheel's ``npu/utils.py``; neither is a decorator: no ``__call__``).
#: How many submodules ``parameters()`` looks into (an object graph may be cyclic or large).
_MAX_SUBMODULES = 64
_DEVICE_CONTEXTS = frozenset({"torch_npu.npu.device", "torch_npu.npu.device_of"})
#: Tensor methods that read ``non_blocking`` (the copies of hazard 1).
COPY_METHODS = frozenset({"to", "npu", "cuda", "copy_"})
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

    def enter_body_mode(self, node: cst.CSTNode, state: State, info: FunctionInfo) -> None:
        """A decorated body starts in its decorator's mode, and on its caller's NPU."""
        state.env[DEVICE_KEY] = Const(ENTRY)
        mode = self.grad_decorated.get(node) if self.grad_decorated else None
        if mode is not None:
            ag.set_mode(state.env, mode)
            self.note_grad_mode(mode, info)

    #: Set by a call of a function whose summary turns grad mode on, read (and cleared) by
    #: the expression that made the call: its result is not cut in no-grad mode.
    grad_kept: bool = False

    def take_grad_kept(self) -> bool:
        kept, self.grad_kept = self.grad_kept, False
        return kept

    def note_grad_mode(self, mode: GradMode, info: FunctionInfo | None = None) -> None:
        """The function being learnt sets ``mode``: its summary says when that turns grad
        mode on (the caller's no-grad mode then does not cut what it returns)."""
        info = info or self._function  # type: ignore[attr-defined]
        learning = self.learning  # type: ignore[attr-defined]
        if mode.enabled is True and info is not None and learning and not info.summary.grad_on:
            info.summary.grad_on = True
            info.summary.version += 1

    @staticmethod
    def on_caller_device(value: Value, state: State) -> Value:
        """A stream a call returns, made on the NPU current at the call: on this caller's."""
        known = state.env.get(DEVICE_KEY)
        return entered(value, known.value if isinstance(known, Const) else None)

    @staticmethod
    def enter_device(ctx: DeviceCtx, state: State) -> Value:
        """``with torch.npu.device(k):`` selects NPU ``k`` until the block ends; returns what
        to restore then (:meth:`restore_device`)."""
        saved = state.env.get(DEVICE_KEY)
        if ctx.index is None:
            state.env.pop(DEVICE_KEY, None)
        else:
            state.env[DEVICE_KEY] = Const(ctx.index)
        return saved

    @staticmethod
    def restore_device(state: State, saved: Value) -> None:
        if saved is None:
            state.env.pop(DEVICE_KEY, None)
        else:
            state.env[DEVICE_KEY] = saved

    @staticmethod
    def keep_away(stream: Value, current: Current | None, state: State) -> None:
        """``stream``, not external, becomes current: an external stream current on other
        NPUs than ``stream``'s stays current there (the current stream is per device)."""
        kept = None
        if isinstance(stream, ManagedStream) and current is not None:
            devices = visible(current.stream.device)
            if devices and all(compare(d, stream.device) == DIFFERENT for d in devices):
                s = current.stream
                kept = replace(s, how=AWAY, origin=current.origin, current_of=current.label)
        if kept is None:
            state.env.pop(AWAY_KEY, None)
        else:
            state.env[AWAY_KEY] = kept

    @staticmethod
    def away_current(state: State) -> ExtStream | None:
        """The external stream current on another NPU than the current one, if any."""
        kept = state.env.get(AWAY_KEY)
        if not isinstance(kept, ExtStream):
            return None
        return kept

    def module_method(
        self, module: Instance, method: str, site: CallSite, node: cst.CSTNode, state: State
    ) -> Value:
        """``model.parameters()`` (:meth:`module_parameters`); ``model.to(device)``,
        ``model.npu(k)`` of a ``torch.nn.Module`` subclass that does not define the method:
        ``nn.Module``'s, which moves the module itself and returns it; the module then holds
        the device (:data:`..semantics.devices.MODULE_DEVICE`). None for anything else."""
        if method == "parameters":
            return self.module_parameters(module)
        if method not in COPY_METHODS or module.cls.method(method) is not None:
            return None
        if self.module_forward(module) is None:
            return None
        moved = method_hazards(site, method, Tensor(), None, None)[1]
        index = moved.index if isinstance(moved, Tensor) and moved.place == NPU else None
        return module.with_field(MODULE_DEVICE, Const(index) if index is not None else None)

    @staticmethod
    def module_parameters(module: Instance) -> Value:
        """``model.parameters()`` of a ``torch.nn.Module`` subclass: an iterable of the tensors
        its instance holds, its submodules' included (their devices give ``p.device``); None
        for another class (its own ``parameters`` is not torch's)."""
        if not any(_is_torch_module(q) for k in module.cls.mro() for q in k.library):
            return None
        found: list[Value] = []
        pending, seen = [module], set()
        while pending:
            held = pending.pop()
            if id(held) in seen or len(seen) > _MAX_SUBMODULES:
                continue
            seen.add(id(held))
            moved = held.field(MODULE_DEVICE)[1]
            for _, value in held.fields:
                if isinstance(value, Tensor):
                    on = isinstance(moved, Const) and moved.value is not None
                    found.append(value.with_place(NPU, moved.value) if on else value)  # type: ignore[union-attr]
                elif isinstance(value, Instance):
                    pending.append(value)
        moved = module.field(MODULE_DEVICE)[1]
        if not found and isinstance(moved, Const) and moved.value is not None:
            found.append(Tensor(NPU, moved.value))  # held by library submodules: on its device
        return Seq((join_all(found),)) if found else None

    #: Functions whose parameters (a flag, or ``**kwargs``) reach a copy's ``non_blocking=``
    #: or a factory's ``pin_memory=``, themselves or through the helpers they pass them to
    #: (made on first use): only they export copies for callers' flags (variants.py).
    hazard_spread: set[FunctionInfo] | None = None

    def note_hazard_spread(self, value: Value) -> None:
        """``value`` (a ``**`` spread, or a flag) reaches such a flag: a parameter of the
        function being learnt is followed there
        (:meth:`.constants.Constants._note_passed_on`), and the function marked."""
        self._note_passed_on(value)  # type: ignore[attr-defined]
        self.note_hazard_flag(value)

    def note_hazard_flag(self, arg: object) -> None:
        """A flag keyword given a parameter of the function being learnt: the function is
        marked (no walk of its body: it is met as the body is interpreted)."""
        value = arg.value if isinstance(arg, Arg) else arg
        ref = value.param if isinstance(value, ExtStream) else None
        if ref is not None and ref.owner is self._function and ref.index >= 0:  # type: ignore[attr-defined]
            if self.hazard_spread is None:
                self.hazard_spread = set()
            self.hazard_spread.add(ref.owner)  # type: ignore[arg-type]

    @staticmethod
    def module_forward(module: Instance) -> FunctionInfo | None:
        """``model(x)`` of a ``torch.nn.Module`` subclass without a ``__call__`` of its own:
        ``nn.Module.__call__`` runs ``forward`` (its decorators' grad mode included)."""
        if not any(_is_torch_module(q) for k in module.cls.mro() for q in k.library):
            return None
        return module.cls.method("forward")

    @staticmethod
    def module_result(
        module: Instance, called: FunctionInfo, made: Value, site: CallSite, current: object
    ) -> Value:
        """What ``model(x)`` gives once ``called`` ran: a ``__call__``'s own result; for
        ``forward`` (:meth:`module_forward`), its result when that has no history (a no-grad
        forward, a detached result), else what an unknown module's call gives, computed now
        from the arguments: the module's own parameters record nodes under the current
        stream, whatever its loops over layers let the analysis follow."""
        if called is module.cls.method("__call__"):
            return made
        history = made_of(made)
        if made is None or (history is not None and not history.recorded):
            return made  # nothing known (a no-grad forward's unknown call), or no history
        operands = [arg.value for arg in (*site.positional, *site.keywords.values())]
        frozen = module.field(ag.FROZEN)[1]  # requires_grad_(False): only inputs record
        records = not (isinstance(frozen, Const) and frozen.value is True)
        result = computed(current, operands, records=records)  # type: ignore[arg-type]
        moved = module.field(MODULE_DEVICE)[1]  # model.to("npu:1"): computes there
        if isinstance(moved, Const) and isinstance(result, Tensor):
            return result.with_place(NPU, moved.value)
        return result

    def after_torch_call(self, qualname: str, site: CallSite, value: Value, state: State) -> Value:
        """What a torch call sets for what follows: ``torch.set_grad_enabled(False)`` as a
        statement (the grad mode from here on), ``set_device(k)`` (the current NPU); a
        stream it makes without a device is on the current NPU."""
        if site.double_star and _pins(qualname):  # torch.empty(shape, **kwargs)
            self.note_hazard_spread(site.kw_spread)
        if _pins(qualname):  # torch.empty(n, pin_memory=pinned)
            self.note_hazard_flag(site.keywords.get(c.PIN_MEMORY))
        if isinstance(value, GradMode) and value.enabled is None:  # set_grad_enabled(flag)
            self.note_hazard_flag(site.arg(0, "mode"))  # a parameter: copies per literal
        if isinstance(value, GradMode) and qualname.endswith(".set_grad_enabled"):
            ag.set_mode(state.env, value)
            self.note_grad_mode(value)
        elif qualname in _DEVICE_CONTEXTS:
            arg = site.arg(0, "device" if qualname.endswith(".device") else "obj")
            found, node = literal(site, arg)
            if qualname.endswith("_of"):  # device_of(t): t's NPU, a no-op for a host tensor
                on_npu = isinstance(found, Tensor) and found.place == NPU
                return DeviceCtx(found.index if on_npu else None)  # type: ignore[union-attr]
            return DeviceCtx(npu_index(found, node, self.transfer_to_npu))  # type: ignore[attr-defined]
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
        elif isinstance(value, Tensor) and value.place == NPU and value.index is None:
            known = state.env.get(DEVICE_KEY)  # torch.empty(n, device="npu"): the current NPU
            if _factory(qualname) and isinstance(known, Const) and known.value is not None:
                return replace(value, index=known.value)
        return value

    def note_in_place(
        self,
        method: str,
        receiver: cst.CSTNode,
        result: Value,
        state: State,
        scope: object,
        site: CallSite,
        owner: Value = None,
    ) -> None:
        """``t.detach_()``, ``t.requires_grad_()`` change ``t`` itself: a plain name bound to
        the receiver is bound to the result from here on; ``module.requires_grad_(False)``
        (``self.requires_grad_(False)`` in ``__init__``) freezes every parameter of the
        module (:data:`..semantics.autograd.FROZEN`). A copy given a helper's own
        ``**kwargs`` (``t.to(dev, **kwargs)``) passes them on where ``non_blocking`` is read:
        a caller's literal flags there get a copy of the summary (:mod:`.constants`)."""
        if site.double_star and method in COPY_METHODS:
            self.note_hazard_spread(site.kw_spread)
        if method in COPY_METHODS:  # t.to(d, non_blocking=nb): nb decides a hazard
            self.note_hazard_flag(site.keywords.get(c.NON_BLOCKING))
        if method in ag.LEAF_METHODS and isinstance(owner, Instance):  # module.requires_grad_()
            flag = site.arg(0, "requires_grad")
            frozen = flag is not None and isinstance(flag.value, Const) and not flag.value.value
            if type(receiver) in (cst.Name, cst.Attribute):
                target = cst.Attribute(value=receiver, attr=cst.Name(ag.FROZEN))  # type: ignore[arg-type]
                self.bind_target(target, Const(frozen), state, scope)  # type: ignore[attr-defined]
        elif method in ag.IN_PLACE and isinstance(result, Tensor) and type(receiver) is cst.Name:
            self.bind(receiver.value, result, state, scope)  # type: ignore[attr-defined]


def _factory(qualname: str) -> bool:
    """A torch factory (``torch.empty``, ``zeros_like``): its ``device="npu"`` is the
    current NPU."""
    name = qualname[len(c.TENSOR_MODULE) :] if qualname.startswith(c.TENSOR_MODULE) else ""
    return name in c.HOST_FACTORIES or name in c.LIKE_FACTORIES


def _pins(qualname: str) -> bool:
    """A call that reads ``pin_memory=``: a torch factory or a pinning loader."""
    name = qualname[len(c.TENSOR_MODULE) :] if qualname.startswith(c.TENSOR_MODULE) else ""
    return name in c.HOST_FACTORIES or qualname in c.PINNING_LOADERS


def _is_torch_module(qualname: str) -> bool:
    """``torch.nn.Module`` and its torch subclasses (``nn.Linear``), as the class names them."""
    return qualname.startswith("torch.nn.") and qualname.rpartition(".")[2][:1].isupper()
