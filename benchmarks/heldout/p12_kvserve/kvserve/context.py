"""Per-request stream binding through contextvars."""

import contextvars

import torch

from .lanes import attention_stream, copy_stream

CURRENT_LANE: "contextvars.ContextVar[torch.npu.Stream]" = contextvars.ContextVar("lane")


def bind(stream) -> contextvars.Token:
    return CURRENT_LANE.set(stream)


def finish_request() -> None:
    lane = CURRENT_LANE.get()
    done = lane.record_event()  # expect: XST103
    done.synchronize()


def handle_decode(device: int) -> None:
    bind(attention_stream(device))
    finish_request()


def handle_prefill(device: int) -> None:
    bind(copy_stream(device))
    finish_request()


def _check(lane) -> bool:
    return lane.query()  # or: XST102


def check_isolated(device: int) -> bool:
    ctx = contextvars.copy_context()
    return ctx.run(_check, attention_stream(device))  # expect: XST102


def check_isolated_copy(device: int) -> bool:
    ctx = contextvars.copy_context()
    return ctx.run(_check, copy_stream(device))
