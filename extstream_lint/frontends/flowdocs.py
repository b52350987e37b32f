"""``docs/flow-models.md``, rendered from the flow-model table.

The table (:mod:`extstream_lint.analysis.semantics.flowmodels`) is what the analysis applies
to library calls; the page is the same rows as a reader sees them, so it cannot say what the
analysis does not do. A test fails while the page is stale; regenerate it with::

    python -m extstream_lint.frontends.flowdocs --write
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..analysis.semantics import flowmodels as fm
from ..analysis.semantics.flowmodels import MODELS

#: The checkout: this module is ``extstream_lint/frontends/flowdocs.py`` in it.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLOW_MODELS_PAGE = "docs/flow-models.md"
FLOW_MODELS_PATH = os.path.join(_CHECKOUT, *FLOW_MODELS_PAGE.split("/"))


#: Each kind in general, for the documentation's vocabulary table.
KIND_MEANINGS: dict[str, str] = {
    fm.RETURNS: "argument i flows to the return",
    fm.ENTERS: "`with call(x) as v`: v is argument i",
    fm.ELEMENTS: "the return iterates elements of argument i",
    fm.HOLDER: "makes an object whose contents its method rows move",
    fm.STORES: "argument i flows into the receiver's contents",
    fm.LOADS: "the method returns the receiver's contents (joined with argument i when given)",
    fm.CALLS: "calls argument i with given arguments, here, in another thread or later",
    fm.FOLDS: "calls argument i as `functools.reduce` does",
    fm.CALLS_METHOD: "returns a callable calling method NAME of its argument",
    fm.GETS_ATTRIBUTE: "returns a getter of attributes",
    fm.GETS_ITEM: "returns a getter of items",
    fm.DICT: "a dict of the arguments",
    fm.DEFAULT_DICT: "a dict whose missing keys read a factory's result; stored keys keep theirs",
    fm.CHAIN_MAP: "a dict of several mappings, looked up in order",
    fm.SEQUENCE: "a copy of argument i's elements: in order, reversed or in any order",
    fm.ATTRIBUTES: "an object whose attributes are the keyword arguments",
    fm.DISPATCHER: "calls the implementation registered for its first argument's class",
    fm.REGISTERS: "registers an implementation for a class (at a module's top level: for "
    "every module that imports it too)",
    fm.HANDLES: "a refused call of the contract returning a list of its handles, not one",
    fm.MAPPING_VIEW: "`values()`/`items()` of a parameter: the caller's mapping's values",
    fm.ELEMENT: "returns an element of argument i (`next`)",
    fm.ZIPS: "the return iterates tuples of an element of each argument (`zip`)",
    fm.PAIRS: "the return iterates pairs made of argument i's elements (`enumerate`)",
    fm.COMBINES: "the return iterates tuples of argument i's elements (`combinations`)",
    fm.CHAINS: "the return iterates each argument's elements in turn (`chain`)",
    fm.SLICES: "the return iterates a slice of argument i's elements (`islice`)",
    fm.REPEATS: "the return iterates argument i itself (`repeat`)",
    fm.TEES: "the return is n iterators over argument i's elements (`tee`)",
    fm.PICKS: "returns one of the arguments or of argument i's elements (`min`)",
    fm.IMPORTS: "imports the module a literal names, as the `import` statement does",
    fm.BINDS: "returns a callable binding argument i's first arguments (`partial`)",
    fm.REPLACES: "a copy of argument i with attributes replaced (`dataclasses.replace`)",
    fm.WORKERS: "a pool of threads each calling argument i (the initializer) first, its "
    "methods calling functions after it in those threads",
}


#: What is not a row, and why: (where in code, what, the language semantics it is).
IN_CODE: tuple[tuple[str, str, str], ...] = (
    (
        "interp/builtins.py",
        "`getattr`, `setattr`, `vars`",
        "attribute access and assignment and an object's `__dict__` (reference 3.3.2): "
        "what `obj.name` does, `__getattr__` delegation included",
    ),
    (
        "interp/builtins.py",
        "`type`, `staticmethod`",
        "a value's class (reference 3.1) and the descriptor a method definition makes (3.3.2.2)",
    ),
    ("interp/builtins.py", "`bool`", "truth value testing, as `if x` decides it"),
    (
        "interp/builtins.py",
        "`isinstance`",
        "a type test; `isinstance(x, type(None))` tests None-ness as `x is None` does",
    ),
    (
        "interp/builtins.py",
        "`__import__`",
        "the hook the `import` statement calls (reference 5); `importlib.import_module` "
        "is the row `imports`, which runs the same import",
    ),
    (
        "interp/containers.py",
        "methods of a known list, dict, set or deque (`append`, `extend`, `insert`, `get`, "
        "`setdefault`, `pop`, `popleft`, `popitem`, `update`, `clear`, `add`, `copy`, "
        "`items`, `values`) and a generator's `send`/`__next__`",
        "the built-in containers the analysis represents as values (displays, `d[k]`, "
        "`d[k] = v`, `for`): a method that changes one in place binds the changed value "
        "again to the expression that names it, as an assignment does, which a row (values "
        "in, a value out) cannot say; resuming a generator is the generator protocol "
        "(reference 6.2.9.1)",
    ),
    (
        "interp/objects.py",
        "the functional `collections.namedtuple(...)`, `typing.NamedTuple(...)`",
        "class creation: the class a `class P(NamedTuple)` body makes, with its fields and "
        "generated `__init__`; a class, not a value flow",
    ),
    (
        "interp/calls.py, interp/declared.py",
        "`typing.cast(T, v)`",
        "a declared type: `v` read as a `T`, as an annotation declares it (declared.py "
        "reads annotations and `cast` alike)",
    ),
    (
        "interp/calls.py, interp/classes.py",
        "decorators by name: `contextlib.contextmanager`/`asynccontextmanager`, `property`/"
        "`functools.cached_property`, `dataclasses.dataclass` (and attrs)",
        "how a `def` or `class` body is run: a generator's body up to `yield` as `__enter__`, "
        "a method read as an attribute (a descriptor, reference 3.3.2.2), a generated "
        "`__init__`; the body is interpreted, not a value moved by a call",
    ),
)


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
    lines += [
        "",
        "## What stays in code, and why",
        "",
        "A row says what a library call does to values. What the language itself does",
        "(attribute access, a value's type, truth, importing, changing a container in place,",
        "making a class, declaring a type) is the interpreter's, even where a builtin or a",
        "library function spells it as a call:",
        "",
        "| Where | What | The language semantics it is |",
        "| --- | --- | --- |",
        *(f"| `{where}` | {what} | {why} |" for where, what, why in IN_CODE),
    ]
    return "\n".join(lines) + "\n"


def check(path: str = FLOW_MODELS_PATH) -> bool:
    """Whether the page at ``path`` is what the table renders."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read() == render_markdown()
    except OSError:
        return False


def write(path: str = FLOW_MODELS_PATH) -> bool:
    """Rewrite the page; whether it changed."""
    if check(path):
        return False
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(render_markdown())
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m extstream_lint.frontends.flowdocs [--write | --check]``; prints the page
    without either."""
    parser = argparse.ArgumentParser(prog="python -m extstream_lint.frontends.flowdocs")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help=f"rewrite {FLOW_MODELS_PAGE}")
    group.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    if args.write:
        if write():
            print(f"wrote {FLOW_MODELS_PATH}")
        return 0
    if args.check:
        if check():
            return 0
        print(f"{FLOW_MODELS_PAGE}: stale; run python -m extstream_lint.frontends.flowdocs --write")
        return 1
    sys.stdout.write(render_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
