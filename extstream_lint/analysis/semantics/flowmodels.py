"""What library calls do to values, as data: one table of flow models (issue 38, family 4).

A value the analysis follows passes through the standard library (a queue, a weak
reference, an executor, a context variable, ``operator``'s callables, ``collections``...).
The library's code is not analysed; what each call does to the values it is given is written
down here, one row per callee, in a small vocabulary of kinds (as CodeQL's models-as-data and
Pysa's model files do), and :mod:`..interp.flows` is the one routine that applies a row.
Adding a model is adding a row here and a conformance case (``tests/conformance/fixtures/``,
named by the row's ``case``; a test checks it exists). ``docs/flow-models.md`` is rendered
from this table (``python -m extstream_lint.frontends.flowdocs --write``).

A row's ``callee`` is how the call is named:

* a qualified name (``queue.Queue``, ``copy.copy``): a call of that function or class;
* ``Holder.method`` (``queue.Queue.put``): a method of an object a ``HOLDER`` row made (a
  holder row's ``like`` names the class whose method rows it shares: ``queue.LifoQueue``
  is used as ``queue.Queue`` is);
* ``*.method`` (``*.submit``): a method of an object the analysis does not know (the
  executors and event loops are not followed as objects: their methods are known by name);
* ``builtins.NAME`` (``builtins.zip``): the builtin, called by its name while the module
  does not rebind it.

What stays code is the language's semantics, not a library call's behaviour (each listed
with why on the page, from ``frontends/flowdocs.py``'s ``IN_CODE``): the attribute protocol
(``getattr``...), the class of a value (``type``), truth (``bool``), the import hook
(``__import__``), and the built-in containers' methods, which change a list or dict in
place (the interpreter binds the changed value again to what names it, as an assignment
does).
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
ATTRIBUTES = "attributes"
DISPATCHER = "dispatcher"
REGISTERS = "registers"
HANDLES = "handles"
MAPPING_VIEW = "mapping-view"
# the iterables' kinds (the builtins' and ``itertools``'s shapes)
SEQUENCE = "sequence"
ELEMENT = "element"
ZIPS = "zips"
PAIRS = "pairs"
COMBINES = "combines"
CHAINS = "chains"
SLICES = "slices"
REPEATS = "repeats"
TEES = "tees"
PICKS = "picks"
IMPORTS = "imports"
BINDS = "binds"
REPLACES = "replaces"
WORKERS = "workers"
#: The kinds whose objects have method rows.
_MAKES_OBJECTS = (HOLDER, DISPATCHER, WORKERS)

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
    SEQUENCE: "{order}",
    ATTRIBUTES: "an object whose attributes are its keyword arguments",
    DISPATCHER: "a function calling the implementation registered for the class of its "
    "first argument, else {arg}",
    REGISTERS: "registers {arg} (or its first parameter's annotation) as the class of an "
    "implementation",
    HANDLES: "returns a list of the handles the contract's row for the call yields (one per "
    "operation of {arg})",
    MAPPING_VIEW: "on a parameter: its values (`items()`: paired with its keys), read where "
    "the caller's mapping is known",
    ELEMENT: "returns an element of {arg}",
    ZIPS: "the returned iterable holds tuples of an element of each argument from {arg} on",
    PAIRS: "the returned iterable holds pairs ({shape})",
    COMBINES: "the returned iterable holds tuples of any elements of {arg}",
    CHAINS: "the returned iterable holds {chained}, in order when each is known",
    SLICES: "the elements of {arg} between literal bounds, else any of them",
    REPEATS: "the returned iterable holds {arg}",
    TEES: "`n` (the next argument, else 2) iterators over the elements of {arg}",
    PICKS: "returns one of its arguments, or an element of {arg} when it is the only one "
    "(else it is computed, as an unknown call's result)",
    IMPORTS: "imports the module named by the literal {arg} as `import` does (its effects "
    "run) and returns it",
    BINDS: "returns a callable that calls {arg} with the arguments after it, then its own",
    REPLACES: "a copy of {arg} whose attributes named by the keywords are their values",
    WORKERS: "makes a pool of worker threads, each of which first calls {arg} with `initargs` "
    "(what it leaves current is current for the functions the method rows run there)",
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
#: What a ``CALLS`` row gives the function: like :data:`EACH_ELEMENT`, an external stream
#: listed in an iterable first (``map(f, [side, ext])`` surely calls ``f(ext)``).
MAPPED = "mapped"
_ARGS_TEXT[MAPPED] = "an element of each iterable after it (an external stream listed there first)"

#: The order a ``SEQUENCE`` row keeps (``order``).
SAME = "same"  #: the same elements, in order, when they are known (``list``, ``iter``)
REVERSED = "reversed"  #: reversed, when they are known (``reversed``)
ANY = "any"  #: any element, the order unknown (``sorted``, ``set``)
_ORDER_TEXT = {
    SAME: "the elements of {arg}, in order when they are known",
    REVERSED: "the elements of {arg}, reversed when they are known",
    ANY: "any element of {arg}, in no known order",
}
#: What a ``PAIRS`` row's pairs hold (``shape``): ``?`` a value not followed (an index, a
#: key), ``e`` an element of the argument, ``E`` an iterable of its elements.
_SHAPE_TEXT = {
    "?": "a value not followed",
    "e": "an element of {arg}",
    "E": "an iterable of elements of {arg}",
}


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
    #: ``SEQUENCE``: the order kept (:data:`SAME`, :data:`REVERSED`, :data:`ANY`), and
    #: whether a call with no argument makes an empty one (``list()``, ``deque(maxlen=n)``).
    order: str = ""
    empty: bool = False
    #: A function called on an element of the row's argument: a keyword (``sorted``'s
    #: ``key=``) or a position (``filter``'s function).
    key: str | int | None = None
    #: ``ELEMENTS``: an argument (position, keyword) with which nothing is known of the
    #: result (``accumulate``'s ``func``: what it returns, not the elements).
    unless: tuple[int, str] | None = None
    #: ``ZIPS``: the keyword whose value fills in for the shorter iterables (else ``None``).
    fill: str = ""
    #: ``*args`` of unknown length: any element of any argument (else nothing known).
    spread: bool = False
    #: ``PAIRS``: what each pair holds (two letters of :data:`_SHAPE_TEXT`).
    shape: str = ""
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
        arg = self.argument_text()
        text = KINDS[self.kind].format(
            arg=arg,
            args=_ARGS_TEXT[self.args],
            order=_ORDER_TEXT.get(self.order, "").format(arg=arg),
            shape=", ".join(_SHAPE_TEXT[c].format(arg=arg) for c in self.shape),
            chained="the elements of each argument"
            if self.arg is None
            else f"the elements of each element of {arg}",
        )
        if self.kind == SEQUENCE and self.empty:
            text += "; with no argument, an empty one"
        if self.kind == ELEMENTS and self.unless is not None:
            text += f"; nothing known when argument {self.unless[0]} / `{self.unless[1]}=` is given"
        if self.kind == ZIPS and self.fill:
            text += f" (or `{self.fill}=`, `None` by default, for the shorter ones)"
        if isinstance(self.key, str):
            text += f"; calls `{self.key}=` on an element"
        elif self.key is not None:
            text += f"; calls argument {self.key} on each element"
        if self.spread:
            text += "; given `*args` of unknown length, any element of any argument"
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
        if self.kind in _MAKES_OBJECTS and self.like:
            text += f"; its methods are `{self.like}`'s"
        if self.kind == HOLDER and self.shared:
            text += "; one holder per place it is made, seen from every thread"
        return text


#: ``functools.singledispatchmethod``: dispatches on the argument after ``self``.
METHOD_DISPATCHER = "functools.singledispatchmethod"


def _holder(name: str, like: str = "", shared: bool = True, case: str = "") -> FlowModel:
    return FlowModel(name, HOLDER, shared=shared, like=like, case=case)


_Q = "library_flow/"
#: The classes whose method rows the pools of worker threads share.
_EXECUTOR, _POOL = "concurrent.futures.Executor", "multiprocessing.pool.ThreadPool"
_H = "hazard_flow/"
#: The prefix of the builtins' rows.
BUILTIN = "builtins."

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
    # pools of threads: each worker runs the initializer first, then the functions given
    *(
        FlowModel(name, WORKERS, at, "initializer", like=like, extra=(at + 1, -1), case=_H + case)
        for name, at, like, case in (
            ("concurrent.futures.ThreadPoolExecutor", 2, _EXECUTOR, "executor_initializer_lane"),
            (_POOL, 1, "", "thread_pool_initializer_apply"),
            ("multiprocessing.dummy.Pool", 1, _POOL, "thread_pool_initializer_map"),
        )
    ),
    *(
        FlowModel(
            f"{pool}.{name}",
            CALLS,
            0,
            "fn" if pool == _EXECUTOR else "func",
            args=args,
            runs=THREAD,
            extra=(1, 2),
            result=result,
            case=_H + case,
        )
        for pool, name, args, result, case in (
            (_EXECUTOR, "submit", REST, FUTURE, "executor_initializer_lane"),
            (_EXECUTOR, "map", EACH_ELEMENT, RESULTS, "executor_initializer_map"),
            (_POOL, "apply", THREAD_ARGS, RESULT, "thread_pool_initializer_apply"),
            (_POOL, "apply_async", THREAD_ARGS, NOTHING, "thread_pool_initializer_apply"),
            (_POOL, "map", EACH_ELEMENT, RESULTS, "thread_pool_initializer_map"),
            (_POOL, "imap", EACH_ELEMENT, RESULTS, "thread_pool_initializer_map"),
            (_POOL, "imap_unordered", EACH_ELEMENT, RESULTS, "thread_pool_initializer_map"),
            (_POOL, "map_async", EACH_ELEMENT, NOTHING, "thread_pool_initializer_map"),
        )
    ),
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
    *(
        FlowModel(f"*.{name}", CALLS, 0, "hook", runs=LATER, case=_Q + "torch_hook_family")
        for name in (
            "register_post_accumulate_grad_hook",  # Tensor: after .grad is accumulated
            "register_prehook",  # autograd's Node: before it runs
            "register_forward_pre_hook",  # Module
            "register_full_backward_hook",
            "register_full_backward_pre_hook",
            "register_backward_hook",
            "register_step_pre_hook",  # Optimizer
            "register_step_post_hook",
        )
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
    FlowModel(
        "collections.deque",
        SEQUENCE,
        0,
        "iterable",
        order=SAME,
        empty=True,
        case="containers/deque",
    ),
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
    # --- the builtins and itertools (moved from interp/builtins.py, interp/library.py) ---
    # builtins: rows named ``builtins.NAME``, followed while the module does not rebind NAME
    FlowModel("builtins.dict", DICT, case="containers/zip_dict"),
    FlowModel(
        "builtins.list", SEQUENCE, 0, order=SAME, empty=True, case="containers/list_constructor"
    ),
    FlowModel("builtins.tuple", SEQUENCE, 0, order=SAME, case="assignment/unpack_tuple_genexpr"),
    FlowModel("builtins.iter", SEQUENCE, 0, order=SAME, case="generators/iter_next"),
    FlowModel("builtins.reversed", SEQUENCE, 0, order=REVERSED, case=_Q + "reversed_builtin"),
    FlowModel("builtins.set", SEQUENCE, 0, order=ANY, empty=True, case=_Q + "set_builtin"),
    FlowModel("builtins.frozenset", SEQUENCE, 0, order=ANY, case=_Q + "set_builtin"),
    FlowModel("builtins.sorted", SEQUENCE, 0, order=ANY, key="key", case="functions/sorted_key"),
    FlowModel("builtins.filter", ELEMENTS, 1, key=0, case=_Q + "filter_builtin"),
    FlowModel("builtins.min", PICKS, 0, key="key", case="functions/min_max_key"),
    FlowModel("builtins.max", PICKS, 0, key="key", case="functions/min_max_key"),
    FlowModel("builtins.next", ELEMENT, 0, case="generators/next_builtin"),
    FlowModel("builtins.anext", ELEMENT, 0, case="data_model/async_generator_anext"),
    FlowModel(
        "builtins.enumerate",
        PAIRS,
        0,
        "iterable",
        shape="?e",
        case="generators/enumerate_generator",
    ),
    FlowModel("builtins.zip", ZIPS, 0, case="assignment/for_zip"),
    FlowModel("builtins.map", CALLS, 0, args=MAPPED, result=RESULTS, case="functions/map_builtin"),
    # itertools
    FlowModel("itertools.chain", CHAINS, spread=True, case="generators/itertools_chain"),
    FlowModel(
        "itertools.chain.from_iterable", CHAINS, 0, case="generators/itertools_from_iterable"
    ),
    FlowModel("itertools.islice", SLICES, 0, case="generators/itertools_islice"),
    FlowModel("itertools.repeat", REPEATS, 0, "object", case="generators/itertools_repeat_cycle"),
    FlowModel(
        "itertools.accumulate",
        ELEMENTS,
        0,
        "iterable",
        unless=(1, "func"),
        case=_Q + "itertools_accumulate",
    ),
    FlowModel(
        "itertools.zip_longest",
        ZIPS,
        0,
        fill="fillvalue",
        spread=True,
        case="generators/itertools_zip_longest",
    ),
    FlowModel("itertools.product", ZIPS, 0, spread=True, case="generators/itertools_product"),
    FlowModel("itertools.pairwise", PAIRS, 0, shape="ee", case=_Q + "itertools_pairwise"),
    FlowModel("itertools.groupby", PAIRS, 0, "iterable", shape="?E", case=_Q + "itertools_groupby"),
    FlowModel(
        "itertools.permutations", COMBINES, 0, "iterable", case=_Q + "itertools_combinations"
    ),
    FlowModel(
        "itertools.combinations", COMBINES, 0, "iterable", case=_Q + "itertools_combinations"
    ),
    FlowModel(
        "itertools.combinations_with_replacement",
        COMBINES,
        0,
        "iterable",
        case=_Q + "itertools_combinations",
    ),
    FlowModel("itertools.tee", TEES, 0, case="generators/itertools_tee"),
    # importlib: the import system's, given a literal name
    FlowModel("importlib.import_module", IMPORTS, 0, "name", case="imports/importlib_literal"),
    # functools.partial, enum's marks, dataclasses.replace (were interp/calls.py, objects.py)
    FlowModel("functools.partial", BINDS, 0, case="calls/partial_helper"),
    FlowModel("enum.member", RETURNS, 0, "value", case="data_model/enum_member_function"),
    FlowModel("enum.nonmember", RETURNS, 0, "value", case=_Q + "enum_nonmember"),
    FlowModel("dataclasses.replace", REPLACES, 0, case="dataclasses/replace"),
    # --- end of the moved rows ---
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
HOLDERS: dict[str, FlowModel] = {m.callee: m for m in MODELS if m.kind in _MAKES_OBJECTS}
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
    if not m.callee.startswith(("*.", BUILTIN))
    and m.callee.rsplit(".", 1)[0] not in _HOLDER_CLASSES
    and m.kind != HANDLES
)
#: The builtins' rows by the builtin's name (a call of a name the module does not rebind).
BUILTINS: dict[str, FlowModel] = {
    m.callee[len(BUILTIN) :]: m for m in MODELS if m.callee.startswith(BUILTIN)
}
#: The kinds over iterables (:mod:`..interp.library` applies them).
ITERABLE_KINDS = frozenset(
    {SEQUENCE, ELEMENT, ZIPS, PAIRS, COMBINES, CHAINS, SLICES, REPEATS, TEES, PICKS, IMPORTS}
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


__all__ = [
    "ANY_RECEIVER",
    "BUILTINS",
    "BY_CALLEE",
    "FUNCTIONS",
    "HANDLE_LISTS",
    "HOLDERS",
    "MODELS",
    "FlowModel",
    "holder_class",
    "method_model",
]
