"""The switch history's cached views (``_switch_history._view``): each says whether an external
stream was current on another device in the thread, which decides whether a backward check
judges every node against its own device's points; the flag must follow the thread's
devices."""

from __future__ import annotations

from extstream_guard import _switch_history as history
from extstream_guard.predicate import EXTERNAL_MARK

EXT0, EXT1 = EXTERNAL_MARK | 0, EXTERNAL_MARK | 1


def test_a_device_s_view_goes_when_another_device_first_has_an_external_stream() -> None:
    track = history._Record()
    history._first_sight(track, 0, 0, 0)
    history._append(track, 0, 1, EXT0)
    assert history._view(track, 0, EXT0, EXT0)[5] is False  # only this device so far
    assert 0 in track.views
    history._first_sight(track, 1, 2, 0)
    history._append(track, 1, 3, EXT1)  # npu:1 has an external stream: every view goes
    assert track.views == {}
    assert history._view(track, 0, EXT0, EXT0)[5] is True
    history._append(track, 1, 4, 0)  # back to managed on npu:1: it stays seen
    assert history._view(track, 0, EXT0, EXT0)[5] is True


def test_a_device_never_external_in_the_thread_says_where_one_was() -> None:
    track = history._Record()
    assert history._view(track, 0, 0, 0)[5] is False  # nothing external anywhere
    history._first_sight(track, 1, 0, 0)
    history._append(track, 1, 1, EXT1)
    assert history._view(track, 0, 0, 0)[5] is True  # npu:0 never external, npu:1 was
