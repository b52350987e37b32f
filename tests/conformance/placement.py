"""One finding per defect: which defect a finding reports, read from its message.

A **defect** is one refused operation reached by one external stream: the operation's code
and the place it happens (a finding at the operation is on its line; a finding at a call
names the operation as ``(file.py:line)``, the helper's line that refuses), and the stream's
origin as the message names it (``created line 16``, ``returned by make_stream() line 14``,
``created streams.py:5``). The contract (issue 38, family 2) puts each defect at one place:
at the operation when what makes the value external is known without the caller (the
function's own code, its class's guarantee, a module global), else at the innermost call
whose argument makes it external. A defect reported at two places (inside a method and
again at the call that runs it, or at a call three levels above the operation as well as at
the one that passes the stream) is what :func:`reported_twice` finds. Two callers that each
pass their own external stream to one helper are two defects (two origins), one each.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping

#: (path, line, code), as the suite compares findings.
Key = tuple[str, int, str]
#: (code, operation path, operation line, origin).
Defect = tuple[str, str, int, str]

#: ``(helpers.py:8)``: the operation a call reaches (a path and a line, nothing else).
_OPERATION = re.compile(r"\((?P<path>[^()\s:]+\.py):(?P<line>\d+)\)")
#: ``(created line 16)``, ``(returned by make() line 14)``, ``(created streams.py:5)``.
_ORIGIN = re.compile(r"\((?P<origin>[^()]*(?:\([^()]*\)[^()]*)*?(?:line \d+|\S+\.py:\d+))\)")


def defect(key: Key, message: str) -> Defect:
    """The defect a finding reports (:mod:`module docstring <.placement>`)."""
    path, line, code = key
    operation = _OPERATION.search(message)
    if operation is not None:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        named = operation["path"]
        op_path = named if "/" in named or not folder else f"{folder}/{named}"
        path, line = op_path, int(operation["line"])
    origin = _ORIGIN.search(message[operation.end() :] if operation else message)
    return code, path, line, origin["origin"] if origin else ""


def reported_twice(messages: Mapping[Key, str]) -> dict[Defect, list[Key]]:
    """The defects reported at more than one place, with the places."""
    places: dict[Defect, list[Key]] = defaultdict(list)
    for key, message in messages.items():
        places[defect(key, message)].append(key)
    return {d: sorted(keys) for d, keys in places.items() if len(keys) > 1}


__all__ = ["Defect", "defect", "reported_twice"]
