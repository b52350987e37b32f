from torch_npu.npu import *

ext = ExternalStream(h)
ext.synchronize()  # XST101
with stream(ext):
    super_kernel_scope_begin()  # XST108
