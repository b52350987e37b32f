# XST111 collectives while an external stream is current.
import torch
import torch.distributed as dist
import torch_npu
from torch.distributed import all_gather, barrier
from torch_npu.npu import ExternalStream

ext = ExternalStream(handle)
work = dist.all_reduce(t, async_op=True)
with torch.npu.stream(ext):
    y = model(x)
    dist.all_reduce(y)  # XST111
    torch.distributed.broadcast(y, src=0)  # XST111
    all_gather(out, y)  # XST111
    barrier()  # XST111
    dist.send(y, dst=1)  # XST111
    req = dist.isend(y, dst=1)  # XST111
    req.wait()  # XST111
    work.wait()  # XST111
    torch_npu.distributed.all_gather_into_tensor_uneven(out, y)  # XST111
    dist.get_rank()
    dist.get_world_size()

dist.all_reduce(y)
work.wait()

torch.npu.set_stream(ext)
dist.all_reduce(y)  # XST111
torch.npu.set_stream(torch.npu.default_stream())
dist.all_reduce(y)
