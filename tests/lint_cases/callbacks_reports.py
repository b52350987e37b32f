# XST109 host callbacks, XST110 report subscription.
import torch
import torch_npu

ext = torch.npu.ExternalStream(handle)
torch_npu.npu._launch_host_func(ext, fn, data)  # XST109
torch_npu.npu._launch_host_func(op_stream=ext, fn=fn, user_data=data)  # XST109
torch_npu.npu._subscribe_report(ext)  # XST110
torch_npu.npu._unsubscribe_report(ext)  # XST110

# Allowed on external streams.
torch_npu.npu._launch_host_func_pending(ext, fn, data)
s = torch.npu.Stream()
torch_npu.npu._launch_host_func(s, fn, data)
torch_npu.npu._subscribe_report(s)
