import torch_npu


def make_stream(device: int = 0):
    return torch_npu.npu.ExternalStream(11, device=device)
