"""``wait_stream`` without re-checking what its own wrapper has just checked.

torch_npu's ``Stream.wait_stream(stream)`` is ``self.wait_event(stream.record_event())``, which
comes down to::

    event = Event(); event.record(stream); event.wait(self)

and ``Event.record`` / ``Event.wait`` (patched by the guard too) are ``super().record(stream)`` /
``super().wait(stream)`` once a stream is given. After the ``wait_stream`` wrapper has checked
both streams, the nested checks and Python frames only add cost: on an ordinary stream they are
most of the guard's price for this call. When (and only when) torch_npu's stock code is in
place, the wrapper performs those steps itself, calling the C base type's ``record`` / ``wait``
(static types: nobody can patch them).

"Stock" is verified twice:

- at install time, the source of ``wait_stream``, ``record_event``, ``wait_event`` and
  ``Event.record`` / ``Event.wait`` must parse to exactly the statements above (a torch_npu
  release that changes them disables the fast path instead of diverging from it; the contract
  test pins them against the wheels);
- at call time, the argument's and the receiver's classes must still hold those very
  ``record_event`` / ``wait_event`` functions, ``Event.record`` / ``Event.wait`` must still be
  the stock ones or the guard's wrappers of them, and ``streams.Event`` must still be that class
  (so a subclass override or somebody else's later patch is honoured by the normal path).
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
    **{
        f"Event.{name}": (
            f"def f(self, stream=None):\n    if stream is None:\n"
            f"        stream = torch_npu.npu.current_stream()\n"
            f"    super(Event, self).{name}(stream)\n"
        )
        for name in ("record", "wait")
    },
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
    """The stock shape of ``Stream.<name>`` (or ``Event.<name>``) the fast path is written for."""
    return shape(ast.parse(_EXPECTED[name]).body[0])


def _shape(func: Any) -> str | None:
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return None
    node = ast.parse(source).body[0]
    return shape(node) if isinstance(node, ast.FunctionDef) else None


def _base_method(cls: type, name: str) -> Any:
    """What ``super(cls, obj).<name>`` finds: the first definition after ``cls`` in its MRO."""
    for klass in cls.__mro__[1:]:
        if name in vars(klass):
            return vars(klass)[name]
    return None


class Plan:
    """What the fast path needs, resolved once at install time."""

    def __init__(
        self,
        streams: Any,
        record_event: frozenset[Any],
        wait_event: frozenset[Any],
        stock: tuple[Any, Any],
        peel: Callable[[Any], Any],
    ) -> None:
        self.streams = streams
        self.event_cls: type = streams.Event
        #: The stock ``Stream``/``SyncLaunchStream`` methods; any other receiver class takes
        #: the normal path.
        self.record_event = record_event
        self.wait_event = wait_event
        #: The stock ``Event.record`` / ``Event.wait`` (Python) functions.
        self.stock = stock
        #: What they call once a stream is given: the C base type's ``record`` / ``wait``.
        self.record = _base_method(self.event_cls, "record")
        self.wait = _base_method(self.event_cls, "wait")
        self._peel = peel

    def trusts(self, record: Any, wait: Any) -> bool:
        """True if ``Event.record`` / ``Event.wait`` are the stock methods or the guard's own
        wrappers of them (anything else - a spy, a later patch - must be called)."""
        return (self._peel(record), self._peel(wait)) == self.stock


def plan(wait_stream: Callable[..., Any], peel: Callable[[Any], Any]) -> Plan | None:
    """A :class:`Plan` if ``wait_stream`` and its callees are torch_npu's stock code, else None.

    ``peel`` strips the guard's own wrappers (and nobody else's) off a function.
    """
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
    event_cls = getattr(streams, "Event", None)
    if not record_event or not wait_event or not isinstance(event_cls, type):
        return None
    stock = (peel(vars(event_cls).get("record")), peel(vars(event_cls).get("wait")))
    if _shape(stock[0]) != expected("Event.record") or _shape(stock[1]) != expected("Event.wait"):
        return None
    found = Plan(streams, frozenset(record_event), frozenset(wait_event), stock, peel)
    return found if callable(found.record) and callable(found.wait) else None
