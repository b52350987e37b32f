"""What library calls do to values, as data: one table of flow models (issue 38, family 4).

A value the analysis follows passes through the standard library (a queue, a weak
reference, an executor, a context variable, ``operator``'s callables, ``collections``...).
The library's code is not analysed; what each call does to the values it is given is written
down here, one row per callee, in a small vocabulary of kinds (as CodeQL's models-as-data and
Pysa's model files do), and :mod:`..interp.flows` is the one routine that applies a row.
Adding a model is adding a row here and a conformance case (``tests/conformance/fixtures/``,
named by the row's ``case``; a test checks it exists). ``docs/flow-models.md`` is rendered
from this table (:func:`render_markdown`; ``python -m extstream_lint.frontends.flowdocs
--write``).

A row's ``callee`` is how the call is named:

* a qualified name (``queue.Queue``, ``copy.copy``): a call of that function or class;
* ``Holder.method`` (``queue.Queue.put``): a method of an object a ``HOLDER`` row made (a
  holder row's ``like`` names the class whose method rows it shares: ``queue.LifoQueue``
  is used as ``queue.Queue`` is);
* ``*.method`` (``*.submit``): a method of an object the analysis does not know (the
  executors and event loops are not followed as objects: their methods are known by name).

This module is data and plain functions over it: no analysis imports.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- the vocabulary ------------------------------------------------------------------------

RETURNS = "returns"
ENTERS = "enters"
ELEMENTS = "elements"
HOLDER = "holder"
STORES = "stores"
LOADS = "loads"
CALLS = "calls"
FOLDS = "folds"
CALLS_METHOD = "calls-method"
GETS_ATTRIBUTE = "gets-attribute"
GETS_ITEM = "gets-item"
DICT = "dict"
DEFAULT_DICT = "default-dict"
CHAIN_MAP = "chain-map"
LIST = "list"
ATTRIBUTES = "attributes"
DISPATCHER = "dispatcher"
REGISTERS = "registers"
HANDLES = "handles"
MAPPING_VIEW = "mapping-view"

#: Each kind, as the documentation says it (``{arg}`` is the row's argument).
KINDS: dict[str, str] = {
    RETURNS: "{arg} flows to the return",
    ENTERS: "entering the returned context manager gives {arg}",
    ELEMENTS: "the returned iterable holds any element of {arg}",
    HOLDER: "makes a holder: the method rows of its class move values in and out",
    STORES: "{arg} flows into the receiver's contents",
    LOADS: "returns the receiver's contents",
    CALLS: "calls {arg} with {args}",
    FOLDS: "calls {arg} with the value so far and each element of the iterable",
    CALLS_METHOD: "returns a callable that calls method {arg} of its argument",
    GETS_ATTRIBUTE: "returns a callable that reads the attributes named by its arguments",
    GETS_ITEM: "returns a callable that reads the items at its arguments",
    DICT: "a dict, as `dict(...)` makes from the same arguments",
    DEFAULT_DICT: "a dict whose missing keys read what calling {arg} returns (`list`, `set`, "
    "`dict`: an empty one, filled in place under that key), each stored key its own value",
    CHAIN_MAP: "a dict of every argument's keys, the first mapping's value first",
    LIST: "a list of the elements of {arg}",
    ATTRIBUTES: "an object whose attributes are its keyword arguments",
    DISPATCHER: "a function calling the implementation registered for the class of its "
    "first argument, else {arg}",
    REGISTERS: "registers {arg} (or its first parameter's annotation) as the class of an "
    "implementation",
    HANDLES: "returns a list of the handles the contract's row for the call yields (one per "
    "operation of {arg})",
    MAPPING_VIEW: "on a parameter: its values (`items()`: paired with its keys), read where "
    "the caller's mapping is known",
}

#: Each kind in general, for the documentation's vocabulary table.
KIND_MEANINGS: dict[str, str] = {
    RETURNS: "argument i flows to the return",
    ENTERS: "`with call(x) as v`: v is argument i",
    ELEMENTS: "the return iterates elements of argument i",
    HOLDER: "makes an object whose contents its method rows move",
    STORES: "argument i flows into the receiver's contents",
    LOADS: "the method returns the receiver's contents (joined with argument i when given)",
    CALLS: "calls argument i with given arguments, here, in another thread or later",
    FOLDS: "calls argument i as `functools.reduce` does",
    CALLS_METHOD: "returns a callable calling method NAME of its argument",
    GETS_ATTRIBUTE: "returns a getter of attributes",
    GETS_ITEM: "returns a getter of items",
    DICT: "a dict of the arguments",
    DEFAULT_DICT: "a dict whose missing keys read a factory's result; stored keys keep theirs",
    CHAIN_MAP: "a dict of several mappings, looked up in order",
    LIST: "a list of argument i's elements",
    ATTRIBUTES: "an object whose attributes are the keyword arguments",
    DISPATCHER: "calls the implementation registered for its first argument's class",
    REGISTERS: "registers an implementation for a class (at a module's top level: for "
    "every module that imports it too)",
    HANDLES: "a refused call of the contract returning a list of its handles, not one",
    MAPPING_VIEW: "`values()`/`items()` of a parameter: the caller's mapping's values",
}

#: What a ``CALLS`` row gives the function (``args``).
REST = "rest"  #: the arguments after the function
THREAD_ARGS = "args="  #: the sequence ``args`` and the mapping ``kwargs`` (``Thread``)
EACH_ELEMENT = "elements"  #: an element of each iterable after the function (``map``)

_ARGS_TEXT = {
    REST: "the arguments after it",
    THREAD_ARGS: "`*args` and `**kwargs`",
    EACH_ELEMENT: "an element of each iterable after it",
}

#: Where a ``CALLS`` row runs the function (``runs``).
HERE = "here"  #: now, in this thread: the current stream is the caller's
THREAD = "thread"  #: in another thread: its current stream is that thread's default
LATER = "later"  #: later, from an event loop: the current stream then is not known

#: What a ``CALLS`` row returns (``result``).
NOTHING = ""  #: nothing the analysis follows
RESULT = "result"  #: what the function returns
FUTURE = "future"  #: a ``concurrent.futures.Future`` whose ``result()`` is that
RESULTS = "results"  #: an iterable of what it returns


@dataclass(frozen=True)
class FlowModel:
    """One row: what a call of ``callee`` does to the values it is given."""

    callee: str
    kind: str
    #: The argument the row is about, by position and keyword (``None``: none).
    arg: int | None = None
    keyword: str | None = None
    #: ``CALLS``: what the function gets, where it runs, what the call returns.
    args: str = REST
    runs: str = HERE
    result: str = NOTHING
    #: ``CALLS`` with ``THREAD_ARGS``: the positions of ``args`` and ``kwargs``.
    extra: tuple[int, int] = (-1, -1)
    #: ``HOLDER``: contents shared by every object made at one place (a queue filled in
    #: one thread and read in another) rather than kept per object (a weak reference).
    shared: bool = False
    #: ``HOLDER``: the holder whose method rows apply to this one's objects.
    like: str = ""
    #: The conformance case that shows the row (``section/case``).
    case: str = ""

    def argument_text(self) -> str:
        if self.arg is None and self.keyword is None:
            return "nothing"
        if self.kind == CALLS_METHOD:
            return "NAME (argument 0)"
        names = []
        if self.arg is not None:
            names.append(f"argument {self.arg}")
        if self.keyword is not None:
            names.append(f"`{self.keyword}=`")
        return " / ".join(names)

    def describe(self) -> str:
        """The row as a sentence, for the documentation."""
        text = KINDS[self.kind].format(arg=self.argument_text(), args=_ARGS_TEXT[self.args])
        if self.kind == CALLS:
            text += {HERE: "", THREAD: ", in another thread", LATER: ", later"}[self.runs]
            text += {
                NOTHING: "",
                RESULT: "; returns what it returns",
                FUTURE: "; returns a future whose `result()` is what it returns",
                RESULTS: "; returns an iterable of what it returns",
            }[self.result]
        if self.kind == HOLDER and (self.arg is not None or self.keyword is not None):
            text += f"; {self.argument_text()} flows into it"
        if self.kind == LOADS and (self.arg is not None or self.keyword is not None):
            text += f", or {self.argument_text()} when given"
        if self.kind == HOLDER and self.like:
            text += f"; its methods are `{self.like}`'s"
        if self.kind == HOLDER and self.shared:
            text += "; one holder per place it is made, seen from every thread"
        return text


#: ``functools.singledispatchmethod``: dispatches on the argument after ``self``.
METHOD_DISPATCHER = "functools.singledispatchmethod"


def _holder(name: str, like: str = "", shared: bool = True, case: str = "") -> FlowModel:
    return FlowModel(name, HOLDER, shared=shared, like=like, case=case)


_Q = "library_flow/"

#: The table. Order: the documentation's, by module.
MODELS: tuple[FlowModel, ...] = (
    # copy
    FlowModel("copy.copy", RETURNS, 0, "x", case=_Q + "copy_copy"),
    FlowModel("copy.deepcopy", RETURNS, 0, "x", case=_Q + "copy_deepcopy"),
    # weakref
    FlowModel("weakref.ref", HOLDER, 0, "ob", case=_Q + "weakref_ref"),
    FlowModel("weakref.ref.__call__", LOADS, case=_Q + "weakref_ref"),
    FlowModel("weakref.WeakMethod", HOLDER, 0, "meth", like="weakref.ref", case=_Q + "weak_method"),
    FlowModel("weakref.proxy", RETURNS, 0, "object", case=_Q + "weakref_proxy"),
    FlowModel("weakref.finalize", CALLS, 1, "func", runs=LATER, case=_Q + "weakref_finalize"),
    FlowModel("weakref.WeakValueDictionary", DICT, case=_Q + "weak_value_dictionary"),
    FlowModel("weakref.WeakKeyDictionary", DICT, case=_Q + "weak_key_dictionary"),
    # queue, asyncio queues
    _holder("queue.Queue", case=_Q + "queue_put_get"),
    FlowModel("queue.Queue.put", STORES, 0, "item", case=_Q + "queue_put_get"),
    FlowModel("queue.Queue.put_nowait", STORES, 0, "item", case=_Q + "queue_nowait"),
    FlowModel("queue.Queue.get", LOADS, case=_Q + "queue_put_get"),
    FlowModel("queue.Queue.get_nowait", LOADS, case=_Q + "queue_nowait"),
    _holder("queue.LifoQueue", "queue.Queue", case=_Q + "lifo_queue"),
    _holder("queue.PriorityQueue", "queue.Queue", case=_Q + "priority_queue"),
    _holder("queue.SimpleQueue", "queue.Queue", case=_Q + "simple_queue"),
    _holder("asyncio.Queue", "queue.Queue", case=_Q + "asyncio_queue"),
    _holder("asyncio.LifoQueue", "queue.Queue", case=_Q + "asyncio_lifo_queue"),
    _holder("asyncio.PriorityQueue", "queue.Queue", case=_Q + "asyncio_queue"),
    # threads, executors, event loops
    FlowModel(
        "threading.Thread",
        CALLS,
        1,
        "target",
        args=THREAD_ARGS,
        runs=THREAD,
        extra=(3, 4),
        case=_Q + "thread_args",
    ),
    FlowModel(
        "threading.Timer",
        CALLS,
        1,
        "function",
        args=THREAD_ARGS,
        runs=THREAD,
        extra=(2, 3),
        case=_Q + "timer",
    ),
    FlowModel("*.submit", CALLS, 0, "fn", runs=THREAD, result=FUTURE, case=_Q + "submit_result"),
    FlowModel("*.values", MAPPING_VIEW, case=_Q + "mapping_values_of_parameter"),
    FlowModel("*.items", MAPPING_VIEW, case=_Q + "mapping_items_of_parameter"),
    _holder("concurrent.futures.Future", shared=False, case=_Q + "submit_result"),
    FlowModel("concurrent.futures.Future.result", LOADS, case=_Q + "submit_result"),
    FlowModel(
        "*.map",
        CALLS,
        0,
        "fn",
        args=EACH_ELEMENT,
        runs=THREAD,
        result=RESULTS,
        case=_Q + "executor_map",
    ),
    FlowModel("*.run_in_executor", CALLS, 1, "func", runs=THREAD, case="async/run_in_executor"),
    FlowModel(
        "asyncio.to_thread", CALLS, 0, "func", runs=THREAD, result=RESULT, case="async/to_thread"
    ),
    FlowModel("*.call_soon", CALLS, 0, "callback", runs=LATER, case=_Q + "call_soon"),
    FlowModel(
        "*.call_soon_threadsafe", CALLS, 0, "callback", runs=LATER, case=_Q + "call_soon_threadsafe"
    ),
    FlowModel("*.call_later", CALLS, 1, "callback", runs=LATER, case=_Q + "call_later"),
    FlowModel("*.call_at", CALLS, 1, "callback", runs=LATER, case=_Q + "call_later"),
    # torch's hooks: called by autograd or a module's forward, later
    FlowModel("*.register_hook", CALLS, 0, "hook", runs=LATER, case=_Q + "tensor_register_hook"),
    FlowModel(
        "*.register_forward_hook", CALLS, 0, "hook", runs=LATER, case=_Q + "forward_hook_object"
    ),
    # contextvars
    FlowModel(
        "contextvars.ContextVar", HOLDER, None, "default", shared=True, case="async/contextvar"
    ),
    FlowModel("contextvars.ContextVar.set", STORES, 0, "value", case="async/contextvar"),
    FlowModel("contextvars.ContextVar.get", LOADS, 0, "default", case=_Q + "contextvar_default"),
    FlowModel(
        "contextvars.copy_context", HOLDER, like="contextvars.Context", case=_Q + "context_run"
    ),
    FlowModel(
        "contextvars.Context.run", CALLS, 0, "callable", result=RESULT, case=_Q + "context_run"
    ),
    # functools, operator
    FlowModel("functools.reduce", FOLDS, 0, "function", case="functions/reduce_builtin"),
    FlowModel(
        "functools.singledispatch", DISPATCHER, 0, "func", case=_Q + "singledispatch_annotation"
    ),
    FlowModel(
        "functools.singledispatch.register",
        REGISTERS,
        0,
        "cls",
        case=_Q + "singledispatch_register_call",
    ),
    FlowModel(
        "functools.singledispatchmethod", DISPATCHER, 0, "func", case=_Q + "singledispatchmethod"
    ),
    FlowModel(
        "functools.singledispatchmethod.register",
        REGISTERS,
        0,
        "cls",
        case=_Q + "singledispatchmethod",
    ),
    FlowModel("operator.methodcaller", CALLS_METHOD, 0, "name", case=_Q + "methodcaller"),
    FlowModel("operator.attrgetter", GETS_ATTRIBUTE, case=_Q + "attrgetter"),
    FlowModel("operator.itemgetter", GETS_ITEM, case=_Q + "itemgetter"),
    # collections, types, threading.local
    FlowModel(
        "collections.defaultdict", DEFAULT_DICT, 0, "default_factory", case=_Q + "defaultdict"
    ),
    FlowModel("collections.OrderedDict", DICT, case=_Q + "ordered_dict"),
    FlowModel("collections.ChainMap", CHAIN_MAP, case=_Q + "chain_map"),
    FlowModel("collections.deque", LIST, 0, "iterable", case="containers/deque"),
    FlowModel("types.SimpleNamespace", ATTRIBUTES, case=_Q + "simple_namespace"),
    FlowModel("threading.local", ATTRIBUTES, case="containers/thread_local"),
    # contextlib, itertools
    FlowModel(
        "contextlib.nullcontext", ENTERS, 0, "enter_result", case="with_stmt/nullcontext_value"
    ),
    FlowModel("contextlib.closing", ENTERS, 0, "thing", case="with_stmt/closing_value"),
    FlowModel("itertools.cycle", ELEMENTS, 0, case="generators/itertools_repeat_cycle"),
    FlowModel("itertools.compress", ELEMENTS, 0, case=_Q + "itertools_compress"),
    FlowModel("itertools.filterfalse", ELEMENTS, 1, case=_Q + "itertools_filterfalse"),
    FlowModel("itertools.takewhile", ELEMENTS, 1, case=_Q + "itertools_takewhile"),
    FlowModel("itertools.dropwhile", ELEMENTS, 1, case=_Q + "itertools_dropwhile"),
    # torch.distributed: calls the contract judges, whose result is a list of works
    FlowModel(
        "torch.distributed.batch_isend_irecv",
        HANDLES,
        0,
        "p2p_op_list",
        case="with_stmt/work_list_batch_isend_irecv",
    ),
)

#: Rows by callee.
BY_CALLEE: dict[str, FlowModel] = {model.callee: model for model in MODELS}
#: The holders' classes: a method row applies to a holder of its class or one ``like`` it.
HOLDERS: dict[str, FlowModel] = {m.callee: m for m in MODELS if m.kind in (HOLDER, DISPATCHER)}
#: Names of methods modelled on objects the analysis does not know (``*.submit``).
ANY_RECEIVER: frozenset[str] = frozenset(m.callee[2:] for m in MODELS if m.callee.startswith("*."))
#: Names of the methods that return a holder's contents (``get``, ``result``...).
LOAD_METHODS: frozenset[str] = frozenset(
    m.callee.rsplit(".", 1)[1] for m in MODELS if m.kind == LOADS and "." in m.callee
)
#: The classes whose method rows apply to holders' objects.
_HOLDER_CLASSES = frozenset(m.like or m.callee for m in HOLDERS.values())
#: Qualified names of the functions and classes modelled (a call's one set lookup); the
#: ``HANDLES`` rows are not among them: the contract judges those calls, the row only says
#: what shape their result has (:func:`handles_of`).
FUNCTIONS: frozenset[str] = frozenset(
    m.callee
    for m in MODELS
    if not m.callee.startswith("*.")
    and m.callee.rsplit(".", 1)[0] not in _HOLDER_CLASSES
    and m.kind != HANDLES
)
#: Calls of the contract that return a list of the handle their row yields.
HANDLE_LISTS: frozenset[str] = frozenset(m.callee for m in MODELS if m.kind == HANDLES)


def holder_class(model: FlowModel) -> str:
    """The class whose method rows apply to what ``model`` (a holder) makes."""
    return model.like or model.callee


def method_model(holder: str, method: str) -> FlowModel | None:
    """The row of ``method`` on an object made by the holder row named ``holder``."""
    made = HOLDERS.get(holder)
    if made is None:
        return None
    return BY_CALLEE.get(f"{holder_class(made)}.{method}")


def render_markdown() -> str:
    """``docs/flow-models.md``: the table as a reader sees it."""
    lines = [
        "# Flow models: what library calls do to values",
        "",
        "<!-- generated from extstream_lint/analysis/semantics/flowmodels.py by",
        "     python -m extstream_lint.frontends.flowdocs --write; do not edit by hand -->",
        "",
        "The analysis does not read the standard library's code. What a library call does to",
        "the values it is given is one row of this table: the argument flows to the return,",
        "into the receiver's contents (and a method returns them), or is called with other",
        "arguments. A function run in another thread runs there with that thread's default",
        "stream current, not the caller's. `Holder.method` rows apply to objects a holder row",
        "made; `*.method` rows to a method of an object the analysis does not know (an",
        "executor, an event loop). Each row names the conformance case that shows it.",
        "",
        "## The vocabulary",
        "",
        "| Kind | Meaning |",
        "| --- | --- |",
        *(f"| `{kind}` | {meaning} |" for kind, meaning in KIND_MEANINGS.items()),
        "",
        "## The models",
        "",
        "| Callee | Kind | What it does to values | Case |",
        "| --- | --- | --- | --- |",
    ]
    for model in MODELS:
        lines.append(f"| `{model.callee}` | `{model.kind}` | {model.describe()} | `{model.case}` |")
    lines.append("")
    lines.append(f"{len(MODELS)} rows, {len({m.kind for m in MODELS})} kinds.")
    return "\n".join(lines) + "\n"


__all__ = [
    "ANY_RECEIVER",
    "BY_CALLEE",
    "FUNCTIONS",
    "HANDLE_LISTS",
    "HOLDERS",
    "MODELS",
    "FlowModel",
    "holder_class",
    "method_model",
    "render_markdown",
]
