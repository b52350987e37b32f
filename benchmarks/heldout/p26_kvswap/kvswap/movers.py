"""Copy primitives, bound once to their blocking mode."""

import functools


def _move(dst, src, non_blocking=False):
    dst.copy_(src, non_blocking=non_blocking)
    return dst


async_move = functools.partial(_move, non_blocking=True)
blocking_move = functools.partial(_move, non_blocking=False)


def evict(t, non_blocking=True):
    return t.to("cpu", non_blocking=non_blocking)
