"""The README's sample of the guard's error is what the guard raises, word for word.

The README wraps the message at 100 columns; the comparison ignores only where lines break.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError
from extstream_lint.frontends.docs import README_PATH


def readme_error_sample() -> str:
    with open(README_PATH, encoding="utf-8") as handle:
        text = handle.read()
    match = re.search(
        r"^### The error\n\n```text\n(ExternalStreamError: .*?)^```$", text, re.M | re.S
    )
    assert match, "the README's guard section shows the error in a ```text block"
    return " ".join(match.group(1).split())


def test_the_readmes_error_is_the_guards(env: Any) -> None:
    ext = env.ext()
    extstream_guard.install("raise")
    with env.current(ext), pytest.raises(ExternalStreamError) as info:
        env.npu.Event().record()
    raised = " ".join(f"ExternalStreamError: {info.value}".split())
    assert readme_error_sample() == raised, f"the README should show:\n{raised}"
