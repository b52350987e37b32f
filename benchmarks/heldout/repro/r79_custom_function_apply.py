"""r79 (p24_amptrain trainer.py:76; hohz; fixed by 8f4fbde): ``Fn.apply(x)`` of a
``torch.autograd.Function`` subclass under the external stream, the loss built from it and
backwarded outside. ``apply`` is not defined by the class, so the call answered nothing (while
``fn = Fn.apply; fn(x)`` was already an unknown callable). Now computed under the current
stream from its arguments (conformance autograd/custom_function_apply)."""

import torch
import torch_npu


class Scaled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        return x * scale

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def main(handle: int, model, x) -> None:
    with torch.npu.stream(torch_npu.npu.ExternalStream(handle)):
        h = Scaled.apply(model.encoder(x), 0.5)
    model.head(h).sum().backward()  # expect: XST203
