"""Where a tensor or a stream lives, and whether two devices are the same (XST112).

A copy between two NPUs records and waits events on *both* devices' current streams
(hazards.md, side finding of hazard 1), and the current stream is kept per thread *and per
device* (contract section 5): ``torch.npu.stream(link)`` with ``link`` on npu:1 makes npu:1's
current stream external, not npu:0's. So the hazard rules need, for tensors and streams, an
NPU index that can be compared.

An index is an ``int`` (``"npu:1"``, ``torch.device("npu", 1)``, ``t.npu(1)``, ``device=1``:
in torch 2.13 an int is the accelerator), a :class:`Sym` (an expression the analysis cannot
evaluate but can compare with itself: ``device`` and ``device + 1`` differ, ``devs[i]`` is
``devs[i]``, ``devs[i]`` and ``devs[j]`` may be the same), or ``None`` (not visible: the
current device, an unknown value). :func:`compare` answers same / different / unknown, and
unknown never yields a finding that needs "different" (precision first).

A symbolic index is named by the source text of its base expression, so it only compares
within what one reading of the code can see: a name rebound between two uses (``d = d + 1``)
is not tracked (the comparison may then answer "same" where the values differ, which is
silent, or, rarely, "different" where a rebinding made them equal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import libcst as cst

from ... import contract as c
from ..abstract.atoms import Const, ExtStream
from ..abstract.paths import contents, item, param_keyed
from ..abstract.tensors import device_of
from ..abstract.values import HOST, NPU, Instance, Tensor, Value
from .sites import Arg, CallSite

__all__ = [
    "DIFFERENT",
    "ENTRY",
    "FOREIGN",
    "KEYED",
    "MODULE_DEVICE",
    "SAME",
    "UNSURE",
    "Sym",
    "called",
    "compare",
    "device",
    "device_value",
    "escaped",
    "in_caller",
    "keyed_by",
    "literal",
    "offset_of",
    "picked",
    "rekeyed",
    "stream_device",
    "tensor_device",
    "visible",
]

#: :func:`compare`'s answers.
SAME, DIFFERENT, UNSURE = "same", "different", "unsure"
#: A place that is neither the host nor an NPU (``"cuda"`` without ``transfer_to_npu``,
#: ``"meta"``): copies there are none of torch_npu's business.
FOREIGN = "foreign"
#: What ``"cuda"`` means once ``transfer_to_npu`` is imported (hazards.md: the ``cuda``
#: spelling of the NPU).
CUDA = "cuda"

_DEVICE = re.compile(r"^(?P<type>[a-z_]+)(?::(?P<index>\d+))?$")
_KNOWN_TYPES = frozenset({c.HOST_DEVICE, *c.NPU_DEVICES, CUDA, "meta", "mps", "xpu", "xla"})


@dataclass(frozen=True)
class Sym:
    """An NPU index known as ``base + offset``: ``base`` is the source text of an expression
    the analysis cannot evaluate (``device``, ``self.devices[i]``)."""

    base: str
    offset: int = 0

    def __str__(self) -> str:
        if not self.offset:
            return self.base
        sign = "+" if self.offset > 0 else "-"
        return f"{self.base} {sign} {abs(self.offset)}"


Index = int | Sym | None

#: The NPU that was current when a function was called: a stream the function makes without
#: ``device=`` (and without a ``set_device`` of its own) is on it, and a call puts it on the
#: caller's current NPU (:meth:`..interp.gradmode.GradModes.on_caller_device`). Compared with
#: nothing, not even itself: two calls may run on different devices.
ENTRY = Sym("<the NPU current at the call>")


#: The field a ``torch.nn.Module``'s ``.to(device)`` / ``.npu(k)`` sets on it: the device
#: its parameters, and what it computes, are on (``Const(("npu", index))``). An identifier
#: Python code would not spell, so no user attribute clashes with it.
MODULE_DEVICE = "_xst_module_device_"
#: The base of the index of an entry a comprehension keyed by its target made
#: (``{r: ExternalStream(h, device=f"npu:{r}") for r in ...}``, ``[m.to(f"npu:{r}") for r in
#: range(n)]``): the key it is stored under, put in by a subscript (:func:`rekeyed`).
#: Compared with nothing, not even itself, until then.
KEYED = "<the key it is stored under>"


def compare(a: object, b: object) -> str:
    """Two NPU indices: :data:`SAME`, :data:`DIFFERENT` or :data:`UNSURE`."""
    if a is None or b is None or a == ENTRY or b == ENTRY:
        return UNSURE
    if (isinstance(a, Sym) and a.base == KEYED) or (isinstance(b, Sym) and b.base == KEYED):
        return UNSURE
    if isinstance(a, int) and isinstance(b, int):
        return SAME if a == b else DIFFERENT
    if isinstance(a, Sym) and isinstance(b, Sym) and a.base == b.base:
        return SAME if a.offset == b.offset else DIFFERENT
    return UNSURE


def show(index: object) -> str:
    """How a message names an NPU: ``npu:1``, ``npu:(device + 1)``."""
    return f"npu:{index}" if isinstance(index, int) else f"npu:({index})"


# --- reading device arguments --------------------------------------------------------------


def literal(site: CallSite, arg: Arg | None) -> tuple[Value, cst.BaseExpression | None]:
    """The argument's value, with a string literal's text (the interpreter keeps only that a
    string is a string, and a device is named by its text), and its expression."""
    if arg is None:
        return None, None
    for node in site.node.args:
        keyword = node.keyword
        if keyword is not None and site.keywords.get(keyword.value) is arg:
            return _text(node.value, arg.value), node.value
    positional = [node for node in site.node.args if node.keyword is None and not node.star]
    for node, known in zip(positional[site.skipped :], site.positional):
        if known is arg:
            return _text(node.value, arg.value), node.value
    return arg.value, None


def _text(node: cst.BaseExpression, fallback: Value) -> Value:
    if not isinstance(node, cst.SimpleString):
        return fallback
    text = node.evaluated_value
    return Const(text) if isinstance(text, str) else fallback


def device(
    value: Value, node: cst.BaseExpression | None = None, cuda_is_npu: bool = False
) -> tuple[str, Index] | None:
    """(place, NPU index) of a device argument, or None when it is not a visible device.

    ``node`` is the argument as written: arithmetic on an expression the analysis cannot
    evaluate (``device + 1``) is an int, so a symbolic index of the NPU, and so is the index
    of ``f"npu:{device}"``; a bare unknown name (``t.to(device)``) could be any device, even
    the host, so it is not visible here (:func:`npu_index` reads it where only an NPU can
    be meant)."""
    if isinstance(value, Tensor) and value.place:  # ``t.to(other)``: the other's device
        return value.place, value.index
    if isinstance(node, cst.FormattedString):
        return _formatted(node, cuda_is_npu)
    if isinstance(value, Const):
        return _constant(value.value, cuda_is_npu)
    if node is not None:
        sym = symbol(node)
        if sym is not None and sym.offset:  # arithmetic: an int, the accelerator's index
            return NPU, sym
    return None


def _constant(raw: object, cuda_is_npu: bool) -> tuple[str, Index] | None:
    if isinstance(raw, tuple) and len(raw) == 2:  # ``torch.device("npu", d)`` (below)
        kind, index = raw
        return _typed(str(kind), index, cuda_is_npu)
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):  # ``t.npu(1)``, ``torch.device(1)``: an index of the NPU
        return (NPU, raw) if raw >= 0 else None
    if not isinstance(raw, str):
        return None
    match = _DEVICE.match(raw.strip())
    if match is None:
        return None
    index = int(match.group("index")) if match.group("index") is not None else None
    return _typed(match.group("type"), index, cuda_is_npu)


def _typed(kind: str, index: Index, cuda_is_npu: bool) -> tuple[str, Index] | None:
    if kind == c.HOST_DEVICE:
        return HOST, None
    if kind in c.NPU_DEVICES or (kind == CUDA and cuda_is_npu):
        return NPU, index
    if kind in _KNOWN_TYPES:
        return FOREIGN, None
    return None


def symbol(node: cst.BaseExpression) -> Sym | None:
    """``name``, ``a.b``, ``a[i]`` (and chains of them) plus or minus an integer literal."""
    split = offset_of(node)
    if split is None or not _chain(split[0]):
        return None
    return Sym(cst.Module([]).code_for_node(split[0]), split[1])


def offset_of(node: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
    """``x + k`` or ``x - k``, ``k`` an integer literal: ``(x, k)`` or ``(x, -k)``; any other
    binary operation: ``None``; anything else: ``(node, 0)``."""
    if type(node) is not cst.BinaryOperation:
        return node, 0
    right, operator = node.right, type(node.operator)
    if type(right) is not cst.Integer or operator not in (cst.Add, cst.Subtract):
        return None
    offset = int(right.evaluated_value)
    return node.left, offset if operator is cst.Add else -offset


def _chain(node: cst.BaseExpression) -> bool:
    while True:
        if isinstance(node, cst.Name):
            return True
        if isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if not isinstance(index, cst.Index) or not isinstance(
                index.value, (cst.Name, cst.Integer)
            ):
                return False
            node = node.value
        else:
            return False


def _formatted(node: cst.BaseExpression, cuda_is_npu: bool) -> tuple[str, Index] | None:
    """``f"npu:{d}"``: the device type as written, the index as a symbol."""
    if not isinstance(node, cst.FormattedString) or len(node.parts) != 2:
        return None
    text, expression = node.parts
    if not isinstance(text, cst.FormattedStringText) or not text.value.endswith(":"):
        return None
    if not isinstance(expression, cst.FormattedStringExpression) or expression.format_spec:
        return None
    sym = symbol(expression.expression)
    return None if sym is None else _typed(text.value[:-1], sym, cuda_is_npu)


def npu_index(value: Value, node: cst.BaseExpression | None, cuda_is_npu: bool) -> Index:
    """The NPU index of an argument that can only be an NPU (``t.npu(d)``, ``device=`` of a
    stream): a literal, a device, or any readable expression as a symbol."""
    found = device(value, node, cuda_is_npu)
    if found is not None:
        return found[1] if found[0] == NPU else None
    if node is not None and not isinstance(value, Const):
        return symbol(node)
    return None


def device_value(site: CallSite) -> Value:
    """``torch.device("npu", 1)`` / ``torch.device("npu:1")`` as the device it stands for:
    the string ``"npu:1"``, or ``("npu", Sym)`` when the index is an expression."""
    first, _ = literal(site, site.arg(0, "type"))
    if not isinstance(first, Const) or not isinstance(first.value, str) or not first.value:
        if isinstance(first, Const) and isinstance(first.value, int):
            return first  # torch.device(1): the accelerator's device 1
        return None
    arg = site.arg(1, "index")
    if arg is None:
        return first
    value, node = literal(site, arg)
    if isinstance(value, Const) and isinstance(value.value, int):
        return Const(f"{first.value}:{value.value}")
    sym = symbol(node) if node is not None and not isinstance(value, Const) else None
    return Const((first.value, sym)) if sym is not None else None


def tensor_device(tensor: Tensor) -> Value:
    """``t.device``, as :func:`device` reads it: ``("npu", index)``, ``"cpu"``, or None."""
    placed = device_of(tensor)
    return None if placed is None else Const(placed)


def stream_device(site: CallSite, position: int, cuda_is_npu: bool) -> frozenset[Index] | None:
    """The device a stream constructor puts its stream on (``ExternalStream(p, device=1)``,
    ``Stream(device=d, stream_ptr=p)``): a one-element set, or None (the current device,
    which the analysis does not follow)."""
    arg = site.arg(position, "device")
    if arg is None:
        return None
    value, node = literal(site, arg)
    index = npu_index(value, node, cuda_is_npu)
    return None if index is None else frozenset({index})


def escaped(value: Value, params: tuple[tuple[str, str], ...] = ()) -> Value:
    """A value returned to a caller, before it is put in the caller's terms: a symbolic index
    ``parameter + k`` (``links[rank]``, ``f"npu:{k + 1}"``) becomes the parameter's position
    (:func:`called` names it by what the call passed there); any other names the callee's
    expressions (``device`` there is not ``device`` here), so it becomes "not visible";
    :data:`ENTRY` stays, for the caller to name (:func:`entered`), and so does :data:`KEYED`
    (an entry's key, which the caller's subscript names). ``params``: the callee's
    ``(name, kind)`` pairs."""
    if isinstance(value, Tensor) and isinstance(value.index, Sym) and value.index.base != KEYED:
        index = _positional(value.index, params) if value.index != ENTRY else None
        return replace(value, index=index)
    if (
        isinstance(value, ExtStream)
        and value.device
        and any(_named_sym(index) for index in value.device)
    ):
        moved = frozenset(_positional(index, params) for index in value.device)
        return replace(value, device=None if None in moved else moved)
    return value


#: The base of a symbolic index a callee's parameter names, by its position: ``<arg 1>``.
_ARG = "<arg "


def _positional(index: object, params: tuple[tuple[str, str], ...]) -> object:
    if not _named_sym(index):
        return index
    for position, (name, _) in enumerate(params):
        if name == index.base:  # type: ignore[attr-defined]
            return Sym(f"{_ARG}{position}>", index.offset)  # type: ignore[attr-defined]
    return None


def called(value: Value, args: dict[int, Arg]) -> Value:
    """A returned value whose index :func:`escaped` named by a parameter's position, on the
    index the call passed there: a literal (``link(1)``: npu:1), a device, or an expression
    of the caller's (``link(k + 1)``: ``k + 1``); anything else is not visible."""

    def one(index: object) -> object:
        if not (isinstance(index, Sym) and index.base.startswith(_ARG)):
            return index
        arg = args.get(int(index.base[len(_ARG) : -1]))
        given = npu_index(arg.value, arg.node, False) if arg is not None else None
        if isinstance(given, int) and not isinstance(given, bool):
            return given + index.offset
        if isinstance(given, Sym) and given != ENTRY and given.base != KEYED:
            return Sym(given.base, given.offset + index.offset)
        return None

    if isinstance(value, Tensor) and isinstance(value.index, Sym):
        return replace(value, index=one(value.index))
    if isinstance(value, ExtStream) and value.device:
        moved = frozenset(one(index) for index in value.device)
        return replace(value, device=None if None in moved else moved)
    return value


def _named_sym(index: object) -> bool:
    """A symbolic index naming an expression of the function it was made in."""
    return isinstance(index, Sym) and index != ENTRY and index.base != KEYED


_NAMED = re.compile(r"^[A-Za-z_][\w.]*$")


def in_caller(stream: ExtStream, params: object, args: dict[int, Arg]) -> ExtStream:
    """A stream a call made on the device one of its parameters gave
    (``ExternalStream(h, device=device)`` in ``__init__``), in the caller's terms: on the
    device the caller passed there (a literal, a default, or the caller's own name), else
    not visible. ``params``: the callee's ``(name, kind)`` pairs; ``args``: by index."""
    names = {name: i for i, (name, _) in enumerate(params)}  # type: ignore[attr-defined]
    found: set[object] = set()
    changed = False
    for index in stream.device or ():
        if not (isinstance(index, Sym) and index.base in names):
            found.add(index)
            continue
        changed = True
        arg = args.get(names[index.base])
        value = arg.value if arg is not None else None
        given = npu_index(value, None, False) if isinstance(value, Const) else None
        if isinstance(given, int):
            found.add(given + index.offset)
        elif arg is not None and not isinstance(value, Const) and _NAMED.match(arg.text or ""):
            found.add(Sym(arg.text, index.offset))  # type: ignore[arg-type]
        elif arg is not None and arg.node is not None and not isinstance(value, Const):
            sym = npu_index(value, arg.node, False)  # Link(h, k + 1), Link(h, f"npu:{k}")
            if not isinstance(sym, Sym) or sym == ENTRY:
                return replace(stream, device=None)
            found.add(Sym(sym.base, sym.offset + index.offset))
        else:
            return replace(stream, device=None)
    return replace(stream, device=frozenset(found)) if changed else stream


def entered(value: Value, device: Index) -> Value:
    """A stream a call returned, made on the NPU current at the call (:data:`ENTRY`), on the
    caller's current NPU ``device`` (None: not visible)."""
    if isinstance(value, ExtStream) and value.device and ENTRY in value.device:
        if device is None:
            return replace(value, device=None)
        return replace(value, device=(value.device - {ENTRY}) | {device})
    return value


def visible(devices: frozenset[object] | None) -> frozenset[object] | None:
    """The devices a stream may be on, or None when one of them is not visible."""
    return None if devices is None or ENTRY in devices else devices


# --- entries keyed by their device -----------------------------------------------------------


def _rebased(value: Value, base: str, to: object) -> Value:
    """``value`` with each index ``Sym(base, k)`` made ``to + k`` (``to``: an int, a
    :class:`Sym`, a base name as a str, or None: not visible)."""

    def one(index: object) -> object:
        if not (isinstance(index, Sym) and index.base == base):
            return index
        if isinstance(to, int):
            return to + index.offset
        if isinstance(to, Sym):
            return Sym(to.base, to.offset + index.offset)
        if isinstance(to, str):
            return Sym(to, index.offset)
        return None

    if isinstance(value, Tensor) and isinstance(value.index, Sym):
        return replace(value, index=one(value.index))
    if isinstance(value, Instance):  # a module moved with .to(f"npu:{r}")
        moved = _rebased(value.field(MODULE_DEVICE)[1], base, to)
        return value.with_field(MODULE_DEVICE, moved) if value.field(MODULE_DEVICE)[0] else value
    if isinstance(value, ExtStream) and value.device:
        moved = frozenset(one(i) for i in value.device)
        return replace(value, device=None if None in moved else moved)
    if isinstance(value, Const) and isinstance(value.value, Sym):  # a module's device
        moved = one(value.value)
        return Const(moved) if moved is not None else None
    if isinstance(value, Const) and isinstance(value.value, tuple) and len(value.value) == 2:
        kind, index = value.value  # torch.device("npu", r)
        moved = one(index)
        if moved is not index:
            return Const((kind, moved)) if moved is not None else None
    return value


def keyed_by(value: Value, target: str) -> Value:
    """An entry of a comprehension keyed by its target ``target`` (the dict's key, or a
    list's index over ``range(n)``): its device named by the key it is stored under."""
    return _rebased(value, target, KEYED)


def rekeyed(value: Value, key: Value, node: cst.BaseExpression | None) -> Value:
    """``entries[key]``: an entry's device named by its key, in the subscript's terms
    (``links[1]``: npu:1, ``links[k + 1]``: ``k + 1``; anything else: not visible)."""
    if not _has_keyed(value):
        return value
    index = key.value if isinstance(key, Const) and type(key.value) is int else None
    if index is None and node is not None and not isinstance(key, Const):
        index = symbol(node)
    return _rebased(value, KEYED, index)


def picked(value: Value, arg: Arg | None, offset: int) -> Value:
    """``value[p + offset]`` of a summary (:func:`..abstract.paths.param_keyed`), ``value``
    the caller's: the item under the key the call passed for ``p``, an entry's device named
    by it (:func:`rekeyed`: ``pick(links, k + 1)`` is ``links[k + 1]``); the caller's own
    parameter as the key keeps the step, for its caller to name."""
    key = arg.value if arg is not None else None
    literal = key.value if type(key) is Const else None
    if type(literal) is int:
        literal += offset
    elif offset:
        literal = None
    if type(literal) in (str, int):
        return rekeyed(item(value, literal), Const(literal), None)  # type: ignore[arg-type]
    if type(value) is ExtStream and value.param is not None:
        return param_keyed(value, key, offset) or contents(value)
    got = contents(value)
    if not _has_keyed(got) or arg is None or arg.node is None or type(key) is Const:
        return got
    index = symbol(arg.node)
    return _rebased(got, KEYED, None if index is None else Sym(index.base, index.offset + offset))


def _has_keyed(value: Value) -> bool:
    kind = type(value)
    if kind is Tensor:
        indices: tuple[object, ...] = (value.index,)  # type: ignore[union-attr]
    elif kind is ExtStream:
        indices = tuple(value.device or ())  # type: ignore[union-attr]
    elif kind is Const and type(value.value) is tuple and len(value.value) == 2:  # type: ignore[union-attr]
        indices = (value.value[1],)  # type: ignore[union-attr]
    elif kind is Const and type(value.value) is Sym:  # type: ignore[union-attr]
        indices = (value.value,)  # type: ignore[union-attr]
    elif kind is Instance:
        return _has_keyed(value.field(MODULE_DEVICE)[1])  # type: ignore[union-attr]
    else:
        return False
    return any(isinstance(i, Sym) and i.base == KEYED for i in indices)
