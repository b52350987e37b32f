"""A value that may be any of k parameter paths costs a caller O(k) to substitute, not O(k^2).

One generated module: ``pick`` returns one of its k stream parameters (``s = p0``, then
``if f_i: s = p_i``), so its return is a symbolic stream on k paths; ``outer`` passes its own
k parameters through, so substituting that return gives a join of k of the caller's paths,
and ``use`` passes external streams to ``outer``. Joined one path per step, each step hashed
the whole running tuple: k=80 hashed parameter paths 6,478 times inside ``substitute`` (92x
k=8's 70). Counted (hashes of parameter paths while substituting), never timed.
"""

from __future__ import annotations

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.abstract.atoms import ParamRef
from extstream_lint.analysis.interp import summaries as sm


def _source(k: int) -> str:
    params = ", ".join(f"p{i}" for i in range(k))
    flags = ", ".join(f"f{i}" for i in range(k))
    chosen = "".join(f"    if f{i}:\n        s = p{i}\n" for i in range(1, k))
    mine = ", ".join(f"q{i}" for i in range(k))
    made = ", ".join(["ExternalStream(h)"] * k)
    return (
        "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
        f"def pick({params}, {flags}):\n    s = p0\n{chosen}    return s\n\n\n"
        f"def outer({mine}, {flags}):\n    s = pick({mine}, {flags})\n    s.synchronize()\n\n\n"
        f"def use(h, {flags}):\n    outer({made}, {flags})\n"
    )


def _hashes(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, set[str]]:
    inside = [0]
    hashes = [0]
    plain_hash = ParamRef.__hash__
    substitute = sm.substitute

    def counted_hash(self: ParamRef) -> int:
        hashes[0] += inside[0] > 0
        return plain_hash(self)

    def counted_substitute(value, binding, depth=0):  # type: ignore[no-untyped-def]
        inside[0] += 1
        try:
            return substitute(value, binding, depth)
        finally:
            inside[0] -= 1

    monkeypatch.setattr(ParamRef, "__hash__", counted_hash)
    monkeypatch.setattr(sm, "substitute", counted_substitute)
    found = {f.code for f in analyze_source(_source(k), "gen_paths.py", kept=False)}
    monkeypatch.undo()
    return hashes[0], found


def test_substituting_a_value_on_many_parameter_paths_is_linear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small, found_small = _hashes(8, monkeypatch)
    large, found_large = _hashes(80, monkeypatch)
    assert found_small == found_large == {"XST101"}  # synchronize() on the external stream
    assert large <= 12 * small, (small, large)
