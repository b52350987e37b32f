"""Summaries polymorphic in the receiver: a call on ``self`` resolved where a summary is applied.

A method's summary is learnt once, with ``self`` an instance of the class that defines it, so
``self.s = self._make(h)`` in a base's ``__init__`` runs the base's ``_make``. Python looks
``_make`` up through the MRO of the instance's class: a subclass that overrides it (in this
module, or in another one that imports the base) gets its own maker's stream. Re-running the
base's bodies for each subclass (the views of :mod:`.views`, within one module) costs a body
per subclass; across modules it was too dear (issue 38's Cost: 188 s to 481 s on transformers).

Here the summary keeps the call instead: the attribute is marked as "what ``self._make``
returns with these arguments" (:attr:`..values.Summary.overridable`), and where the summary is
applied to an instance whose class resolves ``_make`` to another function, that function's
summary is applied with the call's arguments and the attribute is what it returns. No body
runs twice: each override is summarised once, where it is defined, as any function is.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const
from ..abstract.state import State
from ..abstract.values import FunctionInfo, Instance, Value
from ..semantics.sites import Arg, CallSite
from . import summaries as sm
from .higher_order import recorded_call

#: The name a call's pending record is kept under while its statement finishes.
_PENDING = "_self_calls"
#: The key of :attr:`..values.Summary.overridable` for what the method returns (a keyword:
#: no attribute is named so).
RETURN = "return"
#: The call resolves to the function the body ran: the summary's own value stands.
_SAME = Const("<same>")


class Receivers:
    """Calls on ``self`` kept in summaries, and resolved on the concrete class."""

    def note_self_call(
        self,
        node: cst.Call,
        receiver: Value,
        method: str,
        callee: Value,
        site: CallSite,
        state: State,
    ) -> None:
        """``self.m(...)`` in a method, ``m`` a function: remembered for the statement that
        stores its result (:meth:`note_overridable`)."""
        info = self._function  # type: ignore[attr-defined]
        if not self.learning or info is None or not isinstance(callee, FunctionInfo):  # type: ignore[attr-defined]
            return
        ref = receiver.param if isinstance(receiver, Instance) else None
        if ref is None or ref.owner is not info or ref.index != 0 or ref.path:
            return
        call = recorded_call(None, site, state)
        self.__dict__.setdefault(_PENDING, {})[id(node)] = (node, method, callee, call)

    def note_overridable(self, stmt: cst.Assign | cst.Return) -> None:
        """``self.x = self.m(...)``: the summary marks ``x`` as what ``m`` returns;
        ``return self.m(...)``: the same for what the method returns (:data:`RETURN`)."""
        pending = self.__dict__.get(_PENDING)
        if not pending:
            return
        found = pending.pop(id(stmt.value), None)
        pending.clear()
        info = self._function  # type: ignore[attr-defined]
        if found is None or found[0] is not stmt.value or info is None or not info.params:
            return
        own = info.params[0][0]
        names = [RETURN] if isinstance(stmt, cst.Return) else []
        for target in stmt.targets if isinstance(stmt, cst.Assign) else ():
            node = target.target
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == own
            ):
                names.append(node.attr.value)
        entry = (found[1], found[2], found[3])
        summary = info.summary
        for name in names:
            if summary.overridable.get(name) != entry:
                summary.overridable[name] = entry
                summary.version += 1

    def apply_overrides(
        self,
        method: FunctionInfo,
        made: Instance,
        node: cst.CSTNode,
        binding: sm.Binding,
        state: State,
    ) -> Instance:
        """``method`` applied to ``made``: each attribute its summary marks as set from a
        call on ``self`` that ``made``'s class resolves to another function is what that
        function returns for the call's arguments (in this call's terms)."""
        for name, entry in method.summary.overridable.items():
            if name != RETURN:
                value = self._override(entry, made, node, binding, state)
                if value is not _SAME:
                    made = made.with_field(name, value)
        return made

    def override_attrs(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> None:
        """``obj.reset()`` on an instance a name holds: the attributes ``reset`` sets from
        an overridden call on ``self`` (:meth:`apply_overrides`), on that name."""
        arg = binding.args.get(0)
        if arg is None or arg.text is None:
            return
        held = state.env.get(arg.text, arg.value)
        if not isinstance(held, Instance) or held.param is not None:
            return
        made = self.apply_overrides(info, held, node, binding, state)
        if made is not held:
            state.env[arg.text] = made
            for name, value in made.fields:
                state.set_path(f"{arg.text}.{name}", value)

    def override_return(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> Value:
        """``obj.stream()`` whose body is ``return self._make()``, ``_make`` overridden by
        ``obj``'s class: what the override returns; ``None``: the summary's own return."""
        entry = info.summary.overridable.get(RETURN)
        arg = binding.args.get(0)
        if entry is None or arg is None or not isinstance(arg.value, Instance):
            return None
        if arg.value.param is not None:
            return None
        value = self._override(entry, arg.value, node, binding, state)
        return None if value is _SAME else value

    def _override(
        self,
        entry: tuple[str, FunctionInfo, object],
        receiver: Instance,
        node: cst.CSTNode,
        binding: sm.Binding,
        state: State,
    ) -> Value:
        """What the call ``entry`` records returns on ``receiver``, when its class resolves
        the method to another function than the body ran; else :data:`_SAME`."""
        called, original, call = entry
        found = receiver.cls.method(called)
        if found is None or found is original:
            return _SAME
        site = self._recorded_site(call, node, binding)  # type: ignore[attr-defined]
        current = self._recorded_current(call, binding)  # type: ignore[attr-defined]
        return self._call_function(  # type: ignore[attr-defined,no-any-return]
            found, node, site, Arg(receiver, None), state, current
        )


__all__ = ["RETURN", "Receivers"]
