"""torch_npu's semantics, as the contract table states them: which calls are refused
(``effects``), which deferred failures a call sets up (``hazards``, ``copies``, ``devices``),
where autograd graphs were computed (``provenance``) and how a call site is described
(``sites``). Reads abstract values; knows nothing of how they were computed."""
