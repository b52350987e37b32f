"""A module global read by a summarised body, resolved in each caller's view (issue 38).

A helper fills a module-level container or rebinds a global (``_streams[key] = s``,
``_pending.append(s)``, ``_state.stream = s``, ``global CURRENT; CURRENT = s``): that is an
effect of calling it, applied to the caller's view of the global (:mod:`.registries`). A
function called later that reads the global (``return _streams[key]``) is summarised once,
where the module's own value holds nothing there. Its summary keeps the read instead: a
symbolic value owned by a :class:`..abstract.atoms.GlobalSlot` (the global, or the dotted
path under it, then the key read), which each call resolves in its caller's view, after the
calls made before it there (:meth:`global_view`, through :attr:`.summaries.Binding.view`).
Nothing is run again: the read is resolved as a parameter path is. A caller that sees no
more there than the module resolves it to nothing, as before: keeping it for that caller's
own callers (``def io(): return stream("io")``) made every such read travel up the call
chains, 15% more calls on the standard-library set, so it is not done.

The read is kept only for a global some function of the module writes (a store recorded by
:mod:`.registries`, or a rebinding through ``global``), and only where the module's value
gives nothing, so every other read is what it was. The stores a call makes into another
module's global (``registry.remember("io", s)``) are kept in the caller's view under a name
no identifier spells (:func:`foreign_key`), where that module's read resolves.

A mixin of :class:`.interpreter.Interpreter`.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..abstract.atoms import Const, ExtStream, GlobalSlot, ParamRef
from ..abstract.holding import holds_stream
from ..abstract.paths import SUBSCRIPTED, symbolic
from ..abstract.state import State
from ..abstract.values import FunctionInfo, Summary, Value
from .core import Scope
from .summaries import PARAM_KEY

__all__ = ["GlobalReads", "foreign_key", "holds_stream"]

_NONE = Const(None)


def foreign_key(module: str, name: str) -> str:
    """The name a caller's state keeps its view of another module's global under."""
    return f"<{module.replace('.', '/')}:{name}>"


def nothing(value: Value) -> bool:
    """A read that found nothing the rules could use."""
    return value is None or value == _NONE


def _leaked(value: Value, reader: object) -> bool:
    """A global's value that holds only parameters of the functions that rebound it
    (``global CURRENT; CURRENT = s``): in another function's body, nothing known."""
    if not isinstance(value, ExtStream) or value.param is None:
        return False
    owners = [ref.owner for ref in value.refs()]
    return all(isinstance(owner, FunctionInfo) and owner is not reader for owner in owners)


class GlobalReads:
    """Reads of module globals kept in summaries, resolved where each call is."""

    def note_written(self, name: str) -> None:
        """A function of this module writes global ``name`` (or a path under it): a read
        of it in a summarised body is kept for the caller. New, and read before in a body
        where it held nothing: another learning pass, so that body reads it again."""
        written: set[str] = self.__dict__.setdefault("_written_globals", set())
        if name not in written:
            written.add(name)
            if self.learning and name in self.__dict__.get("_read_unwritten", ()):
                self._applied.append((Summary(), -1))

    def global_read(
        self, node: cst.BaseExpression, got: Value, state: State, scope: Scope, key: Value = None
    ) -> Value:
        """``got``, what ``node`` (``G``, ``G.attr``, ``G[key]``, ``G`` a global of this
        module) read in a function body; where it is nothing and a function writes ``G``,
        the read kept for the caller (:class:`..abstract.atoms.GlobalSlot`). A key that is
        a literal, or a parameter (``"[@0]"``: the caller's argument there, when a
        literal), is kept with it; any other reads every key."""
        if self._function is None or not self.module_name:
            return got
        if not nothing(got) and not (type(node) is cst.Name and _leaked(got, self._function)):
            return got
        step: tuple[str, ...] = ()
        head = node
        if type(node) is cst.Subscript:
            if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
                return got
            head = node.value
            step = (SUBSCRIPTED,)
            ref = key.param if isinstance(key, ExtStream) else None
            if isinstance(key, Const) and type(key.value) in (str, int):
                step = (f"[{key.value!r}]",)
            elif ref is not None and ref.owner is self._function and not ref.path:
                step = (f"{PARAM_KEY}{ref.index}]",) if ref.index >= 0 else step
        if type(head) is cst.Attribute and type(head.value) is cst.Name:
            name, path = head.value.value, f"{head.value.value}.{head.attr.value}"
        elif type(head) is cst.Name:
            name = path = head.value
        else:
            return got
        if name in state.env or name in scope.local_names:
            return got
        module = self._scopes.get(self.module)
        if module is None or name not in module.summary:
            return got
        written = self.__dict__.get("_written_globals", ())
        if name not in written and name not in module.outer_writes:
            self.__dict__.setdefault("_read_unwritten", set()).add(name)
            return got
        return symbolic(ParamRef(GlobalSlot(self.module_name, path), 0, step))

    def global_view(self, state: State) -> Callable[[GlobalSlot], Value]:
        """How a call made here sees a global its callee's summary read: as this state
        holds it after the calls before, or nothing (as the module's value gave). Asked
        only when a summary holds such a read: nothing is looked up before."""
        here = self._function

        def view(slot: GlobalSlot) -> Value:
            head = slot.name.split(".", 1)[0]
            key = slot.name
            if slot.module != self.module_name:
                key = foreign_key(slot.module, slot.name)
            elif here is not None:  # the caller's own variable of that name: not the global
                defined = self._definitions.get(here)
                own = self._scopes.get(defined[0]) if defined is not None else None
                if own is not None and head in own.local_names and head not in own.outer_names:
                    key = ""
            return state.env.get(key) if key else None

        return view

    def foreign_global(self, module: str, name: str, state: State) -> Value:
        """Another module's global as a call made here sees it: what earlier calls stored
        into it, or that module's value with the stores in force."""
        key = foreign_key(module, name)
        if key in state.env:
            return state.env[key]
        found = self._project_module(module)
        if found is None:
            return None
        if self.facts is not None:
            self.facts.read(found.name, name)
        return self.global_of(module, name, found.exports.get(name))
