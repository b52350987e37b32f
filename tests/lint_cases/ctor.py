# XST001 / XST002: constructing external streams.
import ctypes

import torch
import torch_npu
from torch_npu.npu import ExternalStream, SyncLaunchStream

ExternalStream(0)  # XST001
ExternalStream(0x0)  # XST001
ExternalStream(None)  # XST001
ExternalStream(False)  # XST001
ExternalStream(True)  # XST001
ExternalStream(-1)  # XST001
ExternalStream(2**64 + 5)
ExternalStream(18446744073709551621)  # XST001
ExternalStream(1.0)  # XST001
ExternalStream("0x10")  # XST001
ExternalStream(ctypes.c_void_p(handle))  # XST001
ExternalStream(stream_ptr=0)  # XST001
torch.npu.Stream(stream_ptr=0)  # XST001
null = 0
ExternalStream(null)  # XST001

ExternalStream(handle, priority=-1)  # XST002
ExternalStream(handle, priority=prio)  # XST002
ExternalStream(handle, is_sync_launch=True)  # XST002
ExternalStream(handle, stream_id=3)  # XST002
ExternalStream(handle, device_type=20)  # XST002
ExternalStream(handle, device_index=1)  # XST002
ExternalStream(handle, 0, 0)  # XST002
torch.npu.Stream(stream_ptr=handle, priority=1)  # XST002
torch.npu.Stream(0, -1, stream_ptr=handle)  # XST002
SyncLaunchStream(stream_ptr=handle)  # XST002
torch_npu.npu.SyncLaunchStream(device=0, stream_ptr=handle)  # XST002

# Fine: real handles, defaults spelled out, device as second positional argument.
ExternalStream(handle)
ExternalStream(handle, 0)
ExternalStream(handle, device=1)
ExternalStream(handle, priority=0, is_sync_launch=0)
ExternalStream(ctypes.c_void_p(handle).value)
ExternalStream(int(handle))
ExternalStream(0xDEADBEEF)
torch.npu.Stream(stream_ptr=handle)
torch.npu.Stream(priority=-1)
SyncLaunchStream()
SyncLaunchStream(stream_ptr=0)
ExternalStream(*args)
ExternalStream(**kwargs)
torch.cuda.ExternalStream(0)
