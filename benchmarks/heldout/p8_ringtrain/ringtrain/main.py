"""CLI: `python -m ringtrain.main --algo ring`."""

import argparse

import torch

from .bank import StreamBank, drain_live, publish_ring
from .comm import Algo, CommContext
from .hooks import background_flush, install_local_sync, mark_outputs
from .loop import run


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--algo", choices=[a.value for a in Algo], default="hccl")
    args = ap.parse_args(argv)
    algo = Algo(args.algo)
    model = torch.nn.Linear(8, 8).npu()
    embed = torch.nn.Embedding(100, 8).npu()
    install_local_sync(model, 0)
    mark_outputs(model, 0)
    run(model, embed, [], algo)  # expect: XST111
    publish_ring(0)
    drain_live()
    background_flush(CommContext())
    StreamBank(0).fence("step")
    torch.npu.synchronize()
