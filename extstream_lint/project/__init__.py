"""The project model: finding, reading and caching a project's files, and its import graph.

Below the analysis and above the contract: discovery of files (``discovery``, ``gitignore``),
reading them once per run (``sources``, ``diskio``, ``safe_pickle``), module names and
import roots (``modules``), the import graph and its cycles (``graph``), and the cheap
questions asked before any parse (``markers``, ``names``, ``census``, ``prefilter``). It
knows nothing of libcst or of the analysis, so flake8's path through it stays light.
"""
