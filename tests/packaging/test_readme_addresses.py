"""The README names no address that does not exist (issue 41, item 4).

extstream has no public repository or index page yet: its install and pre-commit blocks
used a made-up host, which a user copied and which failed. Every block a user runs must
work from a clone: ``pip install`` of extstream is of a local path, pre-commit's ``repo:``
is ``local``, and every URL in the README is one of the hosts it really depends on.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"

#: Hosts the README may name: where torch's CPU wheel comes from, and nothing of ours.
REAL_HOSTS = {"download.pytorch.org"}


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def test_every_url_is_a_real_host() -> None:
    hosts = set(re.findall(r"https?://([^/\s)`'\"]+)", README.read_text(encoding="utf-8")))
    assert hosts <= REAL_HOSTS, sorted(hosts - REAL_HOSTS)


def test_extstream_installs_from_the_clone() -> None:
    """In the set-up block and in the prose alike (``pip install -e '.[server]'``)."""
    text = README.read_text(encoding="utf-8")
    installs = re.findall(r"pip install ([^`\n]*)", text)
    ours = [args for args in installs if "torch" not in args.split("==")[0].split()[-1:][0]]
    assert len(ours) >= 2, installs  # the set-up command, the server's extra
    for args in ours:
        target = args.split()[-1].strip("'\"")
        assert target.startswith((".", "/")), args


def test_pre_commit_blocks_use_a_local_repo() -> None:
    repos = [
        line.split(":", 1)[1].strip()
        for b in _blocks("yaml")
        for line in b.splitlines()
        if line.strip().startswith("- repo:")
    ]
    assert repos and set(repos) == {"local"}, repos
