# No import at all: `import torch` loads torch_npu by itself, and snippets omit imports.
ext = torch.npu.ExternalStream(h)
ext.synchronize()  # XST101
