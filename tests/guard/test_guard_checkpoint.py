"""``torch.utils.checkpoint`` over an external-stream region (issue 40; hazards.md, hazard 3).

Checkpointing keeps no activations of the region: the backward pass recomputes them inside the
engine, on the device's engine thread under the checkpoint node's stream (``use_reentrant=True``
runs a nested ``backward()`` there; ``use_reentrant=False`` recomputes from a saved-tensor
hook). The nodes the recomputation makes therefore carry the same stream as those the forward
made, so hazard 3 is decided as for any graph: forward and backward under the same external
stream is safe (every node, the leaf's accumulator included, was made under it); a forward
under it and a backward outside it, or the reverse, is XST203 before the engine runs (X07 and
an abort at the gradient's free without the guard). The nested backward of the reentrant
variant, started on the engine thread, must not be refused.
"""

from __future__ import annotations

from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError

HANDLE = 0x7E57_0000


def _block(x: Any) -> Any:
    return (x * 2).sin()


def _expected_grad() -> Any:
    import torch

    return (torch.tensor([1.0, 2.0, 3.0, 4.0]) * 2).cos() * 2


def _run(sim: Any, reentrant: bool, forward_in: bool, backward_in: bool) -> Any:
    from torch.utils.checkpoint import checkpoint

    from tests.guard import npusim

    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)
    x = npusim.npu_tensor(requires_grad=True)
    if forward_in:
        with npu.stream(ext):
            loss = checkpoint(_block, x, use_reentrant=reentrant).sum()
    else:
        loss = checkpoint(_block, x, use_reentrant=reentrant).sum()
    if backward_in:
        with npu.stream(ext):
            loss.backward()
    else:
        loss.backward()
    return x


@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non-reentrant"])
@pytest.mark.parametrize("inside", [True, False], ids=["in-region", "outside"])
def test_checkpoint_forward_and_backward_on_one_stream(
    sim: Any, reentrant: bool, inside: bool
) -> None:
    """Both passes under the external stream (the recomputation too): nothing to refuse,
    gradients as without checkpointing, on the NPU."""
    import torch

    x = _run(sim, reentrant, forward_in=inside, backward_in=inside)
    assert x.grad.device == torch.device("npu", 0)
    assert torch.allclose(x.grad.cpu(), _expected_grad())


@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non-reentrant"])
@pytest.mark.parametrize(
    "forward_in", [True, False], ids=["forward-in-region", "backward-in-region"]
)
def test_checkpoint_across_the_region_boundary_is_xst203(
    sim: Any, reentrant: bool, forward_in: bool
) -> None:
    """One pass inside, the other outside: XST203 from ``backward()``, before the engine (the
    ``sim`` fixture fails the test had the simulated torch_npu aborted)."""
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        _run(sim, reentrant, forward_in=forward_in, backward_in=not forward_in)
