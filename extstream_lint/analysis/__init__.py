"""The libcst analysis: finds unsupported ExternalStream operations in one source file.

This package is the only part of extstream_lint that imports libcst. Adapters (flake8,
CLI) call :func:`analyze_source` and never touch libcst themselves; they ask
:func:`.projects.kept_findings` first, which needs no libcst.

What it follows (the README's "Limitations" and ``docs/conformance.md`` say what it does not):

* **Value flow, not grep.** libcst parses the file and an abstract interpreter
  (:mod:`.interpreter`) runs it in program order: names, tuple targets, walrus, ``global``
  names, ``self.<attr>`` (assigned anywhere in the class) and ``@property`` getters,
  parameters and returns annotated ``ExternalStream`` (also ``Optional[...]``, ``X | None``,
  strings). Branches are analysed separately and joined: a value external on some paths
  only gets "may be" wording. Loops run twice. ``isinstance(s, ExternalStream)``, the bit-30
  test on ``stream_id``, ``s.device_type == 20`` and predicates built from them (contract
  section 6's ``is_external_npu_stream(s)``) narrow, also on attribute paths. A module-level
  name is, for its functions and importers, what the module body leaves it (joined with what
  functions assign through ``global``); ``if TYPE_CHECKING:`` contributes only its imports.
* **Helpers, data structures, other modules.** Each function is summarised once
  (:mod:`.summaries`: which parameters reach a refused operation, what it returns or yields,
  whether entering it makes a stream current, which ``self`` attributes it sets) and the
  summary is applied at every call: the finding is reported at the call that passes the
  external stream, naming the helper's line. Containers, record fields (dataclass,
  NamedTuple, attrs), class and inherited attributes, ``functools.partial``, stored bound
  methods, lambdas, ``ExitStack.enter_context`` and ``match`` patterns carry values; imports
  of the project's own modules bring those modules' summaries (:mod:`.index`), with
  provenance across files ("created pkg/streams.py:16").
* **The current stream.** Inside ``with torch.npu.stream(ext):``, ``with ext:``,
  ``StreamContext(ext)``, and after ``set_stream(ext)`` until it is set back (leaving a
  ``with`` block by ``break``/``continue``/``return`` restores it, as does a ``finally``
  that sets it back; inside ``with torch.npu.graph(g):`` its own capture stream is current),
  the current stream is external: ``current_stream()``, ``event.record()`` with no stream,
  capture, super-kernel scopes and collectives are checked against it.
* **Aliases.** ``torch.npu`` is ``torch_npu.npu`` (torch auto-loads the backend),
  ``torch_npu.npu.streams``/``graphs``/``utils`` re-export into it, any ``import ... as``
  spelling resolves, and after ``import torch_npu.contrib.transfer_to_npu`` the
  ``torch.cuda`` names are torch_npu's; without it ``torch.cuda.ExternalStream`` is CUDA's
  and never flagged. A local class, parameter or variable named ``ExternalStream`` or
  ``torch_npu`` shadows the real one.
* **Where findings go.** On the line and column where the offending call starts; for an
  operation that happens on entering a ``with`` block, on the ``with`` line
  (:mod:`.positions`). Messages say where the value became external ("created line 12",
  "made current line 15", "returned by make() line 20").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["analyze_source"]

if TYPE_CHECKING:
    from .engine import analyze_source


def __getattr__(name: str) -> Any:
    """``analyze_source`` imports libcst: only when asked for (PEP 562)."""
    if name == "analyze_source":
        from .engine import analyze_source

        return analyze_source
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
