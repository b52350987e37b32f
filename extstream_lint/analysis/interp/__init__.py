"""The abstract interpreter, split by concern (the public entry is :mod:`..interpreter`).

``core`` runs the passes and owns scopes, names and reporting; ``statements`` executes
statements and control flow (assignments, ``if``/loops/``try``/``with``/``match``, imports);
``expressions`` evaluates expressions; ``calls`` defines functions and applies calls
(summaries, torch APIs); ``arguments`` evaluates a call's arguments (spreads included);
``builtins`` follows the builtins that move values; ``classes`` builds classes and reads attributes
(record fields, ``super()``); ``narrowing`` reads annotations and the tests that narrow a
stream to external or not. Each is a mixin of the one ``Interpreter`` class, so the dispatch
of ``exec_*`` and ``_eval_*`` stays one attribute lookup.
"""
