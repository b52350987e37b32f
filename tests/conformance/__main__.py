"""``python -m tests.conformance [--write]``: print (or write) the conformance matrix."""

from __future__ import annotations

import sys

from tests.conformance.matrix import main

sys.exit(main())
