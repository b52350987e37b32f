"""Annotations and narrowing: where the program itself says a stream is external or not.

An annotation (``ExternalStream``, ``Optional[...]``, ``X | None``, a string) declares a
value external. A test narrows the branches of an ``if`` (contract section 6):
``isinstance(x, ExternalStream)``, the bit-30 test on ``x.stream_id``, ``x.device_type ==
PRIVATEUSE1``, a predicate function built from those (learnt from its body here), and
``not`` / ``and`` / ``or`` of them. Like mypy's binder, it only splits states; the
statements that run the branches are in :mod:`.statements`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from ..abstract.atoms import ExtStream, Ref
from ..abstract.state import State, join_states
from ..abstract.values import ClassInfo, FunctionInfo, Value
from ..semantics.effects import IMPLICIT_MODULES, canonical, is_external_class
from ..source.syntax import dotted_name
from .core import Scope
from .declared import parsed_string


class Narrowing:
    """Annotations that declare a stream external, and the tests that narrow one."""

    def annotation_value(
        self, annotation: cst.Annotation | None, origin: cst.CSTNode
    ) -> ExtStream | None:
        """``ExternalStream``, ``Optional[ExternalStream]``, ``"ExternalStream"``, ``X | None``."""
        if annotation is None:
            return None
        node = annotation.annotation if isinstance(annotation, cst.Annotation) else annotation
        if self._annotation_is_external(node, depth=0):
            return ExtStream(True, "annotated", origin)
        return None

    def _annotation_is_external(self, node: cst.CSTNode, depth: int) -> bool:
        if depth > 8:
            return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = dotted_name(node) or ""
            resolved = self._resolve_static(name)
            return resolved is not None and is_external_class(resolved)
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value if isinstance(node.evaluated_value, str) else ""
            if len(text) > 1000:  # no annotation of a stream is longer; a chain of 'and'
                return False  # thousands long would crash libcst's parser (issue 43)
            parsed = self._bodies.annotation("parsed", node, parsed_string)  # once per node
            return parsed is not None and self._annotation_is_external(parsed, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return self._none_or_external(node.left, node.right, depth)
        if isinstance(node, cst.Subscript):
            outer = (dotted_name(node.value) or "").rsplit(".", 1)[-1]
            elements = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            if outer == "Optional" and len(elements) == 1:
                return self._annotation_is_external(elements[0], depth + 1)
            if outer == "Union" and len(elements) == 2:
                return self._none_or_external(elements[0], elements[1], depth)
        return False

    def _none_or_external(self, a: cst.CSTNode, b: cst.CSTNode, depth: int) -> bool:
        for x, y in ((a, b), (b, a)):
            if isinstance(y, cst.Name) and y.value == "None":
                return self._annotation_is_external(x, depth + 1)
        return False

    def _resolve_static(self, name: str) -> str | None:
        """Resolve a dotted name through the module's imports (for annotations)."""
        head, _, rest = name.partition(".")
        scope = self._scopes.get(self.module)
        value = scope.summary.get(head) if scope is not None else None
        if head in IMPLICIT_MODULES and value is None:
            value = Ref(head)
        if not isinstance(value, Ref):
            return None
        full = f"{value.qualname}.{rest}" if rest else value.qualname
        return canonical(full, self.transfer_to_npu)

    def narrow(self, test: cst.CSTNode, state: State, scope: Scope) -> tuple[State, State]:
        """States for the true and false branch of ``test``.

        Narrowing tests (contract section 6): ``isinstance(x, ExternalStream)``, the bit-30
        test on ``x.stream_id``, ``x.device_type == PRIVATEUSE1`` (false: not an NPU stream),
        a call of a predicate function built from those (``def is_ext(s): return ...``, in
        this module or imported), and ``not`` / ``and`` / ``or`` of them.
        """
        negated = False
        while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            test, negated = test.expression, not negated
        true_state, false_state = self._narrow_test(test, state, scope)
        return (false_state, true_state) if negated else (true_state, false_state)

    def _narrow_test(self, test: cst.CSTNode, state: State, scope: Scope) -> tuple[State, State]:
        if type(test) is cst.BooleanOperation:
            left_true, left_false = self.narrow(test.left, state, scope)
            if type(test.operator) is cst.And:  # the right side runs when the left is true
                right_true, right_false = self.narrow(test.right, left_true, scope)
                return right_true, join_states([left_false, right_false]) or left_false
            right_true, right_false = self.narrow(test.right, left_false, scope)
            return join_states([left_true, right_true]) or left_true, right_false
        true_state, false_state = state.copy(), state.copy()
        checked = _stream_id_check(test)
        if checked is not None:
            subject, positive = checked
            if positive:
                self._narrow_external(subject, true_state, false_state, scope)
            else:  # the test is true when the stream is *not* external
                self._narrow_external(subject, false_state, true_state, scope)
            return true_state, false_state
        device_check = _device_type_check(test)
        if device_check is not None:  # not an NPU stream at all: not external either
            npu_subject, equal = device_check
            key = dotted_name(npu_subject)
            if key is not None:
                (false_state if equal else true_state).set_path(key, None)
            return true_state, false_state
        if type(test) is cst.Call:
            return self._narrow_call(test, true_state, false_state, scope)
        return true_state, false_state

    def _narrow_call(
        self, test: cst.Call, true_state: State, false_state: State, scope: Scope
    ) -> tuple[State, State]:
        if type(test.func) is cst.Name and test.func.value == "isinstance" and len(test.args) == 2:
            return self._narrow_isinstance(test, true_state, false_state, scope)
        with self._silenced():
            callee = self.eval(test.func, true_state, scope)
        predicate = callee.predicate if isinstance(callee, FunctionInfo) else None
        if predicate is None:
            return true_state, false_state
        index, positive = predicate
        name = callee.params[index][0] if index < len(callee.params) else ""
        subject = next((a.value for a in test.args if a.keyword and a.keyword.value == name), None)
        positional = [a for a in test.args if a.keyword is None]
        if subject is None and index < len(positional) and not any(a.star for a in positional):
            subject = positional[index].value
        if subject is not None:
            yes, no = (true_state, false_state) if positive else (false_state, true_state)
            self._narrow_external(subject, yes, no, scope)
        return true_state, false_state

    def _narrow_isinstance(
        self, test: cst.Call, true_state: State, false_state: State, scope: Scope
    ) -> tuple[State, State]:
        key = dotted_name(test.args[0].value)
        if key is None:
            return true_state, false_state
        classes = test.args[1].value
        members = [e.value for e in classes.elements] if type(classes) is cst.Tuple else [classes]
        with self._silenced():
            resolved = [self.eval(m, true_state, scope) for m in members]
        hits = [_external_class(r) for r in resolved]
        if not any(hits):
            return true_state, false_state
        narrowed = ExtStream(all(hits), "checked by isinstance()", test)
        with self._silenced():  # self.stream, h.stream: the value, wherever it is kept
            before = self.eval(test.args[0].value, true_state, scope)
        true_state.set_path(key, narrowed)
        exact = all(isinstance(r, Ref) for r in resolved)  # not a subclass: False clears it
        if (
            all(hits)
            and exact
            and isinstance(before, ExtStream)
            and before.noun == "ExternalStream"
            and before.current_of is None
        ):
            # Stream(stream_ptr=...) and current_stream() are external without being
            # ExternalStream instances: isinstance() is False for them (spec 6).
            false_state.set_path(key, None)
        return true_state, false_state

    def _learn_predicate(self, info: FunctionInfo, body: Sequence[cst.CSTNode], state: State,
                         scope: Scope) -> None:  # fmt: skip
        """``def is_ext(s): return <narrowing test of s>``: calls of it narrow like the test."""
        statements = [
            node for node in body
            if not (type(node) is cst.SimpleStatementLine and _is_docstring(node))
        ]  # fmt: skip
        line = statements[0] if len(statements) == 1 else None
        ret = line.body[0] if type(line) is cst.SimpleStatementLine and line.body else None
        if type(ret) is not cst.Return or ret.value is None:
            return
        with self._silenced():
            true_state, false_state = self.narrow(ret.value, state, scope)
        for index, (name, _) in enumerate(info.params):
            if_true, if_false = true_state.env.get(name), false_state.env.get(name)
            if _is_must_external(if_true) and if_false is None:
                info.predicate = (index, True)
                return
            if _is_must_external(if_false) and if_true is None:
                info.predicate = (index, False)
                return

    def _narrow_external(self, subject: cst.CSTNode, yes: State, no: State, scope: Scope) -> None:
        """``subject.stream_id & (1 << 30)`` (spec 6): external in ``yes``, not in ``no``."""
        if isinstance(subject, cst.Call):  # torch.npu.current_stream().stream_id
            if (dotted_name(subject.func) or "").endswith("current_stream"):
                no.current = None
                if yes.current is not None:
                    stream = replace(yes.current.stream, must=True, nullable=False)
                    yes.current = replace(yes.current, stream=stream)
            return
        key = dotted_name(subject)
        if key is None:
            return
        with self._silenced():
            before = self.eval(subject, yes, scope)
        if isinstance(before, ExtStream):
            yes.set_path(key, replace(before, must=True, nullable=False))
        no.set_path(key, None)


_EXTERNAL_MARK = 1 << 30


def _stream_id_check(test: cst.CSTNode) -> tuple[cst.CSTNode, bool] | None:
    """``x.stream_id & (1 << 30)`` or ``(x.stream_id >> 30) & 1`` (``!= 0``, ``== 0``,
    ``bool()``; ``== 1`` / ``!= 1`` for the shift, whose value is 0 or 1): (x, is it the test
    for "external"). ``None`` for any other test."""
    positive = True
    if type(test) is cst.Call and (dotted_name(test.func) or "") == "bool" and test.args:
        test = test.args[0].value
    compared: tuple[cst.BaseCompOp, str] | None = None
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if type(target.comparator) is not cst.Integer or target.comparator.value not in (
            "0",
            "1",
        ):
            return None
        compared = (target.operator, target.comparator.value)
        test = test.left
    found = _masked_stream_id(test)
    if found is None:
        return None
    subject, shifted = found
    if compared is not None:
        operator, value = compared
        if value == "1" and not shifted:
            return None  # ``x & (1 << 30) == 1`` is never true: no test of ours
        if isinstance(operator, cst.Equal):
            positive = value == "1"
        elif isinstance(operator, cst.NotEqual):
            positive = value == "0"
        elif isinstance(operator, cst.GreaterThan) and value == "0":
            positive = True
        else:
            return None
    return subject, positive


def _masked_stream_id(test: cst.CSTNode) -> tuple[cst.CSTNode, bool] | None:
    """``x.stream_id & MARK`` -> (x, False); ``(x.stream_id >> 30) & 1`` -> (x, True)."""
    if not (type(test) is cst.BinaryOperation and type(test.operator) is cst.BitAnd):
        return None
    for side, other in ((test.left, test.right), (test.right, test.left)):
        shifted = False
        if _is_mark(other):
            pass
        elif _is_one(other) and _is_shift_by_30(side):
            side, shifted = side.left, True  # type: ignore[attr-defined]
        else:
            continue
        if isinstance(side, cst.Call) and (dotted_name(side.func) or "") == "int":
            side = side.args[0].value if side.args else side
        if isinstance(side, cst.Attribute) and side.attr.value == "stream_id":
            return side.value, shifted
    return None


def _is_one(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Integer) and node.value == "1"


def _is_shift_by_30(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.RightShift)
        and isinstance(node.right, cst.Integer)
        and node.right.value == "30"
    )


def _device_type_check(test: cst.CSTNode) -> tuple[cst.CSTNode, bool] | None:
    """``x.device_type == PRIVATEUSE1`` (also ``getattr(x, "device_type", None) == 20``, and
    ``!=``): (x, is it ``==``). Where the device type is another, x is no NPU stream, hence
    not external."""
    if not (
        type(test) is cst.Comparison
        and len(test.comparisons) == 1
        and type(test.comparisons[0].operator) in (cst.Equal, cst.NotEqual)
    ):
        return None
    equal = type(test.comparisons[0].operator) is cst.Equal
    comparator = test.comparisons[0].comparator
    privateuse1 = (type(comparator) is cst.Integer and comparator.value == "20") or (
        "PRIVATEUSE1" in (dotted_name(comparator) or "").rsplit(".", 1)[-1].upper()
    )
    if not privateuse1:
        return None
    left = test.left
    if isinstance(left, cst.Attribute) and left.attr.value == "device_type":
        return left.value, equal
    if (
        isinstance(left, cst.Call)
        and dotted_name(left.func) == "getattr"
        and len(left.args) >= 2
        and isinstance(left.args[1].value, cst.SimpleString)
        and left.args[1].value.evaluated_value == "device_type"
    ):
        return left.args[0].value, equal
    return None


def _is_docstring(line: cst.SimpleStatementLine) -> bool:
    return (
        len(line.body) == 1
        and type(line.body[0]) is cst.Expr
        and type(line.body[0].value) in (cst.SimpleString, cst.ConcatenatedString)
    )


def _is_must_external(value: Value) -> bool:
    return isinstance(value, ExtStream) and value.must


def _is_mark(node: cst.CSTNode) -> bool:
    """``1 << 30``, ``0x40000000``, ``1073741824``, or a name like ``_EXT_MARK``."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0) == _EXTERNAL_MARK
        except ValueError:
            return False
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.LeftShift):
        left, right = node.left, node.right
        return (
            isinstance(left, cst.Integer)
            and left.value == "1"
            and isinstance(right, cst.Integer)
            and right.value == "30"
        )
    name = (dotted_name(node) or "").rsplit(".", 1)[-1].upper()
    return "EXT" in name and "MARK" in name


def _external_class(value: Value) -> bool:
    """``isinstance(x, C)`` proves ``x`` external: ``C`` is ``ExternalStream``, or a project
    class derived from it (its instances are external streams, :mod:`.objects`)."""
    if isinstance(value, Ref):
        return is_external_class(value.qualname)
    if isinstance(value, ClassInfo):
        return any(is_external_class(name) for cls in value.mro() for name in cls.library)
    return False
