"""``analysis.records``: a faster frozen dataclass must behave exactly as the dataclass."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from extstream_lint.analysis.records import fast_frozen, replace
from extstream_lint.analysis.values import Current, ExtStream, ParamRef


@fast_frozen
@dataclass(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str = field(default="", compare=False)


@dataclass(frozen=True)
class Plain:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str = field(default="", compare=False)


def test_construction_defaults_and_factories_match_the_dataclass() -> None:
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((1,), {"tags": ("a",), "note": "n"})]:
        fast, plain = Point(*args, **kwargs), Plain(*args, **kwargs)
        assert dataclasses.asdict(fast) == dataclasses.asdict(plain)
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=3)  # type: ignore[call-arg]


def test_equality_and_hash_ignore_fields_not_compared() -> None:
    a, b = Point(1, 2, note="here"), Point(1, 2, note="there")
    assert a == b and hash(a) == hash(b)
    assert a != Point(1, 3)
    assert a != Plain(1, 2)  # another class, even with the same fields
    assert a.__eq__(Plain(1, 2)) is NotImplemented


def test_still_frozen_and_pickled_as_before() -> None:
    point = Point(1, 2, ("t",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(point)) == point
    assert repr(point) == "Point(x=1, y=2, tags=('t',), note='')"


def test_replace_matches_dataclasses_replace() -> None:
    point = Point(1, 2, ("t",), "n")
    fast = replace(point, y=5, note="m")
    assert dataclasses.asdict(fast) == dataclasses.asdict(dataclasses.replace(point, y=5, note="m"))
    assert dataclasses.asdict(point) == {"x": 1, "y": 2, "tags": ("t",), "note": "n"}  # untouched
    with pytest.raises(TypeError, match="no field 'z'"):
        replace(point, z=1)
    assert replace(Plain(1), y=4) == Plain(1, 4)  # any other dataclass: dataclasses.replace


def test_the_analysis_values_are_fast_and_keep_their_semantics() -> None:
    ref = ParamRef(None, 0, ("s",))
    stream = ExtStream(True, "passed", None, param=ref)
    assert stream == ExtStream(True, "passed", None, param=ParamRef(None, 0, ("s",)))
    assert stream.weakened() == replace(stream, must=False) != stream
    # Current.origin is compare=False: where a stream was set is not what it is.
    assert Current(stream, "", object()) == Current(stream, "", object())


def test_classes_it_cannot_make_faster_faithfully_are_refused() -> None:
    @dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclass
    class Mutable:
        x: int

    @dataclass(frozen=True)
    class Hidden:
        x: int
        y: int = field(default=0, init=False)

    for cls in (Checked, Mutable, Hidden):
        with pytest.raises(TypeError, match="not a plain frozen dataclass"):
            fast_frozen(cls)
