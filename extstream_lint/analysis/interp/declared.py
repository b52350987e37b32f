"""Declared types give a value its class (issue 38, family 1, extended to annotations).

With no visible caller, ``def use(pool: Pool): pool.s.synchronize()`` knows of ``pool`` only
its declared type, as pyright does for a function body whose callers it does not see. The
value is then "an instance of ``Pool`` whose origin is unknown": only what the class
guarantees **every** instance (:mod:`.guarantees`, the class-level join) may produce a
finding, at the operation; anything else stays the caller's (a parameter remains symbolic,
so a visible caller's allocation still decides, and never at a second place). A guarantee
is an external stream on every path, made by the class's own code, for the class and each
subclass the module sees (its own classes, the classes it imports and those of the modules
it imports): a subclass that assigns the attribute otherwise, overrides the factory method
the attribute comes from, or defines it as a method, takes the guarantee away. A Protocol,
an ABC (or a class with an abstract method) guarantees nothing.

Where a type is declared:

* a parameter (``pool: Pool``, ``mod.Pool``, ``"Pool"``, ``Optional[Pool]``, ``Pool | None``:
  ``None`` narrows away on use), the elements of a container parameter (``list[Pool]``,
  ``Sequence[Pool]``, ``tuple[Pool, ...]``, ``dict[str, Pool]``: through iteration and
  indexing), a class parameter (``type[Pool]``: the class itself, when no subclass is seen);
* a variable annotation whose value is unknown (``p: Pool = factory()``);
* the return annotation of a function whose result is unknown (``def get() -> Pool``);
* a class-body or dataclass field with no default (``pool: Pool``), or ``self.pool = pool``
  of an ``__init__`` parameter annotated ``pool: Pool``, read as ``self.pool``;
* ``typing.cast(Pool, x)`` of an unknown ``x``.

What a declared value gives: the attributes the class guarantees, a property's getter
result, the guaranteed parts of an object or container the class builds (its streams on
every path; a mixed dict by literal key only), and a method called on it is the class's own
(unless a subclass seen overrides it), whose result counts only where it is external on
every path (:func:`declared_result`).

``ctypes.c_void_p`` declared the same way is a ``c_void_p`` object, which torch_npu's
``ExternalStream`` refuses (contract: XST001, ``TypeError: ... not c_void_p``).

Annotations are read once per node in a run (:meth:`.bodies.Bodies.annotation`: the syntax
of each kept, a string annotation parsed once, shared with :mod:`.narrowing`); the class a
name denotes is looked up in the module's scope when a value is needed. Limit: a subclass
in a module this one does not import is not seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Union

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.handles import CVoidP
from ..abstract.values import (
    UNKNOWN,
    ClassInfo,
    FunctionInfo,
    Instance,
    Module,
    Seq,
    Tensor,
    Value,
)
from ..source.syntax import dotted_name

INSTANCE, ELEMENT, MAPPING, CLASS = "instance", "element", "mapping", "class"

#: Containers whose elements (iteration and indexing) are the one type argument.
_SEQUENCES = frozenset(
    {
        "list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
        "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet", "deque", "Deque",
        "Reversible", "Container",
    }
)  # fmt: skip
#: Mappings: their values (indexing, ``get``) are the last type argument.
_MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict"}
)
#: Bases (by qualified name) that make a class a declaration only.
_ABSTRACT = frozenset(
    {"typing.Protocol", "typing_extensions.Protocol", "abc.ABC", "typing.Generic"}
)
_C_VOID_P = "ctypes.c_void_p"
#: Builtin classes a parameter may be declared as, and a literal of each (dispatch).
_BUILTIN_SAMPLES: dict[str, object] = {"int": 0, "float": 0.0, "str": "", "bytes": b""}


@dataclass(frozen=True)
class Shape:
    """An annotation's syntax: the dotted name it declares, and how (an instance, the
    elements of a sequence, the values of a mapping, the class)."""

    name: str
    kind: str


def parsed_string(node: cst.CSTNode) -> cst.BaseExpression | None:
    """A string annotation's expression, or ``None`` where it is not one."""
    text = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    if not isinstance(text, str) or len(text) > 1000:  # a chain of thousands of 'and'
        return None  # would crash libcst's parser (issue 43); no annotation is that long
    try:
        return cst.parse_expression(text)
    except Exception:
        return None


Parse = Callable[[cst.CSTNode], Union[cst.BaseExpression, None]]


def annotation_shape(
    node: cst.CSTNode, depth: int = 0, parse: Parse = parsed_string
) -> Shape | None:
    """What ``node`` (an annotation expression) declares, by syntax alone (``parse``: how a
    string annotation is read)."""
    if depth > 8:
        return None
    if isinstance(node, cst.Annotation):
        node = node.annotation
    if isinstance(node, (cst.Name, cst.Attribute)):
        name = dotted_name(node)
        return Shape(name, INSTANCE) if name and name != "None" else None
    if isinstance(node, cst.SimpleString):
        parsed = parse(node)
        return None if parsed is None else annotation_shape(parsed, depth + 1, parse)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _none_or(node.left, node.right, depth, parse)
    if not isinstance(node, cst.Subscript):
        return None
    outer = (dotted_name(node.value) or "").rsplit(".", 1)[-1]
    args = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
    if len(args) != len(node.slice) or not args:
        return None
    if outer == "Optional" and len(args) == 1:
        return annotation_shape(args[0], depth + 1, parse)
    if outer == "Union" and len(args) == 2:
        return _none_or(args[0], args[1], depth, parse)
    if outer == "Annotated":
        return annotation_shape(args[0], depth + 1, parse)
    inner = annotation_shape(args[-1] if outer in _MAPPINGS else args[0], depth + 1, parse)
    if inner is None or inner.kind != INSTANCE:
        return None
    if outer in ("type", "Type") and len(args) == 1:
        return Shape(inner.name, CLASS)
    if outer in _SEQUENCES and len(args) == 1:
        return Shape(inner.name, ELEMENT)
    if outer in ("tuple", "Tuple") and len(args) == 2 and isinstance(args[1], cst.Ellipsis):
        return Shape(inner.name, ELEMENT)
    if outer in _MAPPINGS and len(args) == 2:
        return Shape(inner.name, MAPPING)
    return None


def _none_or(a: cst.CSTNode, b: cst.CSTNode, depth: int, parse: Parse) -> Shape | None:
    for x, y in ((a, b), (b, a)):
        if isinstance(y, cst.Name) and y.value == "None":
            return annotation_shape(x, depth + 1, parse)
    return None


class Declared:
    """Values known by their declared type: the class's guarantee, nothing else."""

    def declared_shape(self, node: cst.CSTNode | None) -> Shape | None:
        """The shape of an annotation node, read once per node."""
        if node is None:
            return None
        bodies = self._bodies  # type: ignore[attr-defined]

        def parse(string: cst.CSTNode) -> cst.BaseExpression | None:
            return bodies.annotation("parsed", string, parsed_string)  # type: ignore[no-any-return]

        return bodies.annotation("shape", node, lambda n: annotation_shape(n, 0, parse))  # type: ignore[no-any-return]

    def declared_param(self, annotation: cst.Annotation, info: FunctionInfo, index: int) -> Value:
        """A parameter's value from its annotation: a ``c_void_p`` object, a class (of
        ``type[Pool]``); ``None`` (symbolic, as unannotated) for the other shapes, whose
        attribute reads consult the class (:meth:`declared_attr`)."""
        shape = self.declared_shape(annotation)
        refs: dict[ParamRef, Shape] = self.__dict__.setdefault("_declared_refs", {})
        ref = ParamRef(info, index)
        if shape is None:
            refs.pop(ref, None)
            return None
        if shape.kind == INSTANCE and self._resolve_static(shape.name) == _C_VOID_P:  # type: ignore[attr-defined]
            return CVoidP()
        if shape.kind == CLASS:
            return self._declared_class_value(shape)
        refs[ref] = shape
        return None

    def declared_or(self, value: Value, node: cst.CSTNode) -> Value:
        """``value`` given the declared type ``node``: a caller's value (symbolic) stays
        the caller's, its attributes read through the class (:meth:`declared_attr`); an
        unknown one is what the type declares; a known one is kept."""
        if isinstance(value, ExtStream) and value.param is not None and not value.also:
            shape = self.declared_shape(node)
            if shape is not None and shape.kind != CLASS:
                self.__dict__.setdefault("_declared_refs", {})[value.param] = shape
            return value
        return self.declared_value(node) if unknown(value) else value

    def declared_value(self, node: cst.CSTNode | None) -> Value:
        """What a declared type alone says a value is (``p: Pool = factory()``)."""
        shape = self.declared_shape(node)
        if shape is None:
            return None
        if shape.kind == INSTANCE and self._resolve_static(shape.name) == _C_VOID_P:  # type: ignore[attr-defined]
            return CVoidP()
        if shape.kind == CLASS:
            return self._declared_class_value(shape)
        cls = self._declared_class(shape.name)
        if cls is None:
            return None
        made = Instance(cls, declared=True)
        if shape.kind == ELEMENT:
            return Seq((made,))
        if shape.kind == MAPPING:
            return Seq((made,), is_dict=True)
        return made

    def declared_return(self, node: cst.FunctionDef, info: FunctionInfo) -> None:
        """``def get() -> Pool``: the result where what the body returns is unknown."""
        if self.learning and node.returns is not None:  # type: ignore[attr-defined]
            info.declared = self.declared_value(node.returns)
            self.__dict__.get("_declared_devices", {}).pop(info, None)  # this pass's returns

    def declared_device(self, info: FunctionInfo, value: Value) -> None:
        """``def link(self, rank) -> ExternalStream: return self.links[rank]``: the declared
        stream is on the device every ``return`` gives (one its parameter names stays
        symbolic, for the caller to name: :func:`..semantics.devices.escaped`); returns on
        different devices, or on one not visible, leave it not visible."""
        declared = info.returns
        if type(declared) is not ExtStream or declared.param is not None:
            return
        seen: dict[FunctionInfo, object] = self.__dict__.setdefault("_declared_devices", {})
        device = value.device if type(value) is ExtStream and value.param is None else None
        if seen.get(info, device) != device:
            device = None
        seen[info] = device
        if declared.device != device:
            info.returns = replace(declared, device=device)  # type: ignore[arg-type]

    def declared_cast(self, node: cst.Call, value: Value) -> Value:
        """``typing.cast(Pool, x)``: ``x`` where it is known, else the declared type."""
        return self.declared_or(value, node.args[0].value) if node.args else value

    def declared_attr(self, base: Value, name: str) -> Value:
        """``base.name`` when ``base`` is known by a declared type: what its class
        guarantees every instance; ``None`` when it does not (or nothing is declared)."""
        if isinstance(base, Instance):
            if not base.declared:
                return None
            found, held = base.field(name)  # a guaranteed part of what the class built
            return held if found else self.guaranteed_attr(base.cls, name)
        cls = self._class_declared_for(base)
        return None if cls is None else self.guaranteed_attr(cls, name)

    def _class_declared_for(self, base: Value) -> ClassInfo | None:
        """The class a parameter's path is declared as, the whole value (not an element of
        a declared container, not joined with anything else); ``None`` otherwise."""
        if not isinstance(base, ExtStream) or base.param is None or base.also:
            return None
        found = self._declared_at(base.param)
        if found is None or not _whole(*found):
            return None
        return self._declared_class(found[0].name)

    def declared_receiver(self, base: Value, method: str) -> Instance | None:
        """``pool.flush()`` on a value known by its declared type: the receiver as an
        instance of the class (symbolic still: what the caller's object holds stays the
        caller's), when the class defines the method and no subclass seen overrides it."""
        cls = self._class_declared_for(base)
        function = cls.method(method) if cls is not None and not _abstract(cls) else None
        if function is None or function.is_property:
            return None
        for sub in self._subclasses(cls):  # type: ignore[arg-type]
            order = sub.mro()
            if any(method in k.methods for k in order[: order.index(cls)]):  # type: ignore[arg-type]
                return None
        return Instance(cls, (), base.param, declared=True)  # type: ignore[arg-type]

    def declared_descriptor(self, base: Value, name: str) -> Instance | None:
        """``dec.lane`` on a parameter declared as ``Decoder`` whose class attribute
        ``lane`` is a descriptor (a class ``__get__``): the receiver as an instance of the
        class (symbolic still), so that the read calls ``__get__`` as Python does
        (data model 3.3.2.2), unless a subclass seen defines ``lane`` otherwise."""
        cls = self._class_declared_for(base)
        if cls is None or _abstract(cls):
            return None
        descriptor = cls.attr(name)
        if not isinstance(descriptor, Instance) or descriptor.cls.method("__get__") is None:
            return None
        for sub in self._subclasses(cls):
            order = sub.mro()
            if any(name in k.attrs or name in k.methods for k in order[: order.index(cls)]):
                return None
        return Instance(cls, (), base.param, declared=True)  # type: ignore[union-attr]

    def guaranteed_attr(self, cls: ClassInfo, name: str) -> Value:
        """``cls``'s attribute ``name`` if every instance, of it and of each subclass seen,
        holds an external stream the class's own code made (or a ``c_void_p`` object), or
        a property whose getter returns one; else ``None``. An object or container the
        class builds (``self.streams = Streams(compute=ExternalStream(h), ...)``) is kept
        with only its guaranteed parts (:func:`_guaranteed_part`)."""
        if _abstract(cls):
            return None
        getter = cls.method(name)
        prop = getter is not None and getter.is_property and not cls.has_attr(name)
        if prop:  # the getter's result, as reading the attribute calls it
            value = getter.returns  # type: ignore[union-attr]
            if unknown(value):
                value = getter.declared  # type: ignore[union-attr]
        else:
            value = cls.attr(name)
        built = None if _made_by_class(value) else _guaranteed_part(value)
        if built is None and not _made_by_class(value):
            return None
        factories = {
            made[0]
            for klass in cls.mro()
            for method in klass.methods.values()
            for attr, made in method.summary.overridable.items()
            if attr == name
        }
        for sub in self._subclasses(cls):
            order = sub.mro()
            between = order[: order.index(cls)]  # the subclass and its bases below cls
            if any(name in k.methods or factories & k.methods.keys() for k in between):
                return None  # a method of that name, or an override of its factory
            if prop and any(name in k.attrs for k in between):
                return None  # an attribute over the property
            held = sub.attr(name)
            if not prop and not (_made_by_class(held) if built is None else held == value):
                return None  # assigned otherwise, or an __init__ that skips cls's
        return value if built is None else built

    def declared_kind(self, value: Value) -> Value:
        """What a parameter's declared type says its value is an instance of, to dispatch
        on (``singledispatch``): a literal of a builtin class (``address: int``: an int),
        or an instance of a project class; ``None`` when nothing is declared."""
        ref = value.param if isinstance(value, ExtStream) and not value.also else None
        found = self._declared_at(ref) if ref is not None else None
        if found is None or found[1] or found[0].kind != INSTANCE:
            return None
        name = found[0].name
        cls = self._declared_class(name)
        if cls is None:
            sample = _BUILTIN_SAMPLES.get(name)
            return None if sample is None else Const(sample)
        return None if _abstract(cls) else Instance(cls, declared=True)

    def _declared_at(self, ref: ParamRef) -> tuple[Shape, tuple[str, ...]] | None:
        """The declared shape a parameter path starts with, and the steps after it: a
        parameter's annotation, or (``self.pool``) a field the method's class declares."""
        refs: dict[ParamRef, Shape] = self.__dict__.get("_declared_refs", {})
        if refs:
            for cut in range(len(ref.path) + 1):
                shape = refs.get(ParamRef(ref.owner, ref.index, ref.path[:cut]))
                if shape is not None:
                    return shape, ref.path[cut:]
        if ref.index != 0 or not ref.path or not isinstance(ref.owner, FunctionInfo):
            return None
        classes: dict[int, ClassInfo] = self.__dict__.get("_method_classes", {})
        cls = classes.get(id(ref.owner))
        if cls is None or ref.owner.decorators & {"staticmethod", "classmethod"}:
            return None
        fields: dict[int, dict[str, cst.Annotation]] = self.__dict__.setdefault(
            "_declared_fields", {}
        )
        for klass in cls.mro():
            node = self._class_nodes.get(id(klass))  # type: ignore[attr-defined]
            if node is None:
                continue
            if id(node) not in fields:
                fields[id(node)] = _field_annotations(node)
            annotation = fields[id(node)].get(ref.path[0])
            if annotation is not None:
                shape = self.declared_shape(annotation)
                return None if shape is None else (shape, ref.path[1:])
        return None

    def _declared_class(self, name: str) -> ClassInfo | None:
        """The project class a dotted name denotes in this module's scope."""
        head, *rest = name.split(".")
        scope = self._scopes.get(self.module)  # type: ignore[attr-defined]
        value = scope.summary.get(head) if scope is not None else None
        for part in rest:
            value = self._attribute_of(value, part, None) if isinstance(value, Module) else None  # type: ignore[attr-defined]
        return value if isinstance(value, ClassInfo) else None

    def _declared_class_value(self, shape: Shape) -> Value:
        """``type[Pool]``: the class itself, when no subclass of it is seen."""
        cls = self._declared_class(shape.name)
        if cls is None or _abstract(cls) or self._subclasses(cls):
            return None
        return cls

    def _subclasses(self, cls: ClassInfo) -> list[ClassInfo]:
        """The classes derived from ``cls`` that this module sees (its own, those it
        imports, those of the modules it imports), kept per learning pass."""
        passes = self._passes  # type: ignore[attr-defined]
        kept = self.__dict__.get("_seen_classes")
        if kept is None or kept[0] != passes:
            seen: dict[int, ClassInfo] = {id(k): k for k in self._classes.values()}  # type: ignore[attr-defined]
            scope = self._scopes.get(self.module)  # type: ignore[attr-defined]
            for value in scope.summary.values() if scope is not None else ():
                if isinstance(value, ClassInfo):
                    seen.setdefault(id(value), value)
                elif isinstance(value, Module):
                    module = self._project_module(value.name) or value  # type: ignore[attr-defined]
                    for export in module.exports.values():
                        if isinstance(export, ClassInfo):
                            seen.setdefault(id(export), export)
            kept = self.__dict__["_seen_classes"] = (passes, list(seen.values()))
        return [k for k in kept[1] if k is not cls and cls in k.mro()]


def _whole(shape: Shape, rest: tuple[str, ...]) -> bool:
    """The path after a declared shape is one instance of its class: nothing more for an
    instance, one element step for a container."""
    if shape.kind == INSTANCE:
        return not rest
    return len(rest) == 1 and rest[0].startswith("[")


def declared_result(value: Value, receiver: Value) -> Value:
    """What a method called on a value known by its declared type returns: a stream that
    is external only on some paths of the class's state is no guarantee (the caller's
    object may be another), so it is unknown."""
    if isinstance(receiver, Instance) and receiver.declared and isinstance(value, ExtStream):
        return value if value.must or value.param is not None else None
    return value


def unknown(value: Value) -> bool:
    """Nothing is known of the value: no value, or what an unknown call computed."""
    return value is None or (
        isinstance(value, Tensor) and value.place == UNKNOWN and value.index is None
    )


def _guaranteed_part(value: Value, depth: int = 0) -> Value:
    """Of an object or container the class built, the parts every instance holds: its
    external streams on every path, and objects and containers of them, a few levels
    down; ``None`` when nothing is. What is kept is read as a declared value is."""
    if depth > 3:
        return None
    if _made_by_class(value):
        return value
    if isinstance(value, Instance) and value.param is None:
        kept = [(k, _guaranteed_part(v, depth + 1)) for k, v in value.fields]
        fields = tuple((k, v) for k, v in kept if v is not None)
        return Instance(value.cls, fields, declared=True) if fields else None
    if isinstance(value, Seq) and (value.items or value.keys):
        # A value read by a literal key is that key's; any other element only when every
        # element is guaranteed (``lanes[kind]`` of a mixed dict is no guarantee).
        items = tuple(_guaranteed_part(v, depth + 1) for v in value.items)
        keys = tuple((k, _guaranteed_part(v, depth + 1)) for k, v in value.keys)
        if any(v is None for v in items):
            items = ()
        if not items and all(v is None for _, v in keys):
            return None
        return Seq(items, keys, value.is_dict, value.key)
    return None


def _made_by_class(value: Value) -> bool:
    return isinstance(value, CVoidP) or (
        isinstance(value, ExtStream)
        and value.must
        and value.param is None
        and value.current_of is None
    )


def _abstract(cls: ClassInfo) -> bool:
    """A Protocol, an ABC, or a class with an abstract method: a declaration only."""
    for klass in cls.mro():
        if any(base in _ABSTRACT for base in klass.library):
            return True
        if any("abstractmethod" in m.decorators for m in klass.methods.values()):
            return True
    return False


def _field_annotations(node: cst.ClassDef) -> dict[str, cst.Annotation]:
    """The fields a class declares: ``name: T`` with no value in its body, and in its
    ``__init__`` ``self.name = p`` of a parameter annotated ``p: T`` (pyright's declared
    type of the attribute) or ``self.name: T = ...``."""
    found: dict[str, cst.Annotation] = {}
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for small in _small_statements(body):
        if isinstance(small, cst.AnnAssign) and small.value is None:
            target = small.target
            found.update({target.value: small.annotation} if isinstance(target, cst.Name) else {})
    init = next(
        (s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None
    )
    params = [*init.params.posonly_params, *init.params.params] if init is not None else []
    if not params or not isinstance(init.body, cst.IndentedBlock):  # type: ignore[union-attr]
        return found
    own = params[0].name.value
    declared = {p.name.value: p.annotation for p in params[1:] if p.annotation is not None}
    declared.update(
        (p.name.value, p.annotation)
        for p in init.params.kwonly_params
        if p.annotation  # type: ignore[union-attr]
    )
    for small in _small_statements(init.body.body):  # type: ignore[union-attr]
        target, annotation = None, None
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            value = small.value
            annotation = declared.get(value.value) if isinstance(value, cst.Name) else None
        elif isinstance(small, cst.AnnAssign):
            target, annotation = small.target, small.annotation
        if (
            annotation is not None
            and isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == own
        ):
            found.setdefault(target.attr.value, annotation)
    return found


def _small_statements(body: Sequence[cst.BaseStatement]) -> list[cst.BaseSmallStatement]:
    return [
        small for stmt in body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body
    ]


__all__ = ["Declared", "Shape", "annotation_shape", "declared_result", "parsed_string", "unknown"]
