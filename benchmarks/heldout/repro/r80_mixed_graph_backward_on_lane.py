"""r80 (p24_amptrain trainer.py:68; hohz; open): the loss is computed on the default stream,
then ``scaler.scale(loss).backward()`` runs under the external stream. ``scaler.scale(loss)``
is computed under the stream, and a value computed there keeps only the stream's part of its
operands (inputs computed before a region are data: docs/limitations.md), so the root looks
computed under the stream it is backwarded on. A "nodes of its own" bit on the plain part
(set by a forward: an unknown callable called with no external stream current) would find it,
but an unknown callable is also a tokenizer or a label smoother, whose outputs are data: a
label computed outside and a loss computed under the stream would then be a false alarm."""

import torch
import torch_npu


def main(handle: int, model, loss_fn, scaler, x, y) -> None:
    loss = loss_fn(model(x), y)
    with torch.npu.stream(torch_npu.npu.ExternalStream(handle)):
        scaler.scale(loss).backward()  # expect: XST203
