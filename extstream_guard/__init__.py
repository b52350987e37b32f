"""extstream_guard: runtime guard for torch_npu's ExternalStream (work in progress)."""
