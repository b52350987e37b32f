"""Containers changed in place: ``append``, ``extend``, ``insert``, ``d[k] = v``, and the
methods that read by key (``get``, ``setdefault``, ``pop``) or end (``popleft``).

A list or dict is a :class:`~..values.Seq`, immutable like every abstract value: a method
that changes one in place makes the new value and binds it again to the expression that
names the container (a local name, or an attribute path as ``self.x = ...`` would), so
what is read after it (``lst[0]``, iteration, ``pop()``, ``d["k"]``) holds what was added.
Where control flow joins, a list that grew on one path only holds any element of either
(:func:`..values.join`). Two limits, both "unknown", never a false "external": an alias
of the container under another name does not see the change, and a container the analysis
does not know (a parameter, what an unknown call returned) stays unknown when added to.
``collections.deque(xs)`` is a list of ``xs`` (a row of the flow-model table).

Why these methods are code and not rows of :mod:`..semantics.flowmodels`: a row says what a
call gives from the values it is given; these change the built-in container the abstract
domain holds as a value (the one displays, ``d[k]``, ``d[k] = v`` and ``for`` make and
read) in place, so their result is a new binding of whatever expression names the
container, an assignment's semantics; ``send``/``__next__`` resume a generator (the
generator protocol). They are looked up by the receiver being such a container.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, ExtStream
from ..abstract.callables import GlobalItem
from ..abstract.holding import holds_stream
from ..abstract.members import Member
from ..abstract.paths import param_keyed
from ..abstract.state import State
from ..abstract.values import Seq, Value, join, join_all
from ..semantics.devices import offset_of, rekeyed
from ..semantics.sites import CallSite
from ..source.syntax import children, string_value
from . import summaries as sm
from .core import Scope, is_symbolic, may_contain

#: No literal key: a subscript or ``get`` whose key is not a plain string or int.
NO_KEY = object()


def literal_key(node: cst.CSTNode, value: Value) -> object:
    """The key a dict display or subscript spells literally: a plain string or an int."""
    if type(node) is cst.SimpleString:
        text = string_value(node)  # type: ignore[arg-type]
        return NO_KEY if text is None else text
    if isinstance(value, Const) and type(value.value) in (int, Member):
        return value.value  # an enum member is a key like a literal (members.py)
    if isinstance(value, Const) and type(value.value) is str and value.value:
        return value.value  # a literal the copy of a summary was learnt with (constants.py)
    return NO_KEY


#: Methods of lists, dicts and deques followed on a known container.
CONTAINER_METHODS = frozenset(
    {
        "values",
        "items",
        "get",
        "pop",
        "popleft",
        "copy",
        "setdefault",
        "append",
        "appendleft",
        "extend",
        "insert",
        "clear",
        "update",
        "add",
        "popitem",
        "send",
        "asend",
        "__next__",
        "__anext__",
    }
)
#: A generator's methods that resume it: each gives what it yields next.
_RESUMES = frozenset({"send", "asend", "__next__", "__anext__"})


class Containers:
    """What container methods return, and the container they leave behind."""

    def container_call(
        self, receiver: Seq, method: str, node: cst.Call, site: CallSite, state: State, scope: Scope
    ) -> Value:
        """``receiver.method(...)`` on a known list or dict (the arguments are in ``site``)."""
        if method in _GROWS:  # a global grown in a function body: its effect (registries.py)
            self.note_method_store(receiver, method, node, site, state, scope)
        if method == "items":
            return Seq((Seq((self.element_of(receiver), sm.contents(receiver))),))
        if method == "values":
            return Seq(receiver.items)
        if method == "copy":
            return receiver
        if method in ("get", "setdefault") or (method == "pop" and _keyed(receiver)):
            return self._by_key(receiver, method, node, site, state, scope)
        if method in ("pop", "popleft"):
            return sm.contents(receiver)
        if method in _RESUMES:  # gen.send(v), await agen.__anext__(): what it yields
            return self.element_of(receiver)
        if method == "popitem":  # the last pair put in (OrderedDict's popitem(False): first)
            return _popped_pair(receiver, site)
        grown = _changed(receiver, method, site)
        if grown is not None:
            self.rebind_container(node.func.value, grown, state, scope)  # type: ignore[attr-defined]
        return None

    def subscript_keyed(
        self, base: ExtStream, node: cst.Subscript, index: Value, state: State
    ) -> Value:
        """``links[rank]``, ``links[rank + 1]`` of a parameter, keyed by another: the item
        under what the call passes there (:func:`..abstract.paths.param_keyed`), else any."""
        one = node.slice[0].slice.value if len(node.slice) == 1 else None  # type: ignore[attr-defined]
        split = offset_of(one) if type(one) is cst.BinaryOperation else None
        offset = 0
        if split is not None and type(split[0]) is cst.Name:
            name, offset = split
            index = state.env.get(name.value)  # type: ignore[attr-defined]
        return param_keyed(base, index, offset) or sm.contents(base)

    def callers_setdefault(
        self, receiver: Value, node: cst.Call, state: State, scope: Scope
    ) -> Value:
        """``d.setdefault(k, default)`` on the caller's mapping (``obj.__dict__`` in a
        caching ``__get__``): what it held under the key, or the default it stores there."""
        site = self._arguments(node, state, scope, "setdefault")  # type: ignore[attr-defined]
        if len(site.positional) != 2:
            return None
        return join(sm.contents(receiver), site.positional[1].value)

    def _by_key(
        self, receiver: Seq, method: str, node: cst.Call, site: CallSite, state: State, scope: Scope
    ) -> Value:
        """``d.get(k[, default])``, ``d.setdefault(k, default)``, ``d.pop(k[, default])``:
        with a literal key of a dict with literal keys, the value under that key (or the
        default when it is not there); otherwise any value, or the default."""
        args = site.positional
        default = args[1].value if len(args) > 1 else None
        key = literal_key(node.args[0].value, args[0].value) if args and node.args else NO_KEY
        if args:
            self.note_keyed(args[0].value, receiver)  # lanes.get(kind) (constants.py)
        if method == "get" and args and isinstance(node.func, cst.Attribute):
            deferred = self.deferred_read(
                node.func.value, receiver, args[0].value, site, state, scope
            )
            if deferred is not None:
                return join(deferred, default) if default is not None else deferred
        if method == "get" and receiver.is_dict and not receiver.items and not receiver.keys:
            # an empty dict (a cache before its first store: ``cls._pools.get(device)``)
            # holds nothing under any key: the default, ``None`` when none is given
            return default if default is not None else Const(None)
        if key is NO_KEY or not _keyed(receiver):
            found = sm.contents(receiver)
            if args and node.args:  # links.get(k + 1): an entry's device named by its key
                found = rekeyed(found, args[0].value, node.args[0].value)
            return join(found, default) if default is not None else found
        stored = dict(receiver.keys)
        if key in stored:
            return stored[key]
        if method == "setdefault":  # stores the default under the key, and returns it
            keys = (*receiver.keys, (key, default))
            grown = Seq((join_all([v for _, v in keys]),), keys, default=receiver.default)
            self.rebind_container(node.func.value, grown, state, scope)  # type: ignore[attr-defined]
        return default

    def deferred_read(
        self,
        where: cst.BaseExpression,
        held: Value,
        key: Value,
        site: CallSite | None,
        state: State,
        scope: Scope,
    ) -> Value:
        """``REGISTRY.get(key)`` / ``REGISTRY[key]`` in a summarised body, ``REGISTRY`` an
        empty dict global of this module (a getter helper of a registry other functions
        fill): Python reads the global when the function runs, so the read is a call the
        summary records (:class:`..abstract.callables.GlobalItem`), answered where it is
        applied by the dict as the caller sees it. ``None``: not one."""
        if self._function is None or not self.module_name or not isinstance(where, cst.Name):
            return None
        name = where.value
        if name in state.env or name in scope.local_names or not isinstance(held, Seq):
            return None
        if held.items or held.keys or not held.is_dict:
            return None  # holds something here: read as it is (registries keep the rest)
        item = GlobalItem(self.module_name, name, key, read=True)
        called = site if site is not None else CallSite(where, name)  # type: ignore[arg-type]
        return self.record_param_call(item, called, state)  # type: ignore[arg-type]

    def store_item(self, target: cst.Subscript, value: Value, state: State, scope: Scope) -> None:
        """``container[key] = value``: a dict gets the value under a literal key (any key:
        one of its values), a list at a literal index (any index: one of its elements)."""
        base = self.eval(target.value, state, scope)
        index: Value = None
        key: object = NO_KEY
        for element in target.slice:
            if isinstance(element.slice, cst.Index):
                index = self.eval(element.slice.value, state, scope)
                if len(target.slice) == 1:
                    key = literal_key(element.slice.value, index)
            else:  # a slice assignment: contents unknown from here
                for child in children(element.slice):
                    self.eval(child, state, scope)
                return
        if self.dunder_store(target, base, index, value, state, scope):  # mappings.py
            return
        if self.note_store(target, base, index, value, state, scope):  # registries.py
            where = target.value  # under a literal key only: any other key is not one
            if isinstance(where, cst.Name) and key is not NO_KEY:
                self._fill_global(where.value, state.env.get(where.value), scope, value)
            return
        self.foreign_store(target, index, value, state, scope)  # another module's global
        base = self.own_container(target.value, base, value, state, scope)  # mappings.py
        if not isinstance(base, Seq):
            return
        changed: Value
        if _keyed(base) and key is not NO_KEY:
            keys = (*((k, v) for k, v in base.keys if k != key), (key, value))
            changed = Seq((join_all([v for _, v in keys]),), keys, default=base.default)
        elif base.keys or base.is_dict:
            key_value = Const(key) if key is not NO_KEY else None
            held = join(sm.contents(base), value) if base.items else value
            key_value = join(base.key, key_value) if base.items else key_value
            changed = Seq((held,), is_dict=True, key=key_value, default=base.default)
        elif type(key) is int and -len(base.items) <= key < len(base.items):
            items = list(base.items)
            items[key] = value
            changed = Seq(tuple(items))
        else:
            changed = Seq(tuple(join(item, value) for item in base.items))
        self.rebind_container(target.value, changed, state, scope)

    def _global_view(self, name: str, scope: Scope) -> bool:
        """``name``, bound in a function's state though neither its local nor its parameter:
        the view of a global a call's effect gave it (:meth:`.registries.apply_stores`)."""
        func = self._function
        if func is None or scope.kind != "function" or name in scope.local_names:
            return False
        return all(param[0] != name for param in func.params)

    def rebind_container(
        self, expression: cst.BaseExpression, value: Value, state: State, scope: Scope
    ) -> None:
        """The container named by ``expression`` is now ``value``: a name bound in this
        state (not a global read from a function: that would make it local), or an
        attribute path of names (``self.streams``), bound as an assignment would."""
        if isinstance(expression, (cst.Subscript, cst.Call)):
            self._rebind_item(expression, value, state, scope)
            return
        if isinstance(expression, cst.Name):
            name = expression.value
            if name in state.env and self._global_view(name, scope):
                state.env[name] = value  # a call's effect made this view of a global: still one
                self._fill_global(name, value, scope, value)
            elif name in state.env:
                self.bind_target(expression, value, state, scope)
            else:
                self._fill_global(name, value, scope, value)
            return
        node = expression
        while isinstance(node, cst.Attribute):
            node = node.value
        if isinstance(node, cst.Name) and isinstance(expression, cst.Attribute):
            self.bind_target(expression, value, state, scope)

    def _fill_global(self, name: str, value: Value, scope: Scope, added: Value) -> None:
        """A module global's container changed in place by a function (``_lanes.append(s)``,
        ``_by_kind["comm"] = s``) to hold an external stream the function makes (``added``
        holds it): every function reads it as the module left it joined with what any
        function put there, as a global rebound through ``global`` is read
        (:meth:`.core.Core._keep_final_globals`); calls see it sooner, as their effect
        (:mod:`.registries`, which alone keeps the classes and functions registries hold)."""
        module = self._scopes.get(self.module)
        if not self.learning or self._function is None or module is None:
            return
        if name in scope.local_names or name not in module.summary or _not_own(value):
            return
        if not holds_stream(added, 3, concrete=True):
            return
        writes = module.outer_writes
        writes[name] = join(writes[name], value) if name in writes else value
        module.summary[name] = join(module.summary[name], value)

    def _rebind_item(
        self, expression: cst.Subscript | cst.Call, value: Value, state: State, scope: Scope
    ) -> None:
        """A container read from another changed in place (``d[k].append(x)``,
        ``d.setdefault(k, []).append(x)``, a ``defaultdict``'s ``d[k].add(x)``): stored back
        under its key, as ``d[k] = changed`` would. Only where naming the key again runs
        nothing (a name, a literal, an attribute path): evaluating it twice is harmless."""
        if isinstance(expression, cst.Call):
            func = expression.func
            if not (
                isinstance(func, cst.Attribute)
                and func.attr.value == "setdefault"
                and expression.args
                and expression.args[0].keyword is None
                and not expression.args[0].star
            ):
                return
            index = cst.Index(expression.args[0].value)
            expression = cst.Subscript(func.value, [cst.SubscriptElement(index)])
        if len(expression.slice) != 1 or not isinstance(expression.slice[0].slice, cst.Index):
            return
        if not all(_pure(part) for part in (expression.value, expression.slice[0].slice.value)):
            return
        self.store_item(expression, value, state, scope)


def _not_own(value: Value, depth: int = 3) -> bool:
    """Nothing known, or something of the caller's (a parameter) in it, ``depth`` levels
    down: not a value of the module's own."""
    if value is None or is_symbolic(value):
        return True
    if depth <= 0 or not isinstance(value, Seq):
        return False
    parts = (*value.items, *(v for _, v in value.keys), value.default)
    return any(p is not None and _not_own(p, depth - 1) for p in parts)


def _pure(node: cst.BaseExpression) -> bool:
    """An expression whose evaluation calls nothing: a name, a literal, an attribute path
    or subscript of those."""
    if isinstance(node, (cst.Name, cst.SimpleString, cst.Integer)):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    if isinstance(node, cst.Subscript):
        return _pure(node.value) and all(
            isinstance(e.slice, cst.Index) and _pure(e.slice.value) for e in node.slice
        )
    return False


#: Methods that add to a container.
_GROWS = frozenset({"append", "appendleft", "extend", "insert", "setdefault", "update", "add"})


def _popped_pair(receiver: Seq, site: CallSite) -> Value:
    """``d.popitem()``: a (key, value) pair; by literal keys, the last one stored (the first
    with ``last=False``); otherwise any key with any value."""
    if receiver.keys:
        last = site.arg(0, "last")
        first = last is not None and isinstance(last.value, Const) and last.value.value is False
        key, value = receiver.keys[0 if first else -1]
        return Seq((Const(key), value))
    if not (receiver.is_dict or receiver.key is not None):
        return None
    return Seq((receiver.key, sm.contents(receiver)))


def _keyed(value: Seq) -> bool:
    """A dict whose keys are all literals (a display, or an empty dict so far)."""
    return bool(value.keys) or (value.is_dict and not value.items)


#: Elements a list grown in place keeps one by one; past it, the list is "one of" them
#: (:func:`.core.may_contain`). Unbounded, ``items.append(x)`` n times copied and joined
#: lists of every length up to n: quadratic (issue 43; docs/limitations.md).
MAX_GROWN = 64


def _grown(items: tuple[Value, ...]) -> Value:
    return Seq(items) if len(items) <= MAX_GROWN else may_contain(list(items))


def _changed(receiver: Seq, method: str, site: CallSite) -> Value:
    """The list after ``append``/``appendleft``/``extend``/``insert``/``clear``; ``None``
    when it is not known (a dict's ``clear`` aside, dicts are not changed by these)."""
    args = [arg.value for arg in site.positional]
    if receiver.keys or receiver.is_dict:
        if method == "update" and site.star_at is None and not site.double_star:
            return _updated(receiver, args, site)
        return Seq((), is_dict=True) if method == "clear" else None
    items = receiver.items
    if method == "clear":
        return Seq(())
    if site.star_at is not None or site.keywords:
        return None
    if method in ("append", "add") and len(args) == 1:
        return _grown((*items, args[0]))
    if method == "appendleft" and len(args) == 1:
        return _grown((args[0], *items))
    if method == "extend" and len(args) == 1:
        added = args[0]
        if isinstance(added, Seq) and not added.keys and not added.is_dict:
            return _grown((*items, *added.items))
        return may_contain([*items, sm.element(added)])
    if method == "insert" and len(args) == 2:
        where = args[0]
        if isinstance(where, Const) and type(where.value) is int:
            at = where.value
            return _grown((*items[:at], args[1], *items[at:]))
        return may_contain([*items, args[1]])
    return None


def _updated(receiver: Seq, args: list[Value], site: CallSite) -> Value:
    """A dict after ``update(other)`` / ``update(k=v)``: a literal key of a dict keyed by
    literals gets its value; any other key joins the values (``None``: not known)."""
    pairs: list[tuple[object, Value]] = [(k, arg.value) for k, arg in site.keywords.items()]
    if args:
        other = args[0]
        if not isinstance(other, Seq) or not other.keys or len(args) > 1:
            return None
        pairs = [*other.keys, *pairs]
    if not _keyed(receiver):
        held = join_all([*receiver.items, *(v for _, v in pairs)])
        return Seq((held,), is_dict=True, key=receiver.key)
    keys = dict(receiver.keys)
    keys.update(pairs)
    return Seq((join_all(list(keys.values())),), tuple(keys.items()))


def concatenated(parts: list[Value]) -> Value:
    """``a + b`` (and ``a += b``) of lists or tuples known item by item: the items of each in
    turn. ``None`` when one part is not such a list (then the operator is the tensors')."""
    if len(parts) < 2 or not all(_plain_list(part) for part in parts):
        return None
    return _grown(tuple(item for part in parts for item in part.items))  # type: ignore[union-attr]


def sliced(base: Seq, bounds: list[Value]) -> Value:
    """``xs[i:j]`` (``bounds``: lower, upper, step as evaluated, None where omitted): the
    items between literal bounds; the contents, positions unknown, for any other slice, or
    when literal bounds leave nothing (a list known only as "one of" its items may be longer
    than its items)."""
    if not _plain_list(base):
        return base
    literal: list[int | None] = []
    for bound in bounds:
        if bound is None:
            literal.append(None)
        elif isinstance(bound, Const) and type(bound.value) is int:
            literal.append(bound.value)  # type: ignore[arg-type]
        else:
            return may_contain(list(base.items))
    lower, upper, step = literal
    if step == 0:
        return None  # ValueError at run time
    items = base.items[lower:upper:step]
    return Seq(items) if items else may_contain(list(base.items))


def _plain_list(value: Value) -> bool:
    return isinstance(value, Seq) and not value.keys and not value.is_dict


__all__ = ["CONTAINER_METHODS", "NO_KEY", "Containers", "concatenated", "literal_key", "sliced"]
