"""Custom autograd functions, the loss head and gradient hooks."""

import torch
import torch.nn.functional as F


class ScaledGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return F.gelu(x) * scale

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(x / 1.4142135623730951))
        pdf = torch.exp(-0.5 * x * x) / 2.5066282746310002
        return grad_out * ctx.scale * (cdf + x * pdf), None


def scaled_gelu(x, scale=1.0):
    return ScaledGelu.apply(x, scale)


class SmoothedLoss:
    """Cross entropy with label smoothing, computed in float32 under autocast."""

    def __init__(self, eps: float = 0.1, ignore_index: int = -100):
        self.eps = eps
        self.ignore_index = ignore_index

    def __call__(self, logits, target):
        return F.cross_entropy(
            logits.float().flatten(0, -2),
            target.flatten(),
            label_smoothing=self.eps,
            ignore_index=self.ignore_index,
        )


def clip_hook(limit: float):
    def hook(grad):
        return grad.clamp(-limit, limit)

    return hook
