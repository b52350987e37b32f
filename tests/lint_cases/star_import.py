from torch_npu.npu import *

ext = ExternalStream(h)
ext.synchronize()  # EXS101
with stream(ext):
    super_kernel_scope_begin()  # EXS108
