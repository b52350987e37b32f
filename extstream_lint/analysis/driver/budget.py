"""The last line of defence against a run that does not end: a budget per module analysed.

The project model keeps the work linear (each module summarised once per run, a cycle
iterated a bounded number of rounds), and the interpreter bounds its own passes. Should a
construct still make one module's analysis explode, the statements it executes are
counted here, and past :data:`STATEMENTS` the analysis of that module stops: the file
being linted gets one XST000 finding naming itself and the budget, an imported module is
treated as unknown, and the run goes on.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..interp.interpreter import Interpreter

#: Statement executions one module's analysis may take (all passes, every function body
#: run). The largest file of the standard library takes well under a tenth of it.
STATEMENTS = 2_000_000


class BudgetExceeded(Exception):
    """One module's analysis executed more statements than its budget allows."""

    def __init__(self, budget: int) -> None:
        super().__init__(f"more than {budget:,} statement executions")
        self.budget = budget


class BudgetedInterpreter(Interpreter):
    """The interpreter, counting the statements it executes (through its one statement
    dispatch, ``exec_stmt``); raises :class:`BudgetExceeded` past ``budget``."""

    def __init__(self, *args: Any, budget: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.budget = STATEMENTS if budget is None else budget
        self.executed = 0

    def exec_stmt(self, stmt: cst.CSTNode, state: Any, scope: Any) -> Any:
        self.executed += 1
        if self.executed > self.budget:
            raise BudgetExceeded(self.budget)
        return super().exec_stmt(stmt, state, scope)
