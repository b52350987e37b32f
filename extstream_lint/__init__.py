"""extstream_lint: static checks for what torch_npu's ExternalStream cannot do.

Importing this package is cheap: libcst is imported only by ``extstream_lint.analysis``,
and only when a file actually needs analysing.
"""

from __future__ import annotations

__version__ = "0.1.0"
