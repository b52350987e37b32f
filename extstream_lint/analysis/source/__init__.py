"""A module's text: both parsers (CPython's first, then libcst's), positions matched between
their trees, and the statement bodies the interpreter walks. Imports nothing else of the
analysis: every part above reads source through it."""
