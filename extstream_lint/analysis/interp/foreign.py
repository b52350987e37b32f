"""Base classes of other modules, read for their method bodies: views across modules.

A subclass's view of an inherited method (:mod:`.views`) runs the base's body again with
``self`` an instance of the subclass. When the base is defined in another module of the
project, its summary says what its methods do for an instance of the base only: its
``__init__`` calling ``self._make()`` was learnt with the base's own ``_make``. Python looks
``_make`` up through the MRO of the instance's class, wherever the base was defined, so the
body must run again here, as it does for a base of this file.

A base of another module has a home: the module that defined it (:attr:`.values.ClassInfo.
module`). Only when a view is needed (what the subclass defines differently acts on streams,
:meth:`.views.Views._views_for`) is that module's text asked for (:meth:`.facts.ModuleFacts.
source`: parsed once per run, and what the importer's result rests on then includes the
text, so an edit of the base re-analyses the subclass's module on a warm cache). The class's
method bodies run in a scope whose globals are that module's summary, as Python runs them
in their own module's namespace.

The nodes of those bodies belong to another file: nothing is reported on them here (their
module's lint reports what happens there), and where a value made in them reaches a message
or a summary kept for other modules, it names its place in that file (:meth:`foreign_places`,
a :class:`.values.Remote`), as an imported summary does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import replace

import libcst as cst

from ..positions import locate
from ..sinks import Sink
from ..sites import Issue
from ..summaries import CallIssue
from ..syntax import children
from ..values import ClassInfo, FunctionInfo, Module, ParamRef, Remote
from .core import Scope


class ForeignBases:
    """The bodies of base classes defined in other modules, run here for views."""

    #: Per foreign class (by ``id``): its ``class`` statement, or ``None`` when its body
    #: cannot be had (not a project module, not found, defined more than once).
    _foreign_classes: dict[int, cst.ClassDef | None] | None = None
    #: Per foreign module read: (libcst tree, text, path as messages show it, CPython's
    #: tree, the ids of the nodes of its classes read here).
    _foreign_trees: dict[str, tuple[cst.Module, str, str, ast.Module | None, set[int]]] | None = (
        None
    )
    #: The ids of every node of a foreign class body read here (nothing reported on them).
    _foreign_nodes: set[int] | None = None
    #: Per view run from a foreign body: the rules it broke on streams it made itself, by
    #: (``id`` of the node, code), reported at its calls (:meth:`view_issues`).
    _own_issues: dict[FunctionInfo, dict[tuple[int, str], tuple[object, Issue]]] | None = None

    def may_be_foreign(self, base: ClassInfo) -> bool:
        """A class whose body is in the project: this file's, one of another module read
        already, or one of another module that may be read (:meth:`foreign_class`)."""
        if id(base) in self._class_nodes:
            return True  # already read (or of this file)
        return bool(base.module) and base.module != self.module_name and self.facts is not None

    def foreign_class(self, base: ClassInfo) -> cst.ClassDef | None:
        """The ``class`` statement of ``base``, a class of another module, read (once per
        interpreter) with its methods and scope registered as a class of this file's are;
        ``None`` if its body cannot be had."""
        known = self._foreign_classes
        if known is None:
            known = self._foreign_classes = {}
        if id(base) in known:
            return known[id(base)]
        known[id(base)] = None
        source = getattr(self.facts, "source", None)
        module = self._project_module(base.module)
        found = source(base.module) if source is not None and module is not None else None
        if found is None:
            return None
        tree, text, shown, python_tree = found
        node = _class_statement(tree, base.name)
        if node is None:
            return None
        trees = self._foreign_trees
        if trees is None:
            trees = self._foreign_trees = {}
        if base.module not in trees:
            trees[base.module] = (tree, text, shown, python_tree, set())
        nodes = trees[base.module][4]
        _collect_ids(node, nodes)
        if self._foreign_nodes is None:
            self._foreign_nodes = set()
        self._foreign_nodes |= nodes
        known[id(base)] = node
        self._class_nodes[id(base)] = node
        self._scopes[node] = self._foreign_scope(base, module)  # type: ignore[arg-type]
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                method = base.methods.get(statement.name.value)
                if isinstance(method, FunctionInfo):
                    self._functions[statement] = method
        return node

    def _foreign_scope(self, base: ClassInfo, module: Module) -> Scope:
        """The class scope a foreign method body runs in: its globals are what its module's
        summary says each module-level name holds."""
        exports = module.exports
        outer = Scope("module", None, set(exports), dict(exports))
        inner = Scope("class", outer)
        inner.cls = base
        return inner

    def is_foreign(self, node: object) -> bool:
        """A node of a foreign class body: nothing is reported on it in this file."""
        nodes = self._foreign_nodes
        return nodes is not None and id(node) in nodes

    def foreign_issue(self, anchor: object, issue: Issue) -> None:
        """A rule broken in another module's body, run here as a subclass's view, on a
        stream that is not the view's parameter: nothing is reported on that body in this
        file (its module's lint reports what it does alone). Where the stream is held by
        ``self`` (``self.s.synchronize()``, the subclass's maker made ``self.s``), it is a
        sink of the view on that attribute of ``self``: each call of the view is reported,
        here and in the modules importing this one, with the instance it is called on. A
        stream the body holds otherwise (``s = self._make(); s.synchronize()``) is the
        view's own: each call of the view in this file is reported (:meth:`view_issues`)."""
        info = self._function
        text = issue.text
        if not self.learning or info is None or info not in self._view_infos():
            return
        head, _, rest = (text or "").partition(".")
        if info.params and head == info.params[0][0] and rest:
            self._learn_sink(anchor, issue, ParamRef(info, 0, tuple(rest.split("."))))  # type: ignore[arg-type]
            return
        found = self._own_issues
        if found is None:
            found = self._own_issues = {}
        kept = found.setdefault(info, {})
        key = (id(anchor), issue.code)
        if key not in kept:
            kept[key] = (anchor, issue)
            info.summary.version += 1  # its callers must look again

    def view_issues(self, info: FunctionInfo, name: str) -> list[CallIssue]:
        """What a call of ``info`` (a view run from another module's body) reports in this
        file: the rules its body broke on streams it makes itself (:meth:`foreign_issue`)."""
        found = self._own_issues
        kept = found.get(info) if found is not None else None
        if not kept:
            return []
        issues = []
        for anchor, issue in kept.values():
            if isinstance(issue, CallIssue) and issue.sink is not None:
                sink = replace(issue.sink, through=(issue.callee, *issue.sink.through))
            else:
                target = f"'{issue.text}'" if issue.text else "a stream"
                must = issue.stream.must if issue.stream is not None else True
                sink = Sink(issue.code, issue.operation, anchor, target, must, issue.implicit)
            issues.append(
                CallIssue(
                    issue.code,
                    issue.operation,
                    issue.stream,
                    issue.text,
                    issue.implicit,
                    sink=sink,
                    callee=name,
                )
            )
        return issues

    def _view_infos(self) -> Iterable[FunctionInfo]:
        return self._views.values()

    def foreign_places(self, nodes: Iterable[object]) -> dict[int, Remote]:
        """Of ``nodes``, those of foreign class bodies, by ``id``, as places in their files."""
        trees = self._foreign_trees
        if not trees:
            return {}
        wanted = [node for node in nodes if self.is_foreign(node)]
        places: dict[int, Remote] = {}
        for tree, text, shown, python_tree, ids in trees.values():
            mine = [node for node in wanted if id(node) in ids]
            if not mine:
                continue
            found = locate(tree, mine, text, python_tree)  # type: ignore[arg-type]
            for node in mine:
                where = found.get(node)  # type: ignore[call-overload]
                places[id(node)] = Remote(shown, where[0] if where else 0)
        return places


#: Statements whose blocks are the module's top level still (``if TYPE_CHECKING:``, ``try:``).
_BLOCKS = (cst.If, cst.Try, cst.With, cst.Else, cst.Finally, cst.IndentedBlock, cst.ExceptHandler)


def _class_statement(tree: cst.Module, name: str) -> cst.ClassDef | None:
    """The one ``class name`` statement of a module's top level (through ``if``, ``try``
    and ``with`` blocks, not into functions or classes); ``None`` if none or several."""
    found: list[cst.ClassDef] = []
    stack: list[cst.CSTNode] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.ClassDef):
            if node.name.value == name:
                found.append(node)
        elif isinstance(node, _BLOCKS):
            stack.extend(children(node))
    return found[0] if len(found) == 1 else None


def _collect_ids(node: cst.CSTNode, into: set[int]) -> None:
    stack = [node]
    while stack:
        item = stack.pop()
        into.add(id(item))
        stack.extend(children(item))


__all__ = ["ForeignBases"]
