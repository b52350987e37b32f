"""The conformance suite (issue 27): Python constructs an external stream travels through.

``python -m tests.conformance`` prints the matrix; ``--write`` regenerates
``docs/conformance.md``. How the cases are written and run: :mod:`tests.conformance.suite`.
"""
