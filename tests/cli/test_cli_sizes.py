"""Sizes are checked before anything is read or tokenized (issue 43, item 6).

A file over ``max-file-size`` is known from its size on disk: its bytes are never read
whole (a 3 GiB sparse ``.py`` beside a stream file ended the run with MemoryError), and the
``# noqa`` of its one XST000 on line 1 tokenizes its first lines only (a 30 MB file was
tokenized whole for it). The tests count bytes read and tokens made, never time.
"""

from __future__ import annotations

import os
import sys
import tokenize
from pathlib import Path
from typing import ClassVar

import pytest

from extstream_lint.findings import Finding
from extstream_lint.frontends import noqa
from extstream_lint.frontends.cli import main

STREAM = "import torch\next = torch.npu.ExternalStream(h)\next.synchronize()\n"


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every byte ``os.read`` returns in this process (the CLI runs in it with -j 1)."""
    total = [0]
    real = os.read

    def counting(fd: int, size: int) -> bytes:
        data = real(fd, size)
        total[0] += len(data)
        return data

    monkeypatch.setattr(os, "read", counting)
    return total


def _run(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = main(["--no-cache", "-j", "1", *args])
    return status, capsys.readouterr().out.splitlines()


def test_a_file_over_the_limit_is_not_read(
    in_tmp: Path, bytes_read: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "big.py").write_text(STREAM + "x = 1\n" * 200_000)  # 1.2 MB
    (in_tmp / "small.py").write_text(STREAM)
    status, lines = _run("--max-file-size", "100000", ".", capsys=capsys)
    assert status == 1
    assert [line.split(": ")[0] + " " + line.split(": ")[1][:6] for line in lines] == [
        "big.py:1:1 XST000",
        "small.py:3:1 XST101",
    ], lines
    assert "the file is 1,200," in lines[0] and "over the limit of 100,000 bytes" in lines[0]
    # small.py, the head of big.py for its noqa comment (64 KB), and the run's own files
    assert bytes_read[0] < 200_000, bytes_read[0]


@pytest.mark.skipif(sys.platform == "win32", reason="a sparse file needs a POSIX file system")
def test_a_sparse_file_of_gigabytes_costs_its_file_only(
    in_tmp: Path, bytes_read: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    with open(in_tmp / "huge.py", "wb") as handle:
        handle.write(b"# ExternalStream\n")
        handle.truncate(3 << 30)
    (in_tmp / "small.py").write_text(STREAM)
    status, lines = _run(".", capsys=capsys)
    assert status == 1
    assert [line.split(":")[0] for line in lines] == ["huge.py", "small.py"], lines
    assert "the file is 3,221,225,472 bytes" in lines[0]
    assert bytes_read[0] < 1_000_000, bytes_read[0]


def test_the_noqa_of_an_over_limit_file_still_silences_it(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "big.py").write_text("# noqa: XST000\n" + STREAM + "x = 1\n" * 50_000)
    status, lines = _run("--max-file-size", "100000", "big.py", capsys=capsys)
    assert (status, lines) == (0, [])


def test_stdin_over_the_limit_is_read_one_byte_past_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Stdin:
        asked: ClassVar[list[int]] = []

        class buffer:  # sys.stdin.buffer's name
            @staticmethod
            def read(size: int = -1) -> bytes:
                Stdin.asked.append(size)
                return (STREAM + "x = 1\n" * 50_000).encode()[: size if size >= 0 else None]

    monkeypatch.setattr(sys, "stdin", Stdin)
    status, lines = _run("--max-file-size", "1000", "-", capsys=capsys)
    assert Stdin.asked == [1001]
    assert status == 1 and "over the limit of 1,000 bytes" in lines[0], lines


def test_noqa_tokenizes_no_further_than_the_last_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    made = [0]
    real = tokenize.generate_tokens

    def counting(readline):  # type: ignore[no-untyped-def]
        for token in real(readline):
            made[0] += 1
            yield token

    monkeypatch.setattr(noqa.tokenize, "generate_tokens", counting)
    for lines in (2_000, 20_000):
        made[0] = 0
        source = 'x = f("""\n"""),  # noqa: XST000\n' + "y = g(1, 2)\n" * lines
        kept = noqa.filter_noqa([Finding(1, 0, "XST000", "XST000 m")], source)
        assert kept == []  # the comment on line 2 joins line 1 (one token run)
        assert made[0] < 20, made[0]
