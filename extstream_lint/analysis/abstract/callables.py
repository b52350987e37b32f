"""Function values with what they closed over, and calls of a function-valued parameter.

Two facts make higher-order code follow values (issue 27, point 2), as call-site return
inference does in pyright and a 1-call-site-sensitive points-to analysis does for closures:

* a :class:`Closure` is a nested function returned by a call of the function that defines
  it (``runs_on(ext)`` returning ``deco``, ``deco(step)`` returning ``wrapper``), with the
  values that call gave the enclosing functions' parameters: when it is called, a value of
  those parameters in its summary (``with torch.npu.stream(stream):`` in the wrapper) is the
  value captured, not "unknown";
* a :class:`ParamCall` is a call, inside a summarised function, of a value that is one of its
  parameters or a captured one (``fn(*args, **kwargs)``, ``key(s)``, ``callback()``): the
  summary records it with its arguments and the current stream then, and each call of the
  function that passes a function there calls it with them (:mod:`.interp.higher_order`).

Both are pure data, pickled with the summaries (listed in ``project/safe_pickle.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .choices import Callee
from .values import Current, FunctionInfo, Value

__all__ = ["Closure", "GlobalItem", "ParamCall"]


@dataclass(frozen=True)
class Closure(Callee):
    """``func``, made by a call of an enclosing function: ``captured`` holds, per enclosing
    function (innermost first), the values that call gave its parameters, by index."""

    func: FunctionInfo
    captured: tuple[tuple[FunctionInfo, tuple[tuple[int, Value], ...]], ...]


@dataclass(frozen=True)
class ParamCall:
    """A call of a parameter's value (``callee``, symbolic) in a summarised function body."""

    callee: Value
    positional: tuple[Value, ...]
    keywords: tuple[tuple[str, Value], ...]
    #: A spread of unknown length at this position / an unknown ``**`` (as on a call site).
    star_at: int | None
    spread: Value
    double_star: bool
    kw_spread: Value
    #: The current stream at the call (symbolic or real), ``None``: no external one. No
    #: libcst node is kept: findings are reported at the call that passes the function, and
    #: a node would make exporting the summary locate every call of its module.
    current: Current | None
    #: The call runs in no-grad mode (the body's, by a decorator, a ``with`` or a call): what
    #: it returns has no history unless the function called turns grad mode on itself.
    grad_off: bool = False


@dataclass(frozen=True)
class GlobalItem:
    """``REGISTRY[key]`` called in a summarised body, ``REGISTRY`` a dict global of module
    ``module`` that holds nothing under ``key`` there: the callee of a :class:`ParamCall`,
    looked up where the summary is applied, with the stores other modules made into the
    dict that are in force there (:mod:`.interp.registries`). ``key`` is in the body's terms."""

    module: str
    name: str
    key: Value
    #: ``REGISTRY.get(key)`` / ``REGISTRY[key]`` read, not called: the call's result is the
    #: item itself, as the dict is where the summary is applied (a getter helper).
    read: bool = False


#: At most this many recorded calls per function (the body is bounded; passes repeat it).
MAX_PARAM_CALLS = 32
#: Of which at most this many calls of a method of a parameter (``obj.m(...)``): a body of
#: tensor code makes many, and they must not crowd out calls of function-valued parameters.
MAX_METHOD_CALLS = 12


def result_index(position: int) -> int:
    """The parameter index standing for what the recorded call at ``position`` returns:
    below :data:`.values.CALLER_CURRENT` (-1), so no real parameter is ever one. A call of
    the function binds it to what that call made (``return fn(*args)`` in a wrapper)."""
    return -2 - position
