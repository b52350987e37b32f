"""A class's MRO made from its base's kept one (issue 43, item 8: a hierarchy n deep).

``ClassInfo.mro`` of a class with one base extends the base's kept order
(:func:`.mro.extend_chain`) instead of walking the chain again: the order must be the one
:func:`.mro.linearise` walks, whatever order the classes are asked in, for chains shorter
and longer than the walk's cap, loops of bases, chains ending in a class with several bases,
and bases replaced after an order was kept; and a chain asked top down walks no chain.
"""

from __future__ import annotations

import pytest

from extstream_lint.analysis.abstract import mro as mro_module
from extstream_lint.analysis.abstract.values import ClassInfo


def _chain(n: int) -> list[ClassInfo]:
    classes = [ClassInfo("C0")]
    for i in range(1, n):
        classes.append(ClassInfo(f"C{i}", bases=[classes[-1]]))
    return classes


def _walked(cls: ClassInfo) -> list[ClassInfo]:
    return mro_module.linearise(cls)  # type: ignore[no-any-return]


def _same(cls: ClassInfo) -> None:
    got, want = cls.mro(), _walked(cls)
    assert [k.name for k in got] == [k.name for k in want]
    assert all(a is b for a, b in zip(got, want))


@pytest.mark.parametrize("n", [1, 2, 3, 40, 63, 64, 65, 66, 67, 130, 200])
@pytest.mark.parametrize("order", ["top_down", "bottom_up", "every_third"])
def test_a_chain_extended_class_by_class_is_the_walked_order(n: int, order: str) -> None:
    classes = _chain(n)
    if order == "bottom_up":
        asked = list(reversed(classes))
    elif order == "every_third":
        asked = classes[::3] + classes
    else:
        asked = classes
    for cls in asked:
        _same(cls)
    for cls in classes:
        _same(cls)


def test_a_chain_under_a_class_with_two_bases_is_linearised_by_c3() -> None:
    left, right = ClassInfo("L"), ClassInfo("R")
    both = ClassInfo("Both", bases=[left, right])
    classes = [both]
    for i in range(70):
        classes.append(ClassInfo(f"D{i}", bases=[classes[-1]]))
    for cls in classes:
        _same(cls)


@pytest.mark.parametrize("size", [2, 5, 63, 64, 65, 70, 130])
def test_bases_that_loop_are_the_walked_order(size: int) -> None:
    classes = _chain(size)
    for cls in classes:
        cls.mro()
    classes[0].bases = [classes[-1]]  # C0 derives from the last: a loop
    for cls in classes:
        _same(cls)
    for cls in reversed(classes):
        _same(cls)


def test_bases_replaced_after_an_order_was_kept() -> None:
    classes = _chain(80)
    for cls in classes:
        cls.mro()
    classes[40].bases = []
    for cls in classes:
        _same(cls)
    assert classes[79].mro()[-1] is classes[40]
    classes[40].bases = [ClassInfo("X"), ClassInfo("Y")]
    for cls in classes:
        _same(cls)


def test_a_chain_asked_top_down_walks_no_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    extended: list[str] = []
    extend = mro_module.extend_chain

    def counted(cls: ClassInfo, order: list[ClassInfo], shape: int) -> object:
        made = extend(cls, order, shape)
        if made is not None:
            extended.append(cls.name)
        return made

    monkeypatch.setattr(mro_module, "extend_chain", counted)
    classes = _chain(300)
    for cls in classes:
        cls.mro()
    # C0 has no base, C1's base has none: every other class extends its base's order
    assert extended == [cls.name for cls in classes[2:]]
    assert len(classes[50].mro()) == 51 and len(classes[299].mro()) == 42
