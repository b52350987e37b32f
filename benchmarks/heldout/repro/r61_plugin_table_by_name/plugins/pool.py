import torch


def make_stream(device: int = 0):
    return torch.npu.Stream(device=device)
