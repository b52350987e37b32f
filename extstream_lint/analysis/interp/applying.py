"""Applying a function's summary where it is called: the sinks the call's values reach are
reported there, the attributes the callee sets land on the caller's objects, a graph capture
stream it sets becomes the caller's default, and what it returns is named after it.

A mixin of :class:`.interpreter.Interpreter`, split from :mod:`.calls` (which decides what a
call calls) so that each stays one concern.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import ExtStream, ParamRef
from ..abstract.state import State
from ..abstract.tensors import Tensor
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Value, join
from ..semantics.devices import called, escaped
from ..semantics.effects import DEFAULT_CAPTURE_STREAM
from ..semantics.sites import Arg, Issue
from . import summaries as sm
from .constants import by_literal
from .core import is_symbolic
from .declared import declared_result, unknown
from .flows import CONTENTS

__all__ = ["Applying"]

#: The values :func:`.devices.called` may move (a tensor's index, a stream's devices).
_ON_DEVICES = (Tensor, ExtStream)


class Applying:
    """A summary applied at a call: its reports, attribute writes, capture and return."""

    def _apply(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State, name: str
    ) -> sm.Binding:
        """Report the sinks the call's values reach, and the attributes it sets on them.
        Returns the binding the call's results are read with: its receiver with the calls
        on ``self`` the summary keeps resolved by the receiver's class (receivers.py)."""
        if self.learning:
            self._applied.append((info.summary, info.summary.version))
            if self._function is not None:
                self._calls_between.setdefault(self._function, set()).add(info)
            self._applied_ids.add(id(info))
            generic = self._copy_of.get(info)  # a copy: the call's literals decide it
            if generic is None:
                self._applied_generic.add(info)
            else:
                self._decided_any.add(generic)
        if info.summary.calls:  # first: the sinks may be on what those calls return
            self.apply_param_calls(info, node, binding, state)
        resolved = self.receiver_binding(info, node, binding, state)
        # properties read on its arguments' paths, evaluated on the caller's objects
        resolved = self.argument_properties(info, node, resolved, state)
        for issue in sm.call_issues(info, resolved, name):
            self._report(node, issue)  # type: ignore[arg-type]
        for (index, path), value in info.summary.sets_attrs.items():
            arg = binding.args.get(index)
            if arg is None:
                continue
            target = arg.value
            actual = sm.substitute(value, binding)
            if isinstance(target, Instance) and target.param is not None and self.learning:
                ref = target.param
                if ref.owner is self._function and self._function is not None:
                    self.learn_set_attr(
                        self._function.summary, (ref.index, (*ref.path, *path)), actual
                    )
                if len(path) == 1 and not ref.path and not is_symbolic(actual):
                    # super().__init__(ext), Base.__init__(self, ext), self._setup(ext): the
                    # callee's ``self.x = ...`` with this call's value, as if written here
                    target.cls.note_attr(path[0], self._in_own_init(target))
                    self.learn_attr(target.cls, path[0], actual)
            elif isinstance(target, ClassInfo) and len(path) == 1:
                if self.learning and not is_symbolic(actual):  # a class decorator's cls.x = v
                    self.learn_attr(target, path[0], actual)
            elif arg.text is not None and isinstance(target, Instance):
                now = state.env.get(arg.text)  # as the attributes set before left it
                if isinstance(now, Instance) and now.cls is target.cls and now.param is None:
                    target = now
                if len(path) == 1:  # later.attach(ext): this object now holds ext
                    state.env[arg.text] = target = target.with_field(path[0], actual)
                    arg = Arg(target, arg.text)
                elif path[-1] == CONTENTS:  # pool.add(ext): the queue pool holds, ext added
                    held = _put(target, path, actual)
                    if held is not None:
                        state.env[arg.text] = target = held
                        arg = Arg(target, arg.text)
                state.set_path(".".join((arg.text, *path)), actual)
        if info.summary.stores:  # REGISTRY[name] = cls (registries.py)
            self.apply_stores(info, binding, state)
        if info.summary.overridable:  # obj.reset(): self.s = self._make() (receivers.py)
            self.override_attrs(info, node, binding, state)
        return resolved

    def recursive(self, info: FunctionInfo) -> bool:
        """Whether ``info`` applied its own summary (directly, or through a partial of it),
        as learnt so far: its growing return is widened (:mod:`..abstract.widening`). Not
        through other functions: a cycle of imports' helpers (inspect's ``getsourcefile``
        and ``getmodule``) grows its return once, a callee learnt later, and cut there it
        cost 3% more calls on the stdlib overlay; a mutual recursion keeps the cap."""
        return info in self._calls_between.get(info, ())

    def report_escaped_defaults(self, info: FunctionInfo) -> None:
        """A nested function or lambda no call in the module applies (returned, stored,
        handed to code not analysed) runs with its defaults, which Python evaluated when it
        was defined (language reference 8.7: ``lambda s=s: s.query()`` in a loop binds each
        iteration's stream now): a sink on a parameter whose default is an external stream
        made here is reported at the operation, the function's own code. A call the module
        makes reports there instead, with what it passes (one finding per defect)."""
        if info.enclosing is None or not info.defaults or id(info) in self._applied_ids:
            return
        names = info.params
        for (index, path, code, _), sink in list(info.summary.sinks.items()):
            default = info.defaults.get(index)
            if not _made_here(default) or sink.guard is not None or sink.unless is not None:
                continue
            if not sink.must or not isinstance(sink.anchor, cst.CSTNode):
                continue
            text = names[index][0] if index < len(names) else None
            binding = sm.Binding(info, {index: Arg(default, text)}, None)
            actual, _ = sm.resolve(ParamRef(info, index, path), binding)
            if isinstance(actual, ExtStream) and actual.must and actual.param is None:
                issue = Issue(code, sink.operation, actual, text, sink.implicit)
                self._report(sink.anchor, issue)  # type: ignore[attr-defined]

    def _apply_capture(self, summary: sm.Summary, binding: sm.Binding, state: State) -> None:
        value = sm.substitute(summary.capture_set, binding)
        if summary.capture_kept:  # some paths leave the value the caller had
            if DEFAULT_CAPTURE_STREAM in state.env:
                before = state.env[DEFAULT_CAPTURE_STREAM]
            else:
                before = self._default_capture if self._function is not None else None
            value = join(before, value)
        self.set_default_capture(value, state)

    def _returned(self, info: FunctionInfo, call: cst.CSTNode, binding: sm.Binding) -> Value:
        raw = escaped(by_literal(info, binding), info.params)  # ``link(k + 1)``: ``k + 1``
        value = sm.substitute(raw, binding)
        if type(value) in _ON_DEVICES:  # only these carry an index to put in the caller's terms
            value = called(value, binding.args)
        if type(value) is Instance and value.param is None:  # ``return self`` after setting
            value = _with_set_fields(info, binding, value)
        if 0 in binding.args:  # pool.next_stream() on a declared Pool (declared.py)
            value = declared_result(value, binding.args[0].value)
        if info.declared is not None and unknown(value):  # def get() -> Pool (declared.py)
            return info.declared
        if isinstance(value, ExtStream) and value.current_of is None and value.param is None:
            if isinstance(info.returns, ExtStream) and info.returns.param is not None:
                return value  # the caller's own value, passed through
            return ExtStream(
                value.must, f"returned by {info.name}()", call, value.noun, device=value.device
            )
        return value


def _with_set_fields(info: FunctionInfo, binding: sm.Binding, value: Instance) -> Instance:
    """``value``, the object a call returns, with the attributes the body set on it when it
    is the caller's own argument returned (``def use(self, s): self._s = s; return self``):
    ``cls().use(ext)``, ``Builder().stream(ext)`` hold ``ext`` as ``x.use(ext)`` does."""
    returned = info.returns
    if type(returned) is not Instance or returned.param is None:
        return value
    ref = returned.param
    if ref.owner is not info or ref.path or ref.index not in binding.args:
        return value
    for (index, path), held in info.summary.sets_attrs.items():
        if index == ref.index and len(path) == 1:
            value = value.with_field(path[0], sm.substitute(held, binding))
    return value


def _made_here(value: object) -> bool:
    return (
        isinstance(value, ExtStream)
        and value.must
        and value.param is None
        and value.current_of is None
    )


def _put(instance: Instance, path: tuple[str, ...], value: Value) -> Instance | None:
    """``instance`` whose holder at ``path`` (``jobs.<contents>``) also holds ``value``: a
    ``put`` adds to what the queue held. ``None``: no holder of the instance's own there."""
    if len(path) == 1:
        found, held = instance.field(path[0])
        return instance.with_field(path[0], join(held, value) if found else value)
    found, inner = instance.field(path[0])
    if not found:
        inner = sm.attribute(instance, path[0])
    if not isinstance(inner, Instance) or inner.param is not None:
        return None
    changed = _put(inner, path[1:], value)
    return None if changed is None else instance.with_field(path[0], changed)
