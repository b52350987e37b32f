"""What a function's or class's body says, syntax only, learnt once per node per run.

The interpreter asks four questions of a body that depend on its text alone: which
parameters it tests for truth (:func:`tested_params`, for the copies of :mod:`.interp.constants`),
what it does through ``self`` (:func:`self_uses`, for the views of :mod:`.interp.views`),
what it calls by name (:func:`.syntax.called_names`, for the order bodies run in) and
whether a class's ``__init__`` chains (:func:`init_chains`). Each answer is a walk of the
body. A module is interpreted more than once in a run (its summary, each round of an import
cycle it is on, the lint of the file when the summary's interpreter cannot be reused), and
each interpreter used to walk again what the one before had walked: on the standard-library
set through ``flake8 -j1``, 13,484 walks of 9,576 distinct bodies.

:class:`Bodies` keeps the answers per node, and :func:`bodies_for` hands every interpreter of
the same tree in one run (:func:`..project.modules.run_memo`) the same :class:`Bodies`, so each
body is walked at most once per question per run (:data:`WALKS` counts the walks; a test
bounds them). Outside a run each interpreter has its own. The answers are the same whichever
interpreter asks first: they read nothing but the tree, which is never changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from ... import contract as c
from ...project.modules import run_memo
from .attrnames import NAMING, named, uses_as_name
from .compared import Compared, compared_literals
from .syntax import called_names, push_children

T = TypeVar("T")

#: Walks of a body, by question ("called", "tested", "self", "init"): tests bound them.
WALKS: Counter[str] = Counter()

#: Tests for truth whose operand decides a branch: ``if p:``, ``x if p else y``, ``while p:``.
_TESTS = (cst.If, cst.IfExp, cst.While)


@dataclass(frozen=True)
class SelfUses:
    """What a method's body does through its first parameter (syntax only)."""

    reads: frozenset[str]
    writes: frozenset[str]
    #: Attributes read from ``super()`` (``super().close()``: "close").
    super_reads: frozenset[str]
    #: ``cls(...)``, ``type(self)(...)``, ``self.__class__(...)``: an instance of the
    #: class it runs for, which differs for every subclass.
    makes_own: bool = False


class Bodies:
    """The answers for the bodies of one tree, each found by one walk."""

    __slots__ = (
        "_annotations",
        "_called",
        "_decided",
        "_init",
        "_literals",
        "_names",
        "_self",
        "_tested",
    )

    def __init__(self) -> None:
        self._called: dict[cst.FunctionDef, tuple[tuple[bool, str], ...]] = {}
        self._tested: dict[cst.FunctionDef, frozenset[str]] = {}
        self._decided: dict[cst.FunctionDef, frozenset[str]] = {}
        self._literals: dict[cst.FunctionDef, dict[str, Compared]] = {}
        self._names: dict[cst.For, bool] = {}
        self._self: dict[cst.FunctionDef, SelfUses] = {}
        self._init: dict[cst.ClassDef, bool] = {}
        self._annotations: dict[tuple[str, cst.CSTNode], object] = {}

    def annotation(self, kind: str, node: cst.CSTNode, read: Callable[[cst.CSTNode], T]) -> T:
        """What ``read`` makes of an annotation ``node`` (a string parsed, a declared
        type's shape): once per node and ``kind`` in the run, not once per pass."""
        key = (kind, node)
        if key not in self._annotations:
            WALKS["annotation"] += 1
            self._annotations[key] = read(node)
        return self._annotations[key]  # type: ignore[return-value]

    def called(self, node: cst.FunctionDef) -> tuple[tuple[bool, str], ...]:
        """:func:`.syntax.called_names` of ``node``."""
        known = self._called.get(node)
        if known is None:
            WALKS["called"] += 1
            known = self._called[node] = called_names(node)
        return known

    def tested(self, node: cst.FunctionDef) -> frozenset[str]:
        """:func:`tested_params` of ``node``."""
        known = self._tested.get(node)
        if known is None:
            WALKS["tested"] += 1
            known = self._tested[node] = tested_params(node)
        return known

    def names_attributes(self, node: cst.For) -> bool:
        """Whether the body of ``for name in (...):`` uses ``name`` as an attribute's name
        (:func:`.attrnames.named`): only then is a loop over literal names run name by name."""
        known = self._names.get(node)
        if known is None:
            WALKS["names"] += 1
            target = node.target
            names = {target.value} if type(target) is cst.Name else set()
            known = self._names[node] = bool(names) and uses_as_name(node.body, names)
        return known

    def decided(self, node: cst.FunctionDef) -> frozenset[str]:
        """:func:`decided_params` of ``node``."""
        known = self._decided.get(node)
        if known is None:
            WALKS["decided"] += 1
            known = self._decided[node] = decided_params(node)
        return known

    def literals(self, node: cst.FunctionDef) -> dict[str, Compared]:
        """:func:`compared_literals` of ``node``."""
        known = self._literals.get(node)
        if known is None:
            WALKS["literals"] += 1
            known = self._literals[node] = compared_literals(node)
        return known

    def self_uses(self, node: cst.FunctionDef) -> SelfUses:
        """:func:`self_uses` of ``node``."""
        known = self._self.get(node)
        if known is None:
            WALKS["self"] += 1
            known = self._self[node] = self_uses(node)
        return known

    def init_chains(self, node: cst.ClassDef) -> bool:
        """:func:`init_chains` of ``node``."""
        known = self._init.get(node)
        if known is None:
            WALKS["init"] += 1
            known = self._init[node] = init_chains(node)
        return known


def bodies_for(module: cst.Module) -> Bodies:
    """The :class:`Bodies` of ``module`` shared by every interpreter of it in this run (a
    fresh one outside a run). Kept by ``id`` with the tree itself, so the id stays its."""
    shared = run_memo("bodies", dict)
    if shared is None:
        return Bodies()
    known = shared.get(id(module))
    if known is None or known[0] is not module:
        known = shared[id(module)] = (module, Bodies())
    return known[1]


def tested_params(node: cst.FunctionDef) -> frozenset[str]:
    """The parameters ``node``'s body tests for truth (``if p:``, ``not p``, ``x if p else
    y``, ``while p:``), compares (``p is Kind.X``, ``p.value == "x"``) or passes as a
    copy's ``non_blocking=p`` or a factory's ``pin_memory=p`` (the hazard rules decide on
    that flag's truth: XST201),
    nested functions included; as ``"p.name"`` (``"p.cfg.name"``, any depth), the
    attributes of a parameter it tests for truth, compares or passes so (``if self.external:``,
    ``cfg.kind is Kind.X``, ``non_blocking=self.cfg.non_blocking``,
    ``getattr(self.cfg, "non_blocking")``), also through the locals they were read into
    (``nb = self.non_blocking``, tuple unpacking, a walrus, a nested helper's default), a
    conditional expression's branches, ``not`` and ``bool()`` (issue 38: :func:`_sources`);
    as ``"?p"``, the parameters (and paths) an ``or`` / ``and`` tests for truth (``stream or
    current_stream()``: only a caller's ``None`` or stream decides it, :mod:`.interp.nones`);
    and as ``"@p"``, the parameters it uses as an attribute's name (:func:`.attrnames.named`:
    ``getattr(obj, p)``, ``operator.methodcaller(p)``, ``vars(obj)[p]``)."""
    params = node.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    found: set[str] = set()
    uses: list[cst.BaseExpression] = []  # tested or passed as ``non_blocking=``
    either: list[cst.BaseExpression] = []  # an ``or`` / ``and`` operand: None-ness only
    aliases: dict[str, list[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [node.body]
    tests = _TESTS
    while stack:
        item = stack.pop()
        kind = type(item)
        # Exact types (libcst's node classes are final): ``isinstance`` against them goes
        # through ABCMeta for every node that is not one.
        test = item.test if kind in tests else None  # type: ignore[attr-defined]
        while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            test = test.expression
        if type(test) is cst.Comparison:  # ``kind is Kind.X``, ``kind.value == "x"``
            found.update(_compared(test, names))  # type: ignore[arg-type]
        elif type(test) is cst.Call and (tested := _none_type_test(test)) is not None:
            either.append(tested)  # isinstance(p, type(None))
        elif test is not None:
            uses.append(test)
        elif kind is cst.BooleanOperation and not _inert(item.right):  # type: ignore[attr-defined]
            either.append(item.left)  # ``stream or current_stream()``: "?stream"
        elif kind is cst.Match:  # ``match stream: case None:``
            either.append(item.subject)  # type: ignore[attr-defined]
            found.update(_class_pattern_fields(item, names))  # type: ignore[arg-type]
        elif kind in NAMING and (name := named(item, names)):  # type: ignore[arg-type]
            found.add(f"@{name}")
            if "." in name:  # the attribute of a parameter's object: as a tested one
                found.add(name)
        elif (kind is cst.Arg or kind is cst.DictElement) and _flag_keyword(item):  # type: ignore[arg-type]
            uses.append(item.value)  # type: ignore[attr-defined]
        elif kind is cst.Call and (flag := _grad_flag(item)) is not None:  # type: ignore[arg-type]
            uses.append(flag)
        elif kind in _BINDS:
            _note_aliases(item, aliases)
        push_children(item, stack)
    for use in uses:
        found.update(_sources(use, names, aliases, frozenset()))
    for use in either:
        found.update(f"?{name}" for name in _sources(use, names, aliases, frozenset()))
    return frozenset(found)


#: Operands whose value holds no stream: ``streams or []`` decides nothing a rule reads.
_INERT = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)
_EMPTY = (cst.List, cst.Tuple, cst.Dict, cst.Set)


def _inert(operand: cst.BaseExpression) -> bool:
    """An ``or``/``and`` operand that is a number, a string, an empty literal container or a
    name of a constant (``None``, ``True``, ``False``): what the left operand's None-ness
    picks there is no stream, so a caller's ``None`` needs no copy of its own (a ``streams or
    []`` default in every ``__init__`` would otherwise copy each one)."""
    kind = type(operand)
    if kind in _INERT:
        return True
    if kind in _EMPTY:
        return not operand.elements  # type: ignore[attr-defined]
    return kind is cst.Name and operand.value in ("None", "True", "False")  # type: ignore[attr-defined]


def _none_type_test(test: cst.CSTNode | None) -> cst.BaseExpression | None:
    """``x`` of ``isinstance(x, type(None))`` (or ``types.NoneType``): a test of None-ness."""
    if type(test) is not cst.Call or type(test.func) is not cst.Name:  # type: ignore[union-attr]
        return None
    args = test.args  # type: ignore[union-attr]
    if test.func.value != "isinstance" or len(args) != 2:  # type: ignore[union-attr]
        return None
    kind = args[1].value
    if type(kind) is cst.Attribute and kind.attr.value == "NoneType":
        return args[0].value
    of = kind.args[0].value if type(kind) is cst.Call and len(kind.args) == 1 else None
    func = kind.func if of is not None else None  # type: ignore[union-attr]
    named = type(func) is cst.Name and func.value == "type"  # type: ignore[union-attr]
    return args[0].value if named and type(of) is cst.Name and of.value == "None" else None


#: The nodes that bind a local the flag may be read into (:func:`_note_aliases`).
_BINDS = frozenset((cst.Assign, cst.AnnAssign, cst.NamedExpr, cst.FunctionDef, cst.Lambda))
#: Steps of ``p.a.b`` (or of aliases) followed at most.
_MAX_STEPS = 4


def _note_aliases(item: cst.CSTNode, aliases: dict[str, list[cst.BaseExpression]]) -> None:
    """The locals ``item`` binds and to what: ``nb = self.flag``, ``nb, dev = self.flag,
    self.dev``, ``(nb := self.flag)``, ``nb: bool = ...`` and a nested helper's (or a
    lambda's) default ``def go(t, nb=self.flag)``, evaluated in the enclosing body."""
    kind = type(item)
    if kind is cst.Assign:
        for target in item.targets:  # type: ignore[attr-defined]
            _bind(target.target, item.value, aliases)  # type: ignore[attr-defined]
    elif kind is cst.AnnAssign or kind is cst.NamedExpr:
        if item.value is not None:  # type: ignore[attr-defined]
            _bind(item.target, item.value, aliases)  # type: ignore[attr-defined]
    else:
        params = item.params  # type: ignore[attr-defined]
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                aliases.setdefault(param.name.value, []).append(param.default)


def _bind(
    target: cst.BaseExpression,
    value: cst.BaseExpression,
    aliases: dict[str, list[cst.BaseExpression]],
) -> None:
    kind = type(target)
    if kind is cst.Name:
        aliases.setdefault(target.value, []).append(value)  # type: ignore[attr-defined]
    elif kind in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List):
        targets, values = target.elements, value.elements  # type: ignore[attr-defined]
        if len(targets) == len(values) and not any(
            type(e) is cst.StarredElement for e in (*targets, *values)
        ):
            for left, right in zip(targets, values, strict=True):
                _bind(left.value, right.value, aliases)


def _class_pattern_fields(match: cst.Match, names: set[str]) -> set[str]:
    """``match spec: case LaneSpec(kind="external"):``: the subject parameter's attributes
    its cases compare with a literal (``"spec.kind"``), as ``spec.kind == "external"``."""
    subject = _sources(match.subject, names, {}, frozenset())
    if len(subject) != 1:
        return set()
    (name,) = subject
    found = set()
    for case in match.cases:
        pattern = case.pattern
        if type(pattern) is cst.MatchAs and pattern.pattern is not None:
            pattern = pattern.pattern
        if type(pattern) is not cst.MatchClass:
            continue
        for keyword in pattern.kwds:
            if type(keyword.pattern) is cst.MatchValue:
                found.add(f"{name}.{keyword.key.value}")
    return found


def _sources(
    expr: cst.BaseExpression,
    names: set[str],
    aliases: dict[str, list[cst.BaseExpression]],
    seen: frozenset[str],
) -> set[str]:
    """The parameters (``"p"``) and parameter paths (``"p.cfg.flag"``) whose value ``expr``
    is, through the locals it was read into (:func:`_note_aliases`), a conditional
    expression's branches, ``not``, ``bool(x)`` and ``getattr(x, "name")``."""
    kind = type(expr)
    if kind is cst.Name:
        name = expr.value  # type: ignore[attr-defined]
        if name in names:
            return {name}
        if name in seen or len(seen) >= _MAX_STEPS:
            return set()
        found: set[str] = set()
        for bound in aliases.get(name, ()):
            found |= _sources(bound, names, aliases, seen | {name})
        return found
    if kind is cst.Attribute:
        return _steps(expr.value, expr.attr.value, names, aliases, seen)  # type: ignore[attr-defined]
    if kind is cst.IfExp:
        body = _sources(expr.body, names, aliases, seen)  # type: ignore[attr-defined]
        return body | _sources(expr.orelse, names, aliases, seen)  # type: ignore[attr-defined]
    if kind is cst.NamedExpr:
        return _sources(expr.value, names, aliases, seen)  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Not:  # type: ignore[attr-defined]
        return _sources(expr.expression, names, aliases, seen)  # type: ignore[attr-defined]
    if kind is cst.Subscript and len(expr.slice) == 1:  # type: ignore[attr-defined]
        index = expr.slice[0].slice  # type: ignore[attr-defined]
        if type(index) is cst.Index and type(index.value) is cst.SimpleString:
            return _sources(expr.value, names, aliases, seen)  # ``cfg["fence"]``: the dict's
    if kind is cst.Call and type(expr.func) is cst.Name:  # type: ignore[attr-defined]
        args = expr.args  # type: ignore[attr-defined]
        if any(arg.keyword is not None or arg.star for arg in args):
            return set()
        called = expr.func.value  # type: ignore[attr-defined]
        if called == "bool" and len(args) == 1:
            return _sources(args[0].value, names, aliases, seen)
        literal = args[1].value if called == "getattr" and len(args) == 2 else None
        if type(literal) is cst.SimpleString:
            attr = literal.raw_value  # type: ignore[union-attr]
            if attr.isidentifier():
                return _steps(args[0].value, attr, names, aliases, seen)
    return set()


def _steps(
    base: cst.BaseExpression,
    attr: str,
    names: set[str],
    aliases: dict[str, list[cst.BaseExpression]],
    seen: frozenset[str],
) -> set[str]:
    """``base.attr``'s parameter paths, at most :data:`_MAX_STEPS` steps deep."""
    return {
        f"{path}.{attr}"
        for path in _sources(base, names, aliases, seen)
        if path.count(".") < _MAX_STEPS
    }


#: The comparisons a literal argument decides (an enum member's identity or value).
_DECIDED = (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)


def _compared(test: cst.Comparison, names: set[str]) -> set[str]:
    """The parameters an identity or equality test compares, themselves or their
    ``.value`` / ``.name`` (an enum member's), and as ``"p.attr"`` the attributes of a
    parameter it compares, any depth (``cfg.kind is Kind.EXTERNAL``: a config object's
    field; ``cfg.placement.comm is Kind.EXTERNAL``: a nested holder's)."""
    if not all(type(t.operator) in _DECIDED for t in test.comparisons):
        return set()
    found = set()
    for operand in (test.left, *(t.comparator for t in test.comparisons)):
        if type(operand) is cst.Attribute and operand.attr.value in ("value", "name"):
            operand = operand.value  # ``kind.value``, ``cfg.kind.value``: the member's
        if type(operand) is cst.Name and operand.value in names:
            found.add(operand.value)
        elif type(operand) is cst.Attribute:
            steps: list[str] = []
            while type(operand) is cst.Attribute and len(steps) < _MAX_STEPS:
                steps.append(operand.attr.value)  # type: ignore[attr-defined]
                operand = operand.value  # type: ignore[attr-defined]
            owner = operand.value if type(operand) is cst.Name else None  # type: ignore[attr-defined]
            if owner in names:  # ``cfg.kind is Kind.EXTERNAL``: an attribute of a parameter
                found.add(".".join((owner, *reversed(steps))))  # type: ignore[arg-type]
    return found


def decided_params(node: cst.FunctionDef) -> frozenset[str]:
    """The parameters whose literal value decides more than a truth test does (issue 43,
    item 9): compared with any operator, chained or not (``kind == "external"``, ``kind in
    ("a", "b")``, ``0 < level <= 2``), a ``match`` subject (``match kind:``), a pure method
    of theirs tested or matched (``match spec.split(":"):``, ``if spec.startswith("x"):``),
    or a key looked up (``self.lanes[kind]``, ``lanes.get(kind)``); nested functions
    included. Asked only for a function whose summary reads streams (:mod:`.interp.constants`)."""
    params = node.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node.body]
    while stack and names - found:
        item = stack.pop()
        kind = type(item)
        test: cst.CSTNode | None = None
        if kind in _TESTS:
            test = item.test  # type: ignore[attr-defined]
        elif kind is cst.Match:
            test = item.subject  # type: ignore[attr-defined]
        elif kind is cst.Subscript and len(item.slice) == 1:  # type: ignore[attr-defined]
            index = item.slice[0].slice  # type: ignore[attr-defined]
            test = index.value if type(index) is cst.Index else None
        elif kind is cst.Call and _called_method(item.func) == "get" and item.args:  # type: ignore[attr-defined]
            test = item.args[0].value  # type: ignore[attr-defined]
        while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
            test = test.expression  # type: ignore[attr-defined]
        operands = (test,)
        if type(test) is cst.Comparison:
            operands = (test.left, *(t.comparator for t in test.comparisons))  # type: ignore[attr-defined]
        for operand in operands:
            name = _decided_name(operand)
            if name in names:
                found.add(name)
        push_children(item, stack)
    return frozenset(found)


def _called_method(func: cst.BaseExpression) -> str | None:
    return func.attr.value if type(func) is cst.Attribute else None  # type: ignore[attr-defined]


def _decided_name(operand: cst.CSTNode | None) -> str | None:
    """``p``, ``p.value``, ``p.name`` or ``p.method(...)`` (chained: ``p.lower().strip()``):
    the parameter's name."""
    while type(operand) is cst.Call and type(operand.func) is cst.Attribute:  # type: ignore[attr-defined]
        operand = operand.func.value  # type: ignore[attr-defined]
    if type(operand) is cst.Attribute and operand.attr.value in ("value", "name"):  # type: ignore[attr-defined]
        operand = operand.value  # type: ignore[attr-defined]
    return operand.value if type(operand) is cst.Name else None  # type: ignore[attr-defined]


#: The keywords whose flag the hazard rules decide on: a copy's, a factory's or loader's.
_FLAG_KEYWORDS = frozenset({c.NON_BLOCKING, c.PIN_MEMORY})


#: The grad-mode objects whose first argument (or ``mode=``) is a flag: ``set_grad_enabled(p)``,
#: ``inference_mode(p)`` (issue 39: a helper given a literal decides the grad mode).
_GRAD_FLAGGED = frozenset({"set_grad_enabled", "inference_mode"})


def _grad_flag(call: cst.Call) -> cst.BaseExpression | None:
    """The flag of ``torch.set_grad_enabled(<flag>)`` / ``inference_mode(mode=<flag>)``."""
    func = call.func
    name = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", None)  # type: ignore[attr-defined]
    if name not in _GRAD_FLAGGED or not call.args:
        return None
    first = call.args[0]
    if first.keyword is None and first.star == "":
        return first.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "mode":
            return arg.value
    return None


def _flag_keyword(arg: cst.Arg | cst.DictElement) -> bool:
    """``non_blocking=<expression>``, ``pin_memory=<expression>``, or a dict's entry for one
    (``{"pin_memory": pin}``, spread with ``**``): what it reads is followed by :func:`_sources`."""
    if type(arg) is cst.DictElement:
        key = arg.key
        return type(key) is cst.SimpleString and key.raw_value in _FLAG_KEYWORDS
    keyword = arg.keyword
    return keyword is not None and keyword.value in _FLAG_KEYWORDS


def self_uses(function: cst.FunctionDef) -> SelfUses:
    """The attributes ``function`` reads and sets on its first parameter (``self``, or
    ``cls``), nested functions included (closures see it), and whether it calls
    ``super()``."""
    params = function.params
    ordered = (*params.posonly_params, *params.params)
    if not ordered:
        return SelfUses(frozenset(), frozenset(), frozenset())
    this = ordered[0].name.value
    reads: set[str] = set()
    writes: set[str] = set()
    stored: set[int] = set()  # ``self.x`` nodes only assigned to, never read
    super_reads: set[str] = set()
    makes_own = False
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is cst.Attribute:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is cst.Name and value.value == this and id(node) not in stored:
                reads.add(node.attr.value)  # type: ignore[attr-defined]
            elif type(value) is cst.Call and _is_name(value.func, "super"):
                super_reads.add(node.attr.value)  # type: ignore[attr-defined]
        elif kind is cst.AssignTarget or kind is cst.AnnAssign:
            _targets(node.target, this, writes, stored)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:  # ``self.x += y`` reads it too
            _targets(node.target, this, writes, set())  # type: ignore[attr-defined]
        elif kind is cst.Call:
            makes_own = makes_own or _names_own_class(node.func, this)  # type: ignore[attr-defined]
        elif kind is cst.ClassDef:
            continue
        push_children(node, pending)
    return SelfUses(frozenset(reads), frozenset(writes), frozenset(super_reads), makes_own)


def init_chains(node: cst.ClassDef) -> bool:
    """Whether the class's own ``__init__`` (if it has one) calls some ``__init__``
    (``super().__init__(...)``, ``Base.__init__(self)``): if not, the bases' ``__init__``
    never run for its instances. A class without its own ``__init__`` chains."""
    body = node.body.body if type(node.body) is cst.IndentedBlock else ()
    inits = [s for s in body if type(s) is cst.FunctionDef and s.name.value == "__init__"]
    if len(inits) != 1:
        return True
    stack: list[cst.CSTNode] = [inits[0].body]
    while stack:
        current = stack.pop()
        if type(current) is cst.Attribute and current.attr.value == "__init__":  # type: ignore[attr-defined]
            return True
        push_children(current, stack)
    return False


def _names_own_class(func: cst.BaseExpression, this: str) -> bool:
    """``cls``, ``type(self)`` or ``self.__class__`` as a callee."""
    if type(func) is cst.Name:
        return func.value == this
    if isinstance(func, cst.Attribute):
        return func.attr.value == "__class__" and _is_name(func.value, this)
    if isinstance(func, cst.Call) and _is_name(func.func, "type") and len(func.args) == 1:
        return _is_name(func.args[0].value, this)
    return False


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return type(node) is cst.Name and node.value == name  # type: ignore[attr-defined]


def _targets(target: cst.CSTNode, this: str, writes: set[str], stored: set[int]) -> None:
    if type(target) is cst.Attribute:
        if isinstance(target.value, cst.Name) and target.value.value == this:
            writes.add(target.attr.value)
            stored.add(id(target))
    elif type(target) in (cst.Tuple, cst.List):
        for element in target.elements:
            _targets(element.value, this, writes, stored)
    elif type(target) is cst.StarredElement:
        _targets(target.value, this, writes, stored)


__all__ = [
    "WALKS",
    "Bodies",
    "SelfUses",
    "bodies_for",
    "decided_params",
    "init_chains",
    "self_uses",
    "tested_params",
]
