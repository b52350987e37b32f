"""Automatic fixes: ``extstream-lint --fix``, ``--unsafe-fixes`` and ``--diff`` (ruff's flags).

A fix is data (:class:`Fix`: text edits by line and column) found for a finding after the
analysis, from the finding's position alone: the analysis reports a call at the start of
the call's expression, so the fixer looks up the call nodes that start there and asks the
rule's rewriter whether one of them is the flagged spelling. A finding reported at a
helper's call (the refused operation is inside the helper) is not that spelling, and gets
no fix: the rewrite would belong in the helper's body, where the finding is not.

Each rewrite replaces the smallest node that carries the mistake (a ``True``, an attribute
name, one argument, one call) and leaves every other byte alone: formatting, comments and
line endings stay, and an edit whose span holds a comment is not offered. Whether a rule
has a fix, and whether it is safe (the meaning is kept) or unsafe (the behaviour changes),
is the contract's (:attr:`.contract.Rule.autofix`); a rewriter may demote a safe rewrite
to unsafe when the spelling at hand would drop an expression that could have an effect.

libcst is imported only when a kept finding has a rule with a fix.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..contract import RULES
from ..findings import Finding
from .noqa import physical_lines

if TYPE_CHECKING:
    import libcst as cst

__all__ = [
    "Edit",
    "Fix",
    "NotWritten",
    "apply_edits",
    "find_fixes",
    "fix_source",
    "has_rewriter",
    "still_parses",
    "unified_diff",
    "write_fix",
]


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text from ``start`` to ``end`` (``(line, column)``: 1-based line, 0-based
    character column, ``end`` exclusive) with ``text``."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


@dataclass(frozen=True)
class Fix:
    """The rewrite of one finding: what it does, whether it is safe, and its edits."""

    description: str
    safe: bool
    edits: tuple[Edit, ...]


Rewriter = Callable[["cst.Call", "_Context"], "Fix | None"]


# --- finding the fixes ----------------------------------------------------------------------


def has_rewriter(code: str) -> bool:
    """Whether findings of rule ``code`` may have a fix (their rule has a rewriter)."""
    return code in _REWRITERS


def find_fixes(text: str, findings: Iterable[Finding]) -> dict[Finding, Fix]:
    """The fix of every finding of ``text`` that has one (never raises).

    ``text`` is the file as linted, with any newline convention: positions are the same
    with ``\\r\\n`` as with ``\\n``.
    """
    wanted = [f for f in findings if f.code in _REWRITERS]
    if not wanted:
        return {}
    try:
        return _find(text.replace("\r\n", "\n").replace("\r", "\n"), wanted)
    except Exception:  # a fix is a convenience: it must never cost the user the report
        return {}


def _find(text: str, wanted: Sequence[Finding]) -> dict[Finding, Fix]:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from ..project.pytrees import python_parse, too_deep_for_libcst

    try:
        tree = python_parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if too_deep_for_libcst(text, tree) is not None:  # libcst's parser would crash
        return {}
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    calls: dict[tuple[int, int], list[cst.Call]] = defaultdict(list)
    for node, where in positions.items():
        if isinstance(node, cst.Call):
            calls[(where.start.line, where.start.column)].append(node)
    context = _Context(wrapper, positions, text)
    found: dict[Finding, Fix] = {}
    for finding in wanted:
        rewrite = _REWRITERS[finding.code]
        fixes = [
            fix
            for call in calls.get((finding.line, finding.col), ())
            if (fix := rewrite(call, context))
        ]
        if (
            len(fixes) == 1
            and not context.has_comment(fixes[0])
            and (tree is None or still_parses(text, apply_edits(text, fixes[0].edits)))
        ):
            # the contract has the last word: a rule whose rewrite changes behaviour is unsafe
            safe = fixes[0].safe and RULES[finding.code].autofix == "safe"
            found[finding] = replace(fixes[0], safe=safe)
    return found


class _Context:
    """What a rewriter may ask about the module: node spans, and what a name is bound to."""

    def __init__(self, wrapper: Any, positions: Mapping[Any, Any], text: str) -> None:
        self.wrapper = wrapper
        self.positions = positions
        self.lines = text.split("\n")
        self._scopes: Mapping[Any, Any] | None = None

    def span(self, node: cst.CSTNode) -> tuple[tuple[int, int], tuple[int, int]]:
        where = self.positions[node]
        return (where.start.line, where.start.column), (where.end.line, where.end.column)

    def replace(self, node: cst.CSTNode, text: str) -> Edit:
        start, end = self.span(node)
        return Edit(start, end, text)

    def is_torch_module(self, node: cst.CSTNode) -> bool:
        """Is ``torch`` at ``node`` bound only by ``import torch`` / ``import torch.x``?"""
        from libcst.metadata import ScopeProvider

        if self._scopes is None:
            self._scopes = self.wrapper.resolve(ScopeProvider)
        scope = self._scopes.get(node)
        if scope is None or "torch" not in scope:
            return False
        import libcst as cst

        assignments = scope["torch"]
        return bool(assignments) and all(
            isinstance(a.node, cst.Import)
            and any(
                alias.asname is None and _dotted(alias.name).split(".")[0] == "torch"
                for alias in a.node.names
            )
            for a in assignments
        )

    def has_comment(self, fix: Fix) -> bool:
        """Does an edit replace a comment? Then the fix is not offered (comments stay)."""
        for edit in fix.edits:
            (line, col), (end_line, end_col) = edit.start, edit.end
            chunk = "\n".join(self.lines[line - 1 : end_line])
            chunk = chunk[col : len(chunk) - (len(self.lines[end_line - 1]) - end_col)]
            if "#" in chunk and _has_comment_token(chunk):
                return True
        return False


def _has_comment_token(chunk: str) -> bool:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(chunk).readline))
    except (tokenize.TokenError, SyntaxError):
        return True  # cannot tell: keep the text as it is
    return any(token.type == tokenize.COMMENT for token in tokens)


def _dotted(node: cst.BaseExpression) -> str:
    """``a.b.c`` of a Name/Attribute chain, or "" for anything else."""
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def _method(call: cst.Call) -> str:
    import libcst as cst

    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def _receiver(call: cst.Call) -> cst.BaseExpression | None:
    import libcst as cst

    return call.func.value if isinstance(call.func, cst.Attribute) else None


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


# --- the rewriters --------------------------------------------------------------------------

#: Where ``non_blocking`` sits among a bound method's positional arguments
#: (``Tensor.npu(device, non_blocking)``, ``Tensor.copy_(src, non_blocking)``);
#: ``Tensor.to`` has it after the device or dtype in every overload, before ``copy``.
_NON_BLOCKING_INDEX = {"npu": 1, "cuda": 1, "copy_": 1}


def _non_blocking_false(call: cst.Call, context: _Context) -> Fix | None:
    """XST201 / XST211: the ``non_blocking`` argument of the copy becomes ``False``."""
    import libcst as cst

    method = _method(call)
    if method not in ("to", "npu", "cuda", "copy_"):
        return None
    arg = _keyword(call, "non_blocking")
    if arg is None:
        positional = _positional(call)
        receiver = _receiver(call)
        unbound = receiver is not None and _dotted(receiver).split(".")[-1] == "Tensor"
        if method == "to":
            arg = _to_non_blocking(positional[1:] if unbound else positional)
        else:
            index = _NON_BLOCKING_INDEX[method] + (1 if unbound else 0)
            arg = positional[index] if len(positional) > index else None
    if arg is None:
        return None
    value = arg.value
    if isinstance(value, cst.Name) and value.value == "False":
        return None
    # Dropping a name loses nothing; dropping a call or an attribute (a property) might.
    safe = isinstance(value, cst.Name)
    return Fix("Use `non_blocking=False`", safe, (context.replace(value, "False"),))


def _to_non_blocking(positional: list[cst.Arg]) -> cst.Arg | None:
    """The argument that binds ``non_blocking`` in ``Tensor.to(...)``'s positional
    arguments, by torch's overloads: ``to(device, dtype, non_blocking, copy)``,
    ``to(dtype, non_blocking, copy)`` and ``to(tensor, non_blocking, copy)``. ``None``
    when the spelling does not tell which overload binds (``to(x, y)``: a tensor and a
    flag, or a device and a dtype): a fix must never rewrite ``copy`` or a dtype."""
    import libcst as cst

    if not positional:
        return None
    first = positional[0].value
    second = positional[1].value if len(positional) > 1 else None
    if _is_dtype(first):
        index = 1
    elif (
        isinstance(
            first, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer)
        )
        or (isinstance(first, cst.Call) and _dotted(first.func) == "torch.device")
        or (isinstance(first, cst.Attribute) and first.attr.value == "device")
        or len(positional) >= 4  # only the device overload takes four
        or (second is not None and (_is_dtype(second) or _is_none(second)))
    ):
        index = 2
    elif second is not None and _is_bool(second):  # a dtype is never a bool: a tensor first
        index = 1
    else:
        return None
    return positional[index] if len(positional) > index else None


#: torch's dtypes by the names ``torch.<name>`` spells them.
_DTYPE_NAMES = (
    "float float16 float32 float64 half double bfloat16 complex32 complex64 complex128 "
    "cfloat cdouble chalf int int8 int16 int32 int64 short long uint8 uint16 uint32 "
    "uint64 bool float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz qint8 quint8"
)
_DTYPES = frozenset(_DTYPE_NAMES.split())


def _is_dtype(node: cst.BaseExpression) -> bool:
    head, _, name = _dotted(node).rpartition(".")
    return head == "torch" and name in _DTYPES


def _is_none(node: cst.BaseExpression) -> bool:
    import libcst as cst

    return isinstance(node, cst.Name) and node.value == "None"


def _is_bool(node: cst.BaseExpression) -> bool:
    import libcst as cst

    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _device_synchronize(call: cst.Call, context: _Context) -> Fix | None:
    """XST101: ``<stream>.synchronize()`` becomes ``torch.npu.synchronize()``."""
    import libcst as cst

    if _method(call) != "synchronize" or not isinstance(call.func, cst.Attribute):
        return None
    if not context.is_torch_module(call):
        return None
    if call.args:  # the unbound spelling, torch.Stream.synchronize(ext)
        if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        dropped = call.args[0].value
    else:
        dropped = call.func.value
    if not (_dotted(dropped) or _is_current_stream(dropped)):
        return None  # the stream expression may have an effect: not dropped
    return Fix(
        "Use `torch.npu.synchronize()` (waits for the whole device)",
        False,
        (context.replace(call, "torch.npu.synchronize()"),),
    )


def _is_current_stream(node: cst.BaseExpression) -> bool:
    import libcst as cst

    return (
        isinstance(node, cst.Call)
        and not node.args
        and _dotted(node.func).split(".")[-1] == "current_stream"
    )


def _drop_graph_stream(call: cst.Call, context: _Context) -> Fix | None:
    """XST106: ``torch.npu.graph(g, stream=ext)`` loses its ``stream`` argument."""
    if _method(call) != "graph":
        return None
    args = list(call.args)
    arg = _keyword(call, "stream")
    if arg is None:
        positional = _positional(call)
        if len(positional) < 3 or positional[2] is not positional[-1]:
            return None  # capture_error_mode would move into its place
        arg = positional[2]
    if not _dotted(arg.value):
        return None  # the stream expression may have an effect: not dropped
    index = args.index(arg)
    start, end = context.span(arg)
    if index + 1 < len(args):  # "stream=ext, pool=p" -> "pool=p"
        end = context.span(args[index + 1])[0]
    elif index > 0:  # "g, stream=ext" -> "g"; "(g)" or "*(a)" whole (the argument's span)
        start = context.span(args[index - 1])[1]
    else:
        return None
    return Fix(
        "Capture without `stream=` (replay the graph under the external stream)",
        False,
        (Edit(start, end, ""),),
    )


def _launch_pending(call: cst.Call, context: _Context) -> Fix | None:
    """XST109: ``torch_npu.npu._launch_host_func`` becomes ``..._launch_host_func_pending``."""
    import libcst as cst

    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "_launch_host_func":
        return None
    return Fix(
        "Use `_launch_host_func_pending`",
        False,
        (context.replace(call.func.attr, "_launch_host_func_pending"),),
    )


#: The rewriter of each rule whose contract offers a fix; a test checks that this covers
#: exactly the rules whose ``autofix`` is not "none".
_REWRITERS: Mapping[str, Rewriter] = {
    "XST101": _device_synchronize,
    "XST106": _drop_graph_stream,
    "XST109": _launch_pending,
    "XST201": _non_blocking_false,
    "XST211": _non_blocking_false,
}


def rewriter_codes() -> frozenset[str]:
    """The codes a rewriter exists for (tests compare them with the contract)."""
    return frozenset(_REWRITERS)


# --- applying them --------------------------------------------------------------------------

_NEWLINE = re.compile(r"\r\n|\r|\n")


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with the edits made; edits that overlap an earlier one are skipped."""
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def offset(where: tuple[int, int]) -> int:
        return starts[where[0] - 1] + where[1]

    pieces: list[str] = []
    done = 0
    for edit in sorted(edits):
        begin, end = offset(edit.start), offset(edit.end)
        if begin < done:
            continue
        pieces += [text[done:begin], edit.text]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def fix_source(data: bytes, linted: str, edits: Sequence[Edit]) -> bytes | None:
    """The bytes of a file with ``edits`` made, in the encoding it was read with (the rule of
    :func:`.sources.decode_python`, latin-1 fallback included; a BOM kept), or ``None`` when
    the file no longer holds the text that was linted."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeError, LookupError):
        encoding, text = "latin-1", data.decode("latin-1")
    mark = next((m for m in ("\ufeff", "\xef\xbb\xbf") if text.startswith(m)), "")
    text = text[len(mark) :]
    if text != linted:
        return None
    return (mark + apply_edits(text, edits)).encode(encoding)


def still_parses(before: str, after: str) -> bool:
    """Does the fixed text ``after`` parse as ``before`` did? CPython's parser when it
    accepts ``before``, libcst's when only libcst does (syntax newer than this Python). A
    rewrite that breaks the code is a bug of ours, and must never reach the user's file."""
    from ..project.pytrees import python_parse, too_deep_for_libcst

    try:
        python_parse(before)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    else:
        try:
            python_parse(after)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        return True
    if too_deep_for_libcst(after, None) is not None:
        return False
    import libcst as cst

    try:
        cst.parse_module(after)
    except Exception:
        return False
    return True


class NotWritten(Exception):
    """``--fix`` left a file as it was; ``reason`` says why, as a user should read it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def write_or_warn(
    path: str,
    linted: str,
    edits: Sequence[Edit],
    trees: Sequence[str],
    refused: str,
    failed: str,
) -> bool:
    """:func:`write_fix`, with a warning on stderr instead of an exception: the template
    ``refused`` (given ``{path}`` and ``{reason}``) when the file is left as it was on
    purpose, ``failed`` (given ``{path}`` and ``{error}``) when the system refused the write.
    ``--fix`` and ``--add-noqa`` both write this way, each in its own words; the path is a
    value given to the template, never part of it, so braces in a file name print as they
    are. Returns whether the file was written."""
    try:
        write_fix(path, linted, edits, trees)
    except NotWritten as exc:
        print(refused.format(path=path, reason=exc.reason), file=sys.stderr)
        return False
    except OSError as exc:
        print(failed.format(path=path, error=exc.strerror or exc), file=sys.stderr)
        return False
    return True


def write_fix(path: str, linted: str, edits: Sequence[Edit], trees: Sequence[str]) -> None:
    """Make ``edits`` in the file ``path``, which was linted as ``linted``, or raise
    :class:`NotWritten` (or ``OSError``) with the file as it was.

    The fixed bytes go to a temporary file beside it, which is flushed to disk, given the
    file's mode and owner, then renamed over it: a full disk, a quota or a kill leaves the
    old file or the new one, never half of each. A file reached through a symbolic link is
    fixed where it lives only when that is inside one of ``trees`` (the paths linted: a
    directory, or a file's own directory); a file with several hard links is left alone,
    since a rename would separate them.
    """
    target = os.path.realpath(path)
    if not any(_inside(target, os.path.realpath(tree)) for tree in trees):
        raise NotWritten("it is a link to a file outside the paths linted")
    with open(target, "rb") as handle:
        data = handle.read()
        status = os.fstat(handle.fileno())
    if not stat.S_ISREG(status.st_mode):
        raise NotWritten("it is not a regular file")
    fixed = fix_source(data, linted, edits)
    if fixed is None:
        raise NotWritten("changed while linting")
    if status.st_nlink > 1:
        raise NotWritten(f"it has {status.st_nlink} hard links, which a rewrite would separate")
    _replace(target, fixed, status)


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip(os.sep) + os.sep)


def _replace(target: str, data: bytes, status: os.stat_result) -> None:
    """Write ``data`` beside ``target`` and rename it over ``target`` (see :func:`write_fix`)."""
    directory, name = os.path.split(target)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".fix", dir=directory)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.chmod(temporary, stat.S_IMODE(status.st_mode))
        chown = getattr(os, "chown", None)
        written = os.stat(temporary)
        if chown is not None and (written.st_uid, written.st_gid) != (status.st_uid, status.st_gid):
            try:
                chown(temporary, status.st_uid, status.st_gid)
            except PermissionError:
                raise NotWritten("its owner could not be kept") from None
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def unified_diff(path: str, before: str, after: str) -> str:
    """``--diff``: ruff's layout, the path on both header lines."""
    lines = difflib.unified_diff(physical_lines(before), physical_lines(after), path, path)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)
