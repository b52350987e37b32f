"""``python -m extstream_lint``: the same command as ``extstream-lint``."""

from __future__ import annotations

from .frontends.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
