"""Reasons shared by tests that skip when an optional test dependency is missing."""

from __future__ import annotations

#: torch comes with the test extra; a test that needs it says so instead of failing.
NO_TORCH = "torch is not installed; the test extra installs it (see the README)"
