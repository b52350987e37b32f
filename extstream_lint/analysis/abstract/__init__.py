"""The abstract domain: the values the interpreter tracks (streams, handles, tensors, objects,
callables, containers), how two of them join where control flow meets, the interpreter's state,
parameter paths, sinks and what a module exports. Pure data and lattice operations: nothing
here knows torch_npu's rules (:mod:`..semantics`) or runs code (:mod:`..interp`)."""
