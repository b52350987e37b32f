"""A join of many symbolic streams in one pass (:func:`.values.join`'s rules, step by step).

A value that may be any of k parameter paths was joined one path at a time where a summary
is applied (:func:`..interp.summaries.substitute`), each step a new tuple of up to k paths,
every one hashed: quadratic in k (joins of 30 paths with one were common on the stdlib).
"""

from __future__ import annotations

from .atoms import ExtStream
from .records import renewed

__all__ = ["StreamUnion"]


class StreamUnion:
    """``join(join(base, b1), b2)...`` of symbolic streams whose paths differ in number
    from the running join's (none equals it), by :func:`.values.join`'s rules per step."""

    def __init__(self, base: ExtStream) -> None:
        self.base = base
        self.refs = list(base.refs())
        self.seen = set(self.refs)
        self.must, self.nullable, self.device = base.must, base.nullable, base.device

    def add(self, other: ExtStream) -> None:
        union = False
        for ref in other.refs():
            if ref not in self.seen:
                self.seen.add(ref)
                self.refs.append(ref)
                union = True
        self.must = self.must and other.must and not union
        self.nullable = self.nullable or other.nullable
        device = self.device
        self.device = device | other.device if device and other.device else None

    def value(self) -> ExtStream:
        return renewed(
            self.base,
            must=self.must,
            nullable=self.nullable,
            also=tuple(self.refs[1:]),
            device=self.device,
        )
