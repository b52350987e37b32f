"""The project driver: one file's analysis end to end (``engine``), the project index that
summarises imported modules per import component bottom-up (``index``, ``components``,
``importer``), kept summaries and findings (``reuse``, ``digests``, ``shells``, ``entries``,
``cache``, ``projects``) and the statement budget (``budget``). The top of the analysis:
it runs the interpreter, nothing below imports it."""
