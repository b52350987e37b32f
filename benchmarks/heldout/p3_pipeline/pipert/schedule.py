"""1F1B schedule as a stream of actions."""

from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True)
class Action:
    kind: str  # "fwd", "bwd", "send_act", "recv_act", "send_grad", "recv_grad"
    mb: int


def one_f_one_b(n_micro: int, n_stages: int, stage: int) -> Iterator[Action]:
    warmup = min(n_stages - stage - 1, n_micro)
    f = b = 0
    for _ in range(warmup):
        yield Action("recv_act", f)
        yield Action("fwd", f)
        yield Action("send_act", f)
        f += 1
    while b < n_micro:
        if f < n_micro:
            yield Action("recv_act", f)
            yield Action("fwd", f)
            yield Action("send_act", f)
            f += 1
        yield Action("recv_grad", b)
        yield Action("bwd", b)
        yield Action("send_grad", b)
        b += 1
