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
* **The object model** (``analysis/interp/objects.py``). An attribute or method of an instance
  is looked up through the MRO of the instance's class, computed as CPython does (C3,
  ``abstract/mro.py``), and ``super()`` continues along that MRO from the class it is written in
  (in a diamond, a sibling, not the base). A method is summarised once, with ``self`` an instance
  of the class that defines it; where a subclass in the same file defines differently
  something a base method reads through ``self`` (a method, a property, a class attribute, an
  attribute its methods set; what ``super().name`` finds when the subclass's MRO continues
  differently; ``cls(...)`` / ``self.__class__(...)``), and either definition does something to
  streams (a sink, or a stream, handle or object holding one returned, set or made current),
  that method runs again with ``self`` an instance of the subclass: a *view*, which lookups
  through the subclass answer (object sensitivity keyed by the receiver's class, as in
  Doop's points-to analyses), and so on transitively for the base methods that read it. So an
  inherited ``__init__`` calling ``self._make_stream()`` runs the subclass's override and stores
  its result on the subclass's instances, and the reverse override (a managed stream in the
  subclass) is not a finding on it. What each method reads is syntax; whether a definition
  acts on streams is what the pass learnt: views are decided after each learning pass, and a
  new one means another pass (it then runs in every pass). Template-method code that never
  touches a stream (the standard library's servers, mailboxes, I/O classes) gets none. A base
  defined in another module is summarised there and has no view (its body is not parsed
  here). Attributes a class's bodies set, and those a summary sets on ``self``, start afresh
  in each learning pass, as returns do: a first pass that ran ``__init__`` before the helper
  it calls was learnt no longer leaves a "may". Constructing a class applies its ``__init__``
  and, for a dataclass or attrs class, ``__post_init__`` / ``__attrs_post_init__``; the
  generated ``__init__`` takes the fields in order without ``field(init=False)`` ones (attrs'
  unannotated ``x = attr.ib()`` included), also for classes given a decorator, base class or
  metaclass declared with ``typing.dataclass_transform()`` (PEP 681). ``copy.copy``,
  ``copy.deepcopy``, ``dataclasses.replace`` and ``_replace`` keep the instance's attributes
  (those named change). ``threading.local()``, ``types.SimpleNamespace(...)`` and
  ``contextvars.ContextVar(...)`` are an instance per allocation site, of a class of that site:
  what is stored in one (``local.x = s``, ``var.set(s)``) is what it holds everywhere (``var.get()``
  joins the default given). A helper built as ``Helper(self)`` in a method holds that object:
  its methods read back through it. A class whose ``__getattr__`` returns ``getattr(held, name)``
  delegates what it lacks to the held object, as a "may".
* **Higher-order code, binding, unpacking, literals, import effects**. A call in a
  function body of a value that is one of its parameters (``fn(*args, **kwargs)``, ``key(s)``, a
  callback) is recorded in its summary with its arguments and the current stream then
  (``abstract/callables.py``, ``interp/higher_order.py``); each call that passes a function there
  makes it with the caller's values and reports at that call, up to 4 calls deep. A nested
  function returned by a call is a closure holding what that call gave the enclosing
  parameters, so a decorator factory's wrapper (``@runs_on(ext)``) knows its stream; a
  decorator the project defines is applied (``f = d(f)``, methods too); ``sorted``/``min``/``max``
  with ``key=``, ``filter``, ``map``, ``functools.reduce`` call their function here, and
  ``asyncio.to_thread``, ``threading.Thread(target=)``, ``Executor.submit``,
  ``loop.run_in_executor`` call it with no external stream current (a new thread's);
  ``functools.partial(ExternalStream, ...)`` is the constructor. Spreads bind as Python binds
  them (``interp/binding.py``, ``interp/arguments.py``): ``*`` of a known tuple, ``**`` of a dict
  with literal keys, and a wrapper's own ``*args``/``**kwargs`` passed on (to a function or a
  bound method) give the callee's parameters the wrapper's ``args[0]``, ``kwargs['s']``. One
  routine unpacks for assignment, ``for``, ``with ... as``, comprehensions and ``match``
  (``interp/unpacking.py``): starred targets, values of unknown length (a generator,
  ``tuple(genexpr)``) give any element they may hold, a parameter gives ``pair[1]``. A
  ``True``/``False``/``None``/integer literal decides ``if``, ``x if c else y``, ``while``
  and ``not`` (``interp/constants.py``), and a call that passes a literal (or leaves a
  literal default) to a parameter its callee tests, or passes on to one that does, uses a
  copy of the
  summary learnt with it (one per function and literal tuple per pass, 64 at most):
  ``maybe_on(ext, False)`` makes nothing current. Only functions of the module analysed are
  copied: an imported function keeps both branches, except that one whose body reads a dict
  with literal keys by a parameter (``next(self.lanes[role])``) keeps what it returns for
  each key, so another module's ``take("bulk")`` is that key's.
  ``import torch_npu.contrib.transfer_to_npu``
  in a project module (its package ``__init__``, or any module it imports) marks its summary
  (``__transfer_to_npu__``), and an importer reads ``torch.cuda`` as torch_npu's; the import
  graph counts such a module as one that may hand out external streams, so an importer
  spelling ``ExternalStream`` without ``npu`` is linted. Python runs every package ``__init__``
  above a module first, so the packages above a module (its own, and those above each module
  it imports: ``from pkg.sub import x``) count too, asked for only where the text graph says
  they may remap (``project/graph.ImportGraph.may_transfer``). A name bound to a different
  function, class or module on each path (``f = a if c else b``, a ``def`` per branch,
  ``try``/``except ImportError`` imports, a dict of handlers) is each of them
  (``analysis/choices.OneOf``): a call calls each and joins what they do, "may" where they
  differ (``interp/alternatives.py``).
* **The current stream.** Inside ``with torch.npu.stream(ext):``, ``with ext:``,
  ``StreamContext(ext)``, and after ``set_stream(ext)`` until it is set back (leaving a
  ``with`` block by ``break``/``continue``/``return`` restores it, as does a ``finally``
  that sets it back; inside ``with torch.npu.graph(g):`` its own capture stream is current),
  the current stream is external: ``current_stream()``, ``event.record()`` with no stream,
  capture, super-kernel scopes and collectives are checked against it.
* **Aliases.** ``torch.npu`` is ``torch_npu.npu`` (torch auto-loads the backend),
  ``torch_npu.npu.streams``/``graphs``/``utils`` re-export into it, any ``import ... as``
  spelling resolves, and after ``import torch_npu.contrib.transfer_to_npu`` the
  ``torch.cuda`` names are torch_npu's (``torch.cuda.CUDAGraph``, however reached, is an
  ``NPUGraph``); without it ``torch.cuda.ExternalStream`` is CUDA's
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
    from .driver.engine import analyze_source


def __getattr__(name: str) -> Any:
    """``analyze_source`` imports libcst: only when asked for (PEP 562)."""
    if name == "analyze_source":
        from .driver.engine import analyze_source

        return analyze_source
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
