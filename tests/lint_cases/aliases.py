# Every spelling of the class and of the modules.
import torch
import torch_npu
import torch_npu.npu as npu
import torch_npu.npu.streams
from torch.npu import ExternalStream as TorchExt
from torch_npu.npu import ExternalStream as X
from torch_npu.npu.streams import ExternalStream as StreamsExt
from torch import npu as tnpu

torch.npu.ExternalStream(h).synchronize()  # XST101
torch_npu.npu.ExternalStream(h).synchronize()  # XST101
torch_npu.npu.streams.ExternalStream(h).synchronize()  # XST101
torch.npu.streams.ExternalStream(h).synchronize()  # XST101
npu.ExternalStream(h).synchronize()  # XST101
tnpu.ExternalStream(h).synchronize()  # XST101
TorchExt(h).synchronize()  # XST101
X(h).query()  # XST102
StreamsExt(h).query()  # XST102
torch.npu.Stream(stream_ptr=h).synchronize()  # XST101
torch_npu.npu.Stream(0, stream_ptr=h).query()  # XST102
npu.graph_task_group_begin(X(h))  # XST107
torch_npu.npu.graphs.graph_task_group_begin(X(h))  # XST107

# torch.cuda.ExternalStream is CUDA's: CUDA supports all of this.
torch.cuda.ExternalStream(h).synchronize()
torch.cuda.Stream(stream_ptr=h).synchronize()
