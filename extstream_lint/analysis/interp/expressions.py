"""Expressions: the abstract value of an expression, checking every call inside it.

:meth:`Expressions.eval` dispatches on the node's type through one table (``_EVALUATORS``):
names, constants, containers (tuples, lists, sets, dicts with literal keys, comprehensions),
subscripts, attribute reads, operators, ``yield`` and ``await``. Calls and ``lambda`` are
evaluated in :mod:`.calls`, attribute reads on values in :mod:`.classes`; any node the table
does not know is still walked for the calls inside it. Long operator chains are walked
iteratively, so generated code does not exhaust the stack.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, ExtStream, Ref, present
from ..abstract.members import UNDECIDED, Member, compare_members
from ..abstract.state import State
from ..abstract.values import (
    ClassInfo,
    Instance,
    Seq,
    Tensor,
    Value,
    is_none,
    join,
    join_all,
    join_any,
)
from ..semantics import autograd as ag
from ..semantics.devices import keyed_by, rekeyed, tensor_device
from ..semantics.effects import canonical
from ..semantics.hazards import computed
from ..source.syntax import children, dotted_name, string_value
from . import summaries as sm
from .calls import Calls
from .constants import const_truth
from .containers import NO_KEY, concatenated, literal_key, sliced
from .core import Scope, is_symbolic, may_contain


class Expressions:
    """The abstract value of each kind of expression, dispatched on the node's type."""

    #: Per comprehension being evaluated, innermost last: the names its assignment
    #: expressions bind (they belong to the enclosing scope). Made on first use.
    _walrus: list[set[str]] | None = None

    def element_of(self, value: Value) -> Value:
        if isinstance(value, Instance) and not value.cls.fields:  # __iter__ (objects.py)
            return self.dunder_element(value)
        return sm.element(value)

    def eval(self, node: cst.CSTNode | None, state: State, scope: Scope) -> Value:
        """The abstract value of an expression; checks every call inside it on the way."""
        if node is None:
            return None
        handler = _EVALUATORS.get(type(node))
        if handler is not None:
            value = handler(self, node, state, scope)
            if type(node) in _OPERATIONS:
                # a call of a helper that turns grad mode on keeps its history (gradmode.py)
                kept = type(node) is cst.Call and self.take_grad_kept()
                if ag.GRAD_KEY in state.env and ag.grad_off(state.env) and not kept:
                    return ag.cut(value)  # in no-grad mode nothing an op yields has history
            return value
        for child in children(node):
            self.eval(child, state, scope)
        return None

    def _eval_name(self, node: cst.Name, state: State, scope: Scope) -> Value:
        name = node.value
        if name in _CONSTANT_NAMES:
            return _CONSTANT_NAMES[name]
        if name in state.env:
            return state.env[name]
        got = self.lookup(name, state, scope)
        if self._function is not None and (got is None or got == _NONE or is_symbolic(got)):
            return self.global_read(node, got, state, scope)  # globalreads.py
        return got

    def _eval_integer(self, node: cst.Integer, state: State, scope: Scope) -> Value:
        try:
            return Const(int(node.value, 0))
        except ValueError:  # "0_1", "007": not int() literals but valid Python 2 era forms
            return None

    def _eval_float(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        return Const(0.5)  # any non-integer number: only its type matters

    def _eval_string(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        """A short plain string keeps its text (``MODE = "overlap"`` decides a comparison or
        a ``match`` case); any other string is ``""``, which stands for "some string"."""
        # "a" "b" "c" ... nests to the right; only f-string replacement fields hold code.
        parts: list[str] | None = []
        while type(node) is cst.ConcatenatedString:
            text = self._eval_string(node.left, state, scope)  # type: ignore[attr-defined]
            if parts is not None and isinstance(text, Const) and text.value:
                parts.append(text.value)  # type: ignore[arg-type]
            else:
                parts = None
            node = node.right  # type: ignore[attr-defined]
        if type(node) is cst.FormattedString:
            for child in children(node):
                self.eval(child, state, scope)
            return Const("")
        text = string_value(node) if type(node) is cst.SimpleString else None  # type: ignore[arg-type]
        if parts is None or text is None:
            return Const("")
        whole = "".join(parts) + text
        return Const(whole) if len(whole) <= _MAX_TEXT else Const("")

    def _eval_unary(self, node: cst.UnaryOperation, state: State, scope: Scope) -> Value:
        value = self.eval(node.expression, state, scope)
        if type(node.operator) is cst.Not:
            truth = const_truth(value)
            return None if truth is None else Const(not truth)
        if (
            isinstance(node.operator, cst.Minus)
            and isinstance(value, Const)
            and type(value.value) is int
        ):
            return Const(-value.value)
        return computed(self._current(state), [value])  # ``-loss``: computed now

    def _eval_named(self, node: cst.NamedExpr, state: State, scope: Scope) -> Value:
        value = self.eval(node.value, state, scope)
        self.bind_target(node.target, value, state, scope)
        walrus = self._walrus
        if walrus and isinstance(node.target, cst.Name):  # in a comprehension: see below
            walrus[-1].add(node.target.value)
        return value

    def _eval_sequence(self, node: cst.Tuple | cst.List, state: State, scope: Scope) -> Value:
        items = tuple(self.eval(e.value, state, scope) for e in node.elements)
        if any(type(e) is cst.StarredElement for e in node.elements):
            # [*xs, ext]: positions are unknown, contents are not ("may contain")
            spread = [
                self.element_of(v) if isinstance(e, cst.StarredElement) else v
                for e, v in zip(node.elements, items)
            ]
            return may_contain(spread)
        return Seq(items)

    def _eval_set(self, node: cst.Set, state: State, scope: Scope) -> Value:
        items = [self.eval(e.value, state, scope) for e in node.elements]
        return may_contain(items)

    def _eval_dict(self, node: cst.Dict, state: State, scope: Scope) -> Value:
        """Values "may contain"; with literal keys only, each key keeps its own value."""
        values: list[Value] = []
        keyed: dict[object, Value] | None = {}
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = literal_key(element.key, self.eval(element.key, state, scope))
                value = self.eval(element.value, state, scope)
                values.append(value)
                if keyed is not None and key is not NO_KEY:
                    keyed[key] = value  # a repeated key: the last one wins, as in Python
                else:
                    keyed = None
            else:  # {**other}
                values.append(sm.contents(self.eval(element.value, state, scope)))
                keyed = None
        if not node.elements:  # {}: a dict with no keys yet (containers.py adds them)
            return Seq((), is_dict=True)
        if keyed:  # every key literal: kept even when no value matters (get's default)
            return Seq((join_any(values),), tuple(keyed.items()))
        return may_contain(values)

    def _eval_subscript(self, node: cst.Subscript, state: State, scope: Scope) -> Value:
        base = self.eval(node.value, state, scope)
        index: Value = None
        for element in node.slice:
            if type(element.slice) is cst.Index:
                index = self.eval(element.slice.value, state, scope)
            else:
                part = element.slice
                bounds = [
                    self.eval(bound, state, scope) if bound is not None else None
                    for bound in (part.lower, part.upper, part.step)  # type: ignore[attr-defined]
                ]
                if isinstance(base, Tensor):  # a view: the same memory
                    return sm.contents(base)
                if not isinstance(base, Seq):
                    return None
                return sliced(base, bounds) if len(node.slice) == 1 else base  # containers.py
        base = self.filled_later(node.value, base, state, scope)  # self._lanes[k] (mappings.py)
        if isinstance(base, Instance) and base.cls.fields:
            base = self._as_seq(base)
        elif isinstance(base, Instance):  # obj[key]: type(obj).__getitem__ (mappings.py)
            found, value = self.dunder_item(base, index, node, dotted_name(node.value), state)
            if found:
                return value
        elif isinstance(base, ClassInfo):  # Kind["EXTERNAL"]: a member by name (datamodel.py)
            found, value = self.enum_lookup(base, index, "name")
            if not found:  # Slot[T], Lanes["vendor"]: a generic alias, __class_getitem__
                found, value = self.class_item(base, index, node, state)  # mappings.py
            if found:
                return value
        wanted = NO_KEY
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            wanted = literal_key(node.slice[0].slice.value, index)
        self.note_keyed(index, base)  # self.lanes[kind] (constants.py)
        if wanted is NO_KEY and type(base) is ExtStream and base.param is not None:
            got = self.subscript_keyed(base, node, index, state)  # links[rank] (containers.py)
        else:
            got = sm.contents(base) if wanted is NO_KEY else sm.item(base, wanted)  # type: ignore[arg-type]
        if got is None and self._function is not None and _global_base(node.value, state):
            got = self.global_read(node, got, state, scope, index)  # globalreads.py
        if got is None:  # a getter of a registry others fill (containers.py)
            return self.deferred_read(node.value, base, index, None, state, scope)
        one = node.slice[0].slice if len(node.slice) == 1 else None
        return rekeyed(got, index, one.value if type(one) is cst.Index else None)

    def _eval_comparison(self, node: cst.Comparison, state: State, scope: Scope) -> Value:
        """``a == b``, ``a is None``, ``a in (...)``...: a literal ``bool`` when every operand
        is a literal the interpreter knows, so the branch it guards is decided; otherwise what
        tensors compute (provenance, :mod:`..provenance`)."""
        left = self.eval(node.left, state, scope)
        operands = [left]
        result: Value = Const(True)
        for target in node.comparisons:
            right = self.eval(target.comparator, state, scope)
            operands.append(right)
            if result is not None:
                step = compare(left, _OPERATORS.get(type(target.operator), ""), right)
                if step is None or step == Const(False):
                    result = step
            left = right
        if result is not None:
            return result
        if any(type(t.operator) in _NOT_TENSORS for t in node.comparisons):
            return None  # identity and membership give a bool, never a tensor
        return computed(self._current(state), operands)  # ``logits > 0``: computed now

    def _eval_ifexp(self, node: cst.IfExp, state: State, scope: Scope) -> Value:
        truth = const_truth(self.eval(node.test, state, scope))
        if truth is not None:  # x if flag else y, with a literal flag: one of them runs
            return self.eval(node.body if truth else node.orelse, state, scope)
        body = self.eval(node.body, state, scope)
        return join(body, self.eval(node.orelse, state, scope))

    def _eval_boolean(self, node: cst.BooleanOperation, state: State, scope: Scope) -> Value:
        """``a and b`` / ``a or b``: the right operand runs only when the left one's truth
        asks for it; with a literal left operand (``False and f()``, ``DEBUG or f()``) the
        other side is decided, otherwise the value is either operand's.

        A chain nests to the left (``a and b or c`` is ``(a and b) or c``): walked
        iteratively, each step with its own operator.
        """
        steps: list[cst.BooleanOperation] = []
        left: cst.CSTNode = node
        while type(left) is cst.BooleanOperation:
            steps.append(left)  # type: ignore[arg-type]
            left = left.left  # type: ignore[attr-defined]
        value = self.eval(left, state, scope)
        for step in reversed(steps):
            truth = const_truth(value)
            runs_on = isinstance(step.operator, cst.And)  # ``and`` goes on when true
            if truth is None:
                value = join(value, self.eval(step.right, state, scope))
            elif truth is runs_on:
                value = self.eval(step.right, state, scope)
        return value

    def _eval_binary(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        # a + b + c + ... nests to the left: walk the spine instead of recursing, so long
        # generated expressions do not exhaust the stack. A plain loop, not a comprehension:
        # ``a ** b ** c`` nests to the right through here, and a comprehension is one more
        # frame per level (the deepest nesting CPython accepts must still be analysed).
        operands = []
        for operand in _left_spine(node, type(node)):
            operands.append(self.eval(operand, state, scope))
        if isinstance(node, cst.BinaryOperation):  # ``a * b``: computed now (hazard rules)
            if _adds(node, len(operands)):  # ``[a] + [b]``: a list of both (containers.py)
                if all(isinstance(v, Const) and type(v.value) is str for v in operands):
                    whole = "".join(v.value for v in operands)  # type: ignore[union-attr]
                    return Const(whole) if len(whole) <= _MAX_TEXT else Const("")
                joined = concatenated(operands)
                if joined is not None:
                    return joined
            return computed(self._current(state), operands)
        return None

    def _eval_yield(self, node: cst.Yield, state: State, scope: Scope) -> Value:
        value = node.value
        if isinstance(value, cst.From):  # ``yield from g``: each element of g, in turn
            yielded: Value = self.element_of(self.eval(value.item, state, scope))
        else:
            yielded = self.eval(value, state, scope) if value is not None else Const(None)
        info = scope.function
        if info is not None and self.learning:
            info.summary.note_yield(state.current, yielded)
        return None

    def _eval_await(self, node: cst.Await, state: State, scope: Scope) -> Value:
        return self.eval(node.expression, state, scope)

    def _eval_comprehension(self, node: cst.CSTNode, state: State, scope: Scope) -> Value:
        """A comprehension runs in its own scope, on a copy of the state.

        Its ``if`` clauses narrow like ``if`` statements (the predicate of contract section
        6, ``isinstance``, a literal ``False`` that keeps nothing), and an assignment
        expression in it binds in the enclosing scope (PEP 572): the name may keep its
        value from before when no element is made, so the two are joined.
        """
        walrus = self._walrus
        if walrus is None:
            walrus = self._walrus = []
        walrus.append(set())
        try:
            made = self._comprehension_value(node, state.copy(), scope)
        finally:
            bound = walrus.pop()
        for name in bound:
            before = self.lookup(name, state, scope)
            self.bind(name, join(before, made[1].env.get(name)), state, scope)
        if walrus and bound:  # a comprehension inside a comprehension: the outer binds too
            walrus[-1].update(bound)
        return made[0]

    def _comprehension_value(
        self, node: cst.CSTNode, inner: State, scope: Scope
    ) -> tuple[Value, State]:
        """The comprehension's value, and the state its last element is made in."""
        keyed = self._keyed_comprehension(node, inner, scope)
        if keyed is not None:
            return keyed
        for_in = node.for_in
        while for_in is not None:
            element = self.element_of(self.eval(for_in.iter, inner, scope))
            self._bind_local(for_in.target, element, inner)
            for cond in for_in.ifs:
                if const_truth(self.eval(cond.test, inner, scope)) is False:
                    return Seq(()), inner  # ``if False``: no element is ever made
                inner = self.narrow(cond.test, inner, scope)[0]
            for_in = for_in.inner_for_in
        if type(node) is cst.DictComp:
            key = self.eval(node.key, inner, scope)
            made = self.eval(node.value, inner, scope)
            if type(node.key) is cst.Name:  # {r: Stream(device=r) for r ...}: by its key
                made = keyed_by(made, node.key.value)
            # Iterating the dict gives its keys; its values are read by subscript or values().
            return (Seq((made,), is_dict=True, key=key) if made is not None else None), inner
        element = self.eval(node.elt, inner, scope)
        target = _indexed_by(node.for_in)  # [m.to(f"npu:{r}") for r in range(n)]
        return may_contain([keyed_by(element, target) if target else element]), inner

    def _keyed_comprehension(
        self, node: cst.CSTNode, inner: State, scope: Scope
    ) -> tuple[Value, State] | None:
        """``{k: make(k) for k in ("compute", "comm")}``: a dict comprehension over a tuple
        or list of literals, with no ``if``, makes one entry per literal, in order; each
        value is made with the target bound to its literal, so the dict has literal keys
        (``d["comm"]`` is ``make("comm")``'s value alone), as the display it spells out would
        (at most :data:`_MAX_UNROLLED` entries; anything else is the join below)."""
        if type(node) is not cst.DictComp:
            return None
        for_in = node.for_in
        if for_in.inner_for_in is not None or for_in.ifs or type(for_in.target) is not cst.Name:
            return None
        over = self.eval(for_in.iter, inner, scope)
        if not isinstance(over, Seq) or over.keys or over.is_dict:
            return None
        items = over.items
        if not items or len(items) > _MAX_UNROLLED or not all(_literal(i) for i in items):
            return None
        pairs: dict[object, Value] = {}
        for item in items:
            inner.env[for_in.target.value] = item
            key = self.eval(node.key, inner, scope)
            value = self.eval(node.value, inner, scope)
            if not _literal(key):
                return None
            pairs[key.value] = value  # type: ignore[union-attr]
        keys = tuple(pairs.items())
        return Seq((join_all([v for _, v in keys]),), keys), inner

    def _bind_local(self, target: cst.CSTNode, value: Value, state: State) -> None:
        """Bind comprehension targets: they do not leak into the enclosing scope."""
        if isinstance(target, cst.Name):
            state.env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            stars = [i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
            values = self.unpack(value, len(elements), stars[0] if len(stars) == 1 else None)
            for element, item in zip(elements, values):
                self._bind_local(element.value, item, state)

    def _eval_attribute(self, node: cst.Attribute, state: State, scope: Scope) -> Value:
        key = dotted_name(node)
        if key is not None and key in state.env:
            return state.env[key]
        base = self.eval(node.value, state, scope)
        name = node.attr.value
        if isinstance(base, Ref):
            return Ref(canonical(f"{base.qualname}.{name}", self.transfer_to_npu))
        if name in ag.CUT_ATTRS and isinstance(base, Tensor):  # ``t.data``: no history
            return ag.cut(base)
        if name == "device" and isinstance(base, Tensor):  # ``t.device``: where it lives
            return tensor_device(base)
        text = dotted_name(node.value)
        if not isinstance(base, Instance) and is_symbolic(base):  # dec: Decoder (declared.py)
            base = self.declared_descriptor(base, name) or base
        if isinstance(base, Instance):  # a descriptor's __get__, called here (datamodel.py)
            found, got = self.descriptor_get(base, name, node, state)
            if found:
                return self.through_self(base, name, got)
            found, got = self.property_of_instance(base, name, node, state)  # receivers.py
            if found:
                return got
        got = self._stream_method(base, name, text, node) or self._attribute_of(base, name, text)
        empty = got is None or got == _NONE
        if empty and self._function is not None and _global_base(node.value, state):
            return self.global_read(node, got, state, scope)  # globalreads.py
        return got


_NONE = Const(None)


def _indexed_by(for_in: cst.CompFor) -> str | None:
    """The target that is each element's index: ``for r in range(n)`` (one argument),
    ``for r, _ in enumerate(xs)``; None for anything else."""
    call, target = for_in.iter, for_in.target
    if for_in.inner_for_in is not None or for_in.ifs or type(call) is not cst.Call:
        return None
    name = call.func.value if type(call.func) is cst.Name else None  # type: ignore[attr-defined]
    if name == "range" and len(call.args) == 1 and type(target) is cst.Name:
        return target.value
    if name == "enumerate" and len(call.args) == 1 and type(target) is cst.Tuple:
        first = target.elements[0].value if target.elements else None
        return first.value if type(first) is cst.Name else None
    return None


def _global_base(node: cst.BaseExpression, state: State) -> bool:
    """``G`` of ``G[k]`` or ``G.attr``: a name this frame has not bound (maybe a global)."""
    return type(node) is cst.Name and node.value not in state.env


#: Expressions that run an operation: in no-grad mode, what they yield has no history (a
#: subscript is left out: ``losses[0]`` of a list is the tensor itself, not an op on it).
_OPERATIONS = frozenset({cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison})

#: The longest string literal kept with its text (longer ones are docstrings and messages).
_MAX_TEXT = 80
#: Entries of a dict comprehension over literals made one by one at most.
_MAX_UNROLLED = 8


def _literal(value: Value) -> bool:
    """A literal a dict with literal keys is keyed by (a short string, an int)."""
    return isinstance(value, Const) and type(value.value) in (str, int) and value.value != ""


#: Comparisons that give a ``bool`` whatever the operands (a tensor's ``==`` gives a tensor).
_NOT_TENSORS = (cst.Is, cst.IsNot, cst.In, cst.NotIn)

#: The comparison operators :func:`compare` decides.
_OPERATORS: dict[type, str] = {
    cst.Equal: "==",
    cst.NotEqual: "!=",
    cst.Is: "is",
    cst.IsNot: "is not",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.In: "in",
    cst.NotIn: "not in",
}


def _known(value: Value) -> bool:
    """A literal whose value is known exactly (``""`` stands for any string, a float for
    any number)."""
    if not isinstance(value, Const):
        return False
    raw = value.value
    return raw is None or type(raw) in (bool, int, Member) or (type(raw) is str and raw != "")


def compare(left: Value, operator: str, right: Value) -> Value:
    """``left <operator> right`` as a literal ``bool``, or ``None`` when it is not known."""
    decided = compare_members(left, operator, right)  # an enum member (members.py)
    if decided is not UNDECIDED:
        return decided
    if operator in ("in", "not in"):
        if not _known(left) or not isinstance(right, Seq) or right.is_dict:
            return None
        members = [Const(key) for key, _ in right.keys] if right.keys else list(right.items)
        if (len(members) == 1 and not right.keys) or not all(_known(m) for m in members):
            return None  # one item may stand for a container of any length
        found = any(compare(left, "==", member) == Const(True) for member in members)
        return Const(found if operator == "in" else not found)
    if operator in ("is", "is not") and (is_none(left) or is_none(right)):
        # ``x is None``: an object the analysis tracks (a stream, an instance) is not None
        other = right if is_none(left) else left
        if _known(other) or (other is not None and not _maybe_none(other)):
            same = is_none(other)
            return Const(same if operator == "is" else not same)
        return None
    if operator in ("==", "!=") and (is_none(left) or is_none(right)):
        other = right if is_none(left) else left  # ``stream == None``: a stream never is
        if present(other):
            return Const(operator == "!=")
    if not (_known(left) and _known(right)):
        return None
    a, b = left.value, right.value  # type: ignore[union-attr]
    if operator in ("is", "is not"):
        if type(a) is not type(b) or (type(a) not in (bool,) and a is not None):
            return None  # identity of ints and strings is an implementation detail
        return Const((a is b) if operator == "is" else (a is not b))
    if operator in ("==", "!="):
        same = a == b and (type(a) is str) == (type(b) is str)
        return Const(same if operator == "==" else not same)
    if (type(a) is str) != (type(b) is str) or a is None or b is None:
        return None  # a TypeError at run time: not ours to decide
    if operator == "<":
        return Const(a < b)  # type: ignore[operator]
    if operator == "<=":
        return Const(a <= b)  # type: ignore[operator]
    if operator == ">":
        return Const(a > b)  # type: ignore[operator]
    if operator == ">=":
        return Const(a >= b)  # type: ignore[operator]
    return None


def _maybe_none(value: Value) -> bool:
    """Whether a tracked value may still be ``None`` on some path: only an external stream
    made on every path says it is not (an object joined with ``None`` is kept as the
    object, :func:`..values.join`)."""
    if isinstance(value, ExtStream):  # a copy's parameter the caller gave a stream: not
        return value.nullable or (value.param is not None and not present(value)) or not value.must
    return True


def _adds(node: cst.CSTNode, count: int) -> bool:
    """Every operator of the left spine :func:`_left_spine` walked (``count`` operands) is ``+``."""
    for _ in range(count - 1):
        if type(node.operator) is not cst.Add:  # type: ignore[attr-defined]
            return False
        node = node.left  # type: ignore[attr-defined]
    return True


def _left_spine(node: cst.CSTNode, kind: type) -> list[cst.CSTNode]:
    """The operands of a left-nested chain of ``kind`` nodes, in source order."""
    rights: list[cst.CSTNode] = [node.right]  # type: ignore[attr-defined]
    node = node.left  # type: ignore[attr-defined]
    while type(node) is kind and not node.lpar:  # type: ignore[attr-defined]
        rights.append(node.right)  # type: ignore[attr-defined]
        node = node.left  # type: ignore[attr-defined]
    rights.append(node)
    rights.reverse()
    return rights


_CONSTANT_NAMES: dict[str, Const] = {
    "None": Const(None),
    "True": Const(True),
    "False": Const(False),
}

#: One dict lookup per expression (the hot path). Plain functions, called with the
#: interpreter: calls and lambdas are evaluated by the :class:`.calls.Calls` mixin.
_EVALUATORS = {
    cst.Name: Expressions._eval_name,
    cst.Attribute: Expressions._eval_attribute,
    cst.Call: Calls._eval_call,
    cst.Integer: Expressions._eval_integer,
    cst.Float: Expressions._eval_float,
    cst.Imaginary: Expressions._eval_float,
    cst.SimpleString: Expressions._eval_string,
    cst.ConcatenatedString: Expressions._eval_string,
    cst.FormattedString: Expressions._eval_string,
    cst.UnaryOperation: Expressions._eval_unary,
    cst.NamedExpr: Expressions._eval_named,
    cst.Tuple: Expressions._eval_sequence,
    cst.Set: Expressions._eval_set,
    cst.Dict: Expressions._eval_dict,
    cst.Subscript: Expressions._eval_subscript,
    cst.List: Expressions._eval_sequence,
    cst.IfExp: Expressions._eval_ifexp,
    cst.BooleanOperation: Expressions._eval_boolean,
    cst.BinaryOperation: Expressions._eval_binary,
    cst.Comparison: Expressions._eval_comparison,
    cst.Await: Expressions._eval_await,
    cst.Yield: Expressions._eval_yield,
    cst.Lambda: Calls._eval_lambda,
    cst.ListComp: Expressions._eval_comprehension,
    cst.SetComp: Expressions._eval_comprehension,
    cst.GeneratorExp: Expressions._eval_comprehension,
    cst.DictComp: Expressions._eval_comprehension,
}
