"""A small abstract interpreter over a libcst module: where do external streams flow?

It executes the module in program order with abstract values (:mod:`.values`): branches are
analysed separately and joined ("may be" when only some paths make a value external),
loops are run twice so values carried round the loop are seen, ``with`` blocks and
``set_stream`` move the *current* stream, and function bodies are analysed after the scope
that defines them, seeing that scope's bindings. Everything runs twice over the file: the
first pass only learns summaries (what functions return, what ``self.x`` holds, which names
a scope binds) so that the second, reporting pass does not depend on definition order.

No libcst metadata is used: it would cost more than the whole analysis budget.

This module is the public entry (``Interpreter(module, facts, module_name, is_package)``,
``.run()``, ``.summarise()``); the work is split by concern in :mod:`.interp`, one mixin
per concern, the way mypy splits its checker:

* :mod:`.interp.core`: the passes, scopes, names (bind, lookup, assignment targets), reporting;
* :mod:`.interp.statements`: statements and control flow;
* :mod:`.interp.loops`: what a loop carries round, and when to run its body again;
* :mod:`.interp.patterns`: the ``match`` statement, its patterns and guards;
* :mod:`.interp.imports`: import statements;
* :mod:`.interp.expressions`: expressions;
* :mod:`.interp.calls`: function definitions and calls;
* :mod:`.interp.applying`: a function's summary applied where it is called;
* :mod:`.interp.flows`: library calls, by the table of flow models (:mod:`..semantics.flowmodels`);
* :mod:`.interp.dispatch`: ``singledispatch`` registrations (imported modules' too) and calls;
* :mod:`.interp.gradmode`: grad-mode decorators and ``set_grad_enabled`` calls;
* :mod:`.interp.alternatives`: calls of a name bound to a different callee on each path;
* :mod:`.interp.arguments`: a call's arguments, spreads included (binding: :mod:`.binding`);
* :mod:`.interp.builtins`: the builtins that move values;
* :mod:`.interp.containers`: containers changed in place (``append``, ``d[k] = v``, ``get``);
* :mod:`.interp.library`: ``contextlib`` and ``itertools`` calls that pass values through;
* :mod:`.interp.higher_order`: closures, decorators, calls of function-valued parameters;
* :mod:`.interp.unpacking`: one unpacking routine for every binding site;
* :mod:`.interp.constants`: literal tests decide branches; summaries copied per literal;
* :mod:`.interp.classes`: classes, record fields and attribute reads;
* :mod:`.interp.datamodel`: enum members, descriptors, ``__new__``, metaclasses;
* :mod:`.interp.attributes`: attribute targets, setters and ``__set__``/``__delete__`` run;
* :mod:`.interp.objects`: the object model (construction, copies, holders, delegation);
* :mod:`.interp.guarantees`: what a class's own code gives every instance;
* :mod:`.interp.declared`: values known by a declared type (the class guarantees only);
* :mod:`.interp.receivers`: calls on ``self`` resolved where a summary is applied;
* :mod:`.interp.views`: subclasses' views of inherited methods (dispatch on ``self``);
* :mod:`.interp.registries`: what a function stores into registries it does not own;
* :mod:`.interp.narrowing`: annotations and the tests that narrow a stream.
"""

from __future__ import annotations

from .alternatives import Alternatives
from .applying import Applying
from .arguments import Arguments
from .attributes import Attributes
from .builtins import Builtins
from .calls import Calls
from .classes import Classes
from .constants import Constants
from .containers import Containers
from .core import Core
from .datamodel import DataModel
from .decisions import Decisions
from .declared import Declared
from .dispatch import Dispatch
from .expressions import Expressions
from .flows import Flows
from .globalreads import GlobalReads
from .gradmode import GradModes
from .guarantees import Guarantees
from .higher_order import HigherOrder
from .imports import Imports
from .library import Library
from .mappings import Mappings
from .narrowing import Narrowing
from .objects import Objects
from .patterns import Patterns
from .receivers import Receivers
from .registries import Registries
from .statements import Statements
from .unpacking import Unpacking
from .variants import Variants
from .views import Views

__all__ = ["Interpreter"]


class Interpreter(
    Statements,
    Patterns,
    Imports,
    Expressions,
    Calls,
    Applying,
    GradModes,
    Alternatives,
    Flows,
    Dispatch,
    HigherOrder,
    Constants,
    Variants,
    Decisions,
    Unpacking,
    Arguments,
    Builtins,
    Containers,
    Library,
    Classes,
    DataModel,
    Attributes,
    Objects,
    Mappings,
    Guarantees,
    Declared,
    Receivers,
    Registries,
    GlobalReads,
    Views,
    Narrowing,
    Core,
):
    """Runs the two passes over one module and collects :class:`Issue` objects.

    The constructor and :meth:`run` / :meth:`summarise` come from :class:`.interp.core.Core`;
    each other base executes one concern and reaches the others through ``self``.
    """
