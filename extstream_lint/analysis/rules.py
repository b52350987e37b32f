"""Rule matching: given what is known about one call, which contract rules does it break?

The interpreter (:mod:`.interpreter`) works out the values; this module only compares them
with the API tables of :mod:`extstream_lint.contract`. It knows nothing of control flow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .. import contract as c
from .values import CapturingGraph, Const, CVoidP, Event, ExtStream, Graph, Value, Work


@dataclass
class Arg:
    """One argument as the analysis sees it: its value and its source text (if simple)."""

    value: Value
    text: str | None


@dataclass
class CallSite:
    """A call, with its arguments evaluated."""

    node: cst.Call
    #: The callee as written, for messages: ``torch.npu.graph``, ``ext.synchronize``...
    callee_text: str
    positional: list[Arg] = field(default_factory=list)
    keywords: dict[str, Arg] = field(default_factory=dict)
    #: ``*args`` seen: positions after it are unknown.
    star_at: int | None = None
    double_star: bool = False

    def arg(self, position: int, keyword: str) -> Arg | None:
        if keyword in self.keywords:
            return self.keywords[keyword]
        if self.star_at is not None and position >= self.star_at:
            return None
        if position < len(self.positional):
            return self.positional[position]
        return None


@dataclass(frozen=True)
class Issue:
    """A broken rule on an external stream: the stream and how the source names it."""

    code: str
    operation: str
    stream: ExtStream
    text: str | None
    #: The stream is not named by the call: it is whatever is current at the time.
    implicit: bool = False


@dataclass(frozen=True)
class CtorIssue:
    """A broken constructor rule (XST001, XST002)."""

    code: str
    operation: str


def _ext(arg: Arg | None) -> ExtStream | None:
    if arg is not None and isinstance(arg.value, ExtStream):
        return arg.value
    return None


def _stream_argument(
    site: CallSite, spec: tuple[str, int, str]
) -> tuple[str, Arg | None, ExtStream | None]:
    """The rule code, the stream argument named by a table entry, and whether it is external."""
    code, position, keyword = spec
    arg = site.arg(position, keyword)
    return code, arg, _ext(arg)


def _absent_or_none(arg: Arg | None) -> bool:
    return arg is None or (isinstance(arg.value, Const) and arg.value.value is None)


# --- stream-using calls ----------------------------------------------------------------------


def check_method(
    site: CallSite,
    method: str,
    receiver: Value,
    receiver_text: str | None,
    current: ExtStream | None,
) -> list[Issue]:
    """``receiver.method(...)`` where the receiver is not a module or class."""
    issues: list[Issue] = []
    op = f"{method}()"
    if method == c.WAIT_STREAM_METHOD:
        other = site.arg(0, "stream")
        stream = _ext(other)
        if stream is not None:  # other.record_event() runs first
            issues.append(Issue("XST103", op, stream, other.text if other else None))
        elif isinstance(receiver, ExtStream):
            issues.append(Issue("XST104", op, receiver, receiver_text))
        return issues
    code = c.STREAM_METHODS.get(method)
    if code is not None and isinstance(receiver, ExtStream):
        issues.append(Issue(code, op, receiver, receiver_text))
        return issues
    spec = c.STREAM_ARGUMENT_METHODS.get(method)
    if spec is not None:
        code, arg, stream = _stream_argument(site, spec)
        if stream is not None:
            issues.append(Issue(code, op, stream, arg.text if arg else None))
        elif (
            method in ("record", "wait")
            and isinstance(receiver, Event)
            and current is not None
            and _absent_or_none(arg)
            and not site.double_star
        ):
            issues.append(Issue(code, f"{method}() with no stream", current, None, True))
        if issues or not isinstance(receiver, Work):
            return issues
    if current is None:
        return issues
    if method in c.GRAPH_CAPTURE_METHODS and (
        receiver is None or isinstance(receiver, (Graph, CapturingGraph))
    ):
        issues.append(Issue("XST106", op, current, None, True))
    elif method in c.WORK_WAIT_METHODS and isinstance(receiver, Work):
        issues.append(Issue("XST111", f"Work.{method}()", current, None, True))
    return issues


def check_function(
    site: CallSite, qualname: str, current: ExtStream | None, default_capture: Value
) -> list[Issue]:
    """A call of a module-level function or unbound method, by canonical name."""
    op = f"{site.callee_text}()"
    spec = c.STREAM_ARGUMENT_FUNCTIONS.get(qualname)
    if spec is not None:
        code, arg, stream = _stream_argument(site, spec)
        if stream is not None:
            return [Issue(code, op, stream, arg.text if arg else None)]
        if (
            qualname == "torch_npu.npu.graph"
            and arg is None
            and isinstance(default_capture, ExtStream)
        ):
            return [Issue(code, op, default_capture, "torch.npu.graph.default_capture_stream")]
        return []
    code = c.CURRENT_STREAM_FUNCTIONS.get(qualname)
    if code is not None:
        return [Issue(code, op, current, None, True)] if current is not None else []
    owner, _, method = qualname.rpartition(".")
    if owner in c.STREAM_CLASSES and site.positional and site.star_at != 0:
        # torch.Stream.synchronize(ext): the receiver is the first argument.
        receiver = site.positional[0]
        rest = CallSite(site.node, site.callee_text, site.positional[1:], site.keywords)
        issues = check_method(rest, method, receiver.value, receiver.text, None)
        return [Issue(i.code, op, i.stream, i.text) for i in issues]
    return []


# --- constructors ----------------------------------------------------------------------------


def _describe_pointer(value: Value) -> str | None:
    """Why a pointer argument is wrong, or ``None`` if it may be a real handle."""
    if isinstance(value, CVoidP):
        return "a ctypes.c_void_p object (TypeError)"
    if not isinstance(value, Const):
        return None
    v = value.value
    if v is None:
        return "None (TypeError)"
    if v is False or (v == 0 and isinstance(v, int)):
        return f"the null pointer {v!r}"
    if v is True:
        return "True (taken as the garbage pointer 1)"
    if isinstance(v, int):
        if v < 0:
            return f"the negative pointer {v} (wrapped into garbage)"
        if v >= 2**64:
            return "a pointer wider than 64 bits (wrapped into garbage)"
        return None
    return f"a {type(v).__name__} literal (TypeError)"


def is_null(value: Value) -> bool:
    return isinstance(value, Const) and (value.value is None or value.value == 0)


def check_constructor(site: CallSite, qualname: str) -> tuple[list[CtorIssue], bool]:
    """XST001/XST002 for stream constructors; also says whether the result is external."""
    name = site.callee_text
    issues: list[CtorIssue] = []
    if qualname == c.SYNC_LAUNCH_STREAM_CLASS:
        ptr = site.keywords.get("stream_ptr")
        if ptr is not None and not is_null(ptr.value):
            issues.append(
                CtorIssue("XST002", f"{name}(stream_ptr=...) always sets is_sync_launch=1")
            )
        return issues, False
    if qualname == c.EXTERNAL_STREAM_CLASS:
        ptr = site.arg(0, "stream_ptr")
        if len(site.positional) > 2 and site.star_at is None:
            issues.append(
                CtorIssue(
                    "XST002",
                    f"{name}() given a third positional argument (the second is device, "
                    "not priority)",
                )
            )
        priority = site.keywords.get("priority")
    else:  # torch.npu.Stream(device=None, priority=0, **kwargs)
        ptr = site.keywords.get("stream_ptr")
        if ptr is None:
            return issues, False
        priority = site.arg(1, "priority")
    if ptr is None:
        return issues, qualname == c.EXTERNAL_STREAM_CLASS and site.star_at is None
    problem = _describe_pointer(ptr.value)
    if problem is not None:
        issues.append(CtorIssue("XST001", f"{name}() given {problem} as stream_ptr"))
        return issues, False
    for keyword, arg in (
        ("priority", priority),
        ("is_sync_launch", site.keywords.get("is_sync_launch")),
    ):
        if arg is not None and not is_null(arg.value):
            issues.append(CtorIssue("XST002", f"{name}() given {keyword}= for an external stream"))
    ignored = [
        k for k in c.ID_KEYWORDS if k in site.keywords and not is_null(site.keywords[k].value)
    ]
    for keyword in ignored:
        issues.append(
            CtorIssue(
                "XST002", f"{name}() given {keyword}=, which makes torch_npu ignore stream_ptr"
            )
        )
    return issues, not ignored
