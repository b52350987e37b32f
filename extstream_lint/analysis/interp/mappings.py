"""The subscript protocol on the project's classes, and the mapping methods of
``collections.abc``.

``obj[key]``, ``obj[key] = value`` and ``del obj[key]`` on an instance are calls of its
class's ``__getitem__``, ``__setitem__`` and ``__delitem__`` (found through the MRO), applied
as calls are: what ``__setitem__`` stores in the object travels with the caller's instance,
what ``__getitem__`` reads is read from it, and what either refuses is reported at the
subscript. A method reading ``self._lanes[k]``, with ``self._lanes = {}`` in ``__init__``,
reads this ``self``'s container whichever method the learning pass ran first (the empty
display says nothing of what another method stored there by then), and a store into it
adds to what the caller's instance holds.

A class derived from ``collections.abc.Mapping`` / ``MutableMapping`` (or ``typing``'s, or
``collections.UserDict``) promises the mapping contract: ``m[k]`` gives back what ``m[k] = v``
stored. The instance keeps what was stored under literal keys (:data:`ITEMS`), so a read
by a literal key is that value, and the mixin methods the class does not define are
answered from its ``__getitem__``: ``get``, ``pop``, ``setdefault``, ``values``, ``items``.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, ExtStream
from ..abstract.paths import ITEMS, symbolic
from ..abstract.state import State
from ..abstract.values import ClassInfo, Instance, Seq, Value, join
from ..semantics.sites import Arg, CallSite
from ..source.syntax import dotted_name
from . import summaries as sm
from .core import Scope, is_symbolic
from .datamodel import metaclass_of

#: Library bases that promise the mapping contract (``m[k]`` is what ``m[k] = v`` stored).
MAPPING_BASES = frozenset(
    {
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
        "typing.Mapping",
        "typing.MutableMapping",
        "collections.UserDict",
    }
)

#: The mixin methods answered from ``__getitem__`` when the class does not define them.
_MIXINS = frozenset({"get", "pop", "setdefault", "values", "items"})


def is_mapping(instance: Instance) -> bool:
    """Whether the instance's class derives from one of :data:`MAPPING_BASES`."""
    return any(base in MAPPING_BASES for cls in instance.cls.mro() for base in cls.library)


class Mappings:
    """``obj[k]``, ``obj[k] = v`` through the class's dunders; the mapping mixins."""

    def dunder_item(
        self, value: Instance, key: Value, node: cst.CSTNode, text: str | None, state: State
    ) -> tuple[bool, Value]:
        """``obj[key]``: ``type(obj).__getitem__(obj, key)`` applied as a call (``(False,
        None)`` without one); a mapping's value stored under that literal key if known."""
        method = value.cls.method("__getitem__")
        if method is None:
            return False, None
        site = CallSite(node, "__getitem__", [Arg(key, None)])  # type: ignore[arg-type]
        current = self._current(state)  # type: ignore[attr-defined]
        made = self._call_function(method, node, site, Arg(value, text), state, current)  # type: ignore[attr-defined]
        known, stored = _stored(value, key)
        return True, stored if known else made

    def dunder_store(
        self,
        target: cst.Subscript,
        base: Value,
        key: Value,
        value: Value,
        state: State,
        scope: Scope,
    ) -> bool:
        """``obj[key] = value``: ``type(obj).__setitem__(obj, key, value)`` applied as a call
        (False without one); a mapping keeps ``value`` under a literal ``key``."""
        if not isinstance(base, Instance) or base.cls.fields:
            return False
        method = base.cls.method("__setitem__")
        if method is None:
            return False
        text = dotted_name(target.value)
        site = CallSite(target, "__setitem__", [Arg(key, None), Arg(value, None)])  # type: ignore[arg-type]
        current = self._current(state)  # type: ignore[attr-defined]
        self._call_function(method, target, site, Arg(base, text), state, current)  # type: ignore[attr-defined]
        if isinstance(key, Const) and isinstance(key.value, (str, int)) and is_mapping(base):
            now = state.env.get(text) if text is not None else None
            held = now if isinstance(now, Instance) and now.cls is base.cls else base
            kept = held.field(ITEMS)[1]
            pairs = kept.keys if isinstance(kept, Seq) else ()
            pairs = (*((k, v) for k, v in pairs if k != key.value), (key.value, value))
            items = Seq(tuple(v for _, v in pairs), pairs, is_dict=True)
            self.rebind_container(target.value, held.with_field(ITEMS, items), state, scope)  # type: ignore[attr-defined]
        return True

    def filled_later(
        self, owner: cst.BaseExpression, base: Value, state: State, scope: Scope
    ) -> Value:
        """``self._lanes`` read in a method of its class, the empty display ``__init__``
        left there: this ``self``'s container (what the caller's instance holds by then)."""
        if type(base) is not Seq or base.items or base.keys or type(owner) is not cst.Attribute:
            return base
        if (
            base.default is not None or dotted_name(owner) in state.env
        ):  # bound in this body (``__init__``): its own
            return base
        this = self.eval(owner.value, state, scope)  # type: ignore[attr-defined]
        if type(this) is not Instance or this.param is None or this.param.path:
            return base
        name = owner.attr.value
        if this.declared or this.field(name)[0] or id(this.cls) not in self._own_classes:  # type: ignore[attr-defined]
            return base
        return symbolic(this.param.child(name))

    def own_container(
        self, owner: cst.BaseExpression, base: Value, value: Value, state: State, scope: Scope
    ) -> Value:
        """``self._lanes[k] = v`` in a method of its class, ``v`` a parameter's: the
        container the caller's instance holds, with ``v`` added (a join: any key of it may
        be ``v``'s), not a container holding ``v`` alone. A value the method computes
        itself is stored as before (the class keeps it, as what any instance may hold)."""
        if is_symbolic(value):
            base = self.filled_later(owner, base, state, scope)
        if type(base) is not ExtStream or type(owner) is not cst.Attribute:
            return base
        ref = base.param
        if ref is None or ref.owner is not self._function or ref.index != 0:  # type: ignore[attr-defined]
            return base
        if ref.path != (owner.attr.value,):
            return base
        return Seq((sm.contents(base),), is_dict=True)

    def class_item(
        self, cls: ClassInfo, key: Value, node: cst.Subscript, state: State
    ) -> tuple[bool, Value]:
        """``Cls[key]`` on a class that is no enum: its ``__class_getitem__(key)`` (an
        implicit classmethod, PEP 560), else, without a metaclass ``__getitem__``, the
        class itself (a generic alias, ``Slot[torch.npu.Stream]``, calls as the class)."""
        method = cls.method("__class_getitem__")
        if method is None:
            meta = metaclass_of(cls)
            return (False, None) if meta and meta.method("__getitem__") else (True, cls)
        site = CallSite(node, "__class_getitem__", [Arg(key, None)])  # type: ignore[arg-type]
        current = self._current(state)  # type: ignore[attr-defined]
        receiver = Arg(cls, dotted_name(node.value))
        return True, self._call_function(method, node, site, receiver, state, current)  # type: ignore[attr-defined]

    def mapping_method(
        self, receiver: Instance, method: str, site: CallSite, state: State
    ) -> Value:
        """``m.get(k)``, ``m.pop(k)``, ``m.setdefault(k, d)``, ``m.values()``, ``m.items()``
        of a mapping whose class does not define them: from its ``__getitem__``."""
        if method not in _MIXINS or not is_mapping(receiver):
            return None
        args = [arg.value for arg in site.positional]
        key = args[0] if args and method != "values" and method != "items" else None
        found, got = self.dunder_item(receiver, key, site.node, site.callee_text, state)
        if not found:
            return None
        if method in ("values", "items"):
            kept = receiver.field(ITEMS)[1]
            known = join(got, sm.contents(kept)) if isinstance(kept, Seq) else got
            return Seq((known,)) if method == "values" else Seq((Seq((None, known)),))
        if len(args) > 1 and not _stored(receiver, key)[0]:  # a default given: it, or the value
            return join(got, args[1])
        return got


def _stored(instance: Instance, key: Value) -> tuple[bool, Value]:
    """Whether a mapping instance is known to hold something under the literal ``key``,
    and what (``None``: nothing external, a managed stream)."""
    if not isinstance(key, Const) or not isinstance(key.value, (str, int)):
        return False, None
    kept = instance.field(ITEMS)[1]
    if not isinstance(kept, Seq):
        return False, None
    for k, v in kept.keys:
        if k == key.value:
            return True, v
    return False, None
