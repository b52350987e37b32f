"""The front ends: what a user runs and reads, above the analysis.

The CLI (``cli``) and the flake8 adapter (``flake8_plugin``) turn files into findings through
:mod:`extstream_lint.analysis`; ``config`` reads ``[tool.extstream]``, ``noqa`` applies
suppressions, ``formats`` writes text, JSON, SARIF and GitHub annotations, and ``docs``
renders the rule pages from the contract. Nothing below this layer imports it.
"""
