"""A small graph compiler lowering op graphs onto NPU streams (some owned by a vendor runtime)."""
