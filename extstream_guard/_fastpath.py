"""``wait_stream`` without re-checking what its own wrapper has just checked.

torch_npu's ``Stream.wait_stream(stream)`` is ``self.wait_event(stream.record_event())``: it
reaches ``Event.record`` and ``Event.wait``, which the guard patches too. Once the
``wait_stream`` wrapper has checked both streams, those two nested checks only add two Python
frames each - three checks for one call. When (and only when) the stock torch_npu methods are in
place, the wrapper performs the same steps itself with the unwrapped ``Event`` methods:

    event = streams.Event(); Event.record(event, stream); Event.wait(event, self)

"Stock" is verified twice: at install time the source of ``wait_stream``, ``record_event`` and
``wait_event`` must parse to exactly those statements (so a torch_npu release that changes them
disables the fast path instead of diverging from it), and at call time the receiver's and the
argument's classes must still hold those very functions and ``Event.record`` / ``Event.wait``
must still be the guard's wrappers (so a subclass override or someone else's patch is honoured
by taking the normal path).
"""

from __future__ import annotations

import ast
import copy
import inspect
import sys
import textwrap
from collections.abc import Callable
from typing import Any

__all__ = ["Plan", "expected", "plan", "shape"]

_EXPECTED = {
    "wait_stream": "def f(self, stream):\n    self.wait_event(stream.record_event())\n",
    "record_event": (
        "def f(self, event=None):\n    if event is None:\n        event = Event()\n"
        "    event.record(self)\n    return event\n"
    ),
    "wait_event": "def f(self, event):\n    event.wait(self)\n",
}


def shape(node: ast.AST) -> str:
    """A function's AST without its name, decorators and docstring, as a comparable string."""
    assert isinstance(node, ast.FunctionDef)
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    bare = copy.copy(node)
    bare.name, bare.body, bare.decorator_list = "f", body, []
    return ast.dump(bare, include_attributes=False)


def expected(name: str) -> str:
    """The stock shape of ``Stream.<name>`` the fast path is written for."""
    return shape(ast.parse(_EXPECTED[name]).body[0])


def _shape(func: Any) -> str | None:
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return None
    node = ast.parse(source).body[0]
    return shape(node) if isinstance(node, ast.FunctionDef) else None


class Plan:
    """What the fast path needs, resolved once at install time."""

    def __init__(self, streams: Any, record_event: set[Any], wait_event: set[Any]) -> None:
        self.streams = streams
        self.record_event = record_event
        self.wait_event = wait_event


def plan(wait_stream: Callable[..., Any]) -> Plan | None:
    """A :class:`Plan` if ``wait_stream`` and its callees are torch_npu's stock code, else None."""
    streams = sys.modules.get(getattr(wait_stream, "__module__", ""))
    if streams is None or _shape(wait_stream) != expected("wait_stream"):
        return None
    record_event: set[Any] = set()
    wait_event: set[Any] = set()
    for name in ("Stream", "SyncLaunchStream"):
        cls = getattr(streams, name, None)
        if cls is None:
            continue
        record, wait = vars(cls).get("record_event"), vars(cls).get("wait_event")
        if _shape(record) == expected("record_event"):
            record_event.add(record)
        if _shape(wait) == expected("wait_event"):
            wait_event.add(wait)
    if not record_event or not wait_event or not hasattr(streams, "Event"):
        return None
    return Plan(streams, record_event, wait_event)
