"""``docs/flow-models.md``, rendered from the flow-model table.

The table (:mod:`extstream_lint.analysis.semantics.flowmodels`) is what the analysis applies
to library calls; the page is the same rows as a reader sees them, so it cannot say what the
analysis does not do. A test fails while the page is stale; regenerate it with::

    python -m extstream_lint.frontends.flowdocs --write
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..analysis.semantics.flowmodels import render_markdown

#: The checkout: this module is ``extstream_lint/frontends/flowdocs.py`` in it.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLOW_MODELS_PAGE = "docs/flow-models.md"
FLOW_MODELS_PATH = os.path.join(_CHECKOUT, *FLOW_MODELS_PAGE.split("/"))


def check(path: str = FLOW_MODELS_PATH) -> bool:
    """Whether the page at ``path`` is what the table renders."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read() == render_markdown()
    except OSError:
        return False


def write(path: str = FLOW_MODELS_PATH) -> bool:
    """Rewrite the page; whether it changed."""
    if check(path):
        return False
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(render_markdown())
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m extstream_lint.frontends.flowdocs [--write | --check]``; prints the page
    without either."""
    parser = argparse.ArgumentParser(prog="python -m extstream_lint.frontends.flowdocs")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help=f"rewrite {FLOW_MODELS_PAGE}")
    group.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    if args.write:
        if write():
            print(f"wrote {FLOW_MODELS_PATH}")
        return 0
    if args.check:
        if check():
            return 0
        print(f"{FLOW_MODELS_PAGE}: stale; run python -m extstream_lint.frontends.flowdocs --write")
        return 1
    sys.stdout.write(render_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
