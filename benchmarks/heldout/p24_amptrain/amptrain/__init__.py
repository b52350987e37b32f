"""Mixed-precision trainer whose fused kernels run on a fusion runtime's stream."""
