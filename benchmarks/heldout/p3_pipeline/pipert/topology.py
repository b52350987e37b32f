"""Who is before and after whom."""

from typing import List, NamedTuple, Optional


class StageSpec(NamedTuple):
    rank: int
    device: int
    prev: Optional[int]
    next: Optional[int]

    @property
    def first(self) -> bool:
        return self.prev is None

    @property
    def last(self) -> bool:
        return self.next is None


def linear(world: int, devices_per_host: int = 8) -> List[StageSpec]:
    specs = []
    for r in range(world):
        specs.append(
            StageSpec(
                rank=r,
                device=r % devices_per_host,
                prev=r - 1 if r > 0 else None,
                next=r + 1 if r < world - 1 else None,
            )
        )
    return specs
