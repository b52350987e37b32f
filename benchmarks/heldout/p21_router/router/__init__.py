"""Request router: lanes of a vendor decode runtime beside torch_npu's own streams."""
