"""``# noqa`` handling for the standalone CLI, with flake8's exact semantics.

The same file must give the same result through ``flake8 --select=XST`` and through
``extstream-lint``, so this module reuses flake8's own pieces instead of copying them:
its inline regex (``flake8.defaults.NOQA_INLINE_REGEXP``), its file-level regex
(``NOQA_FILE``) and its comma/whitespace list parser. Like flake8:

* ``# noqa`` without codes silences every finding it applies to;
* ``# noqa: XST1`` silences every code that starts with ``XST1`` (prefix match);
* the comment applies to the physical line the finding is reported on, joined (as flake8
  joins them) with the lines of the same token run: a multi-line string or a backslash
  continuation. Inside brackets each physical line stands alone, so a call spread over
  several lines needs the ``# noqa`` on the line where it is reported (where it starts);
* a line that starts with ``# flake8: noqa`` silences the whole file (after code on the
  same line it does nothing).
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Sequence
from functools import lru_cache

from flake8 import defaults as _flake8_defaults
from flake8 import utils as _flake8_utils

from ..findings import Finding

__all__ = ["NoqaMap", "file_is_silenced", "filter_noqa", "is_silenced_by", "physical_lines"]


def physical_lines(source: str) -> list[str]:
    """The lines of ``source`` as flake8 and CPython count them, ends kept: only ``\\n``,
    ``\\r\\n`` and ``\\r`` end one. ``str.splitlines`` also breaks on a form feed,
    ``\\x0b``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028`` and ``\\u2029``: after one, every
    ``# noqa`` lookup was a line off, and a string literal could silence the whole file."""
    return io.StringIO(source, newline="").readlines()


@lru_cache(maxsize=512)
def _codes_on(text: str) -> tuple[bool, frozenset[str]] | None:
    """None if ``text`` has no ``# noqa``; else (is blanket, codes)."""
    match = _flake8_defaults.NOQA_INLINE_REGEXP.search(text)
    if match is None:
        return None
    codes_str = match.groupdict()["codes"]
    if codes_str is None:
        return True, frozenset()
    return False, frozenset(_flake8_utils.parse_comma_separated_list(codes_str))


def is_silenced_by(noqa_text: str, code: str) -> bool:
    """Whether the ``# noqa`` comment (if any) in ``noqa_text`` silences ``code``."""
    parsed = _codes_on(noqa_text)
    if parsed is None:
        return False
    blanket, codes = parsed
    return blanket or code in codes or code.startswith(tuple(codes))


def file_is_silenced(lines: Sequence[str]) -> bool:
    """True if a line starting with ``# flake8: noqa`` silences the whole file."""
    return any(_flake8_defaults.NOQA_FILE.match(line) for line in lines)


class NoqaMap:
    """Maps a 1-based line number to the text searched for ``# noqa``.

    Built lazily and only for files that have findings, because tokenizing is the costly
    part and almost no file needs it.
    """

    def __init__(self, source: str, upto: int | None = None) -> None:
        self.lines = physical_lines(source)
        self._mapping: dict[int, str] | None = None
        #: The last line asked about: tokenizing stops after it (an over-limit file's one
        #: XST000 is on line 1, and its 30 MB were once tokenized whole for it).
        self._upto = upto

    def text_for(self, line: int) -> str:
        """The physical lines flake8 searches for a finding on ``line``, joined."""
        if self._mapping is None:
            self._mapping = self._build()
        text = self._mapping.get(line)
        if text is not None:
            return text
        # Tokenizing failed or the line is outside every token (flake8 then falls back
        # to the physical line through linecache): use the physical line.
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def _build(self) -> dict[int, str]:
        """Group physical lines between NL/NEWLINE tokens, as flake8's FileProcessor does."""
        mapping: dict[int, str] = {}
        first, last = len(self.lines) + 2, -1
        upto = self._upto
        try:
            for tok in tokenize.generate_tokens(io.StringIO("".join(self.lines)).readline):
                if upto is not None and first > upto and tok.start[0] > upto:
                    break  # every line asked about is mapped
                first, last = self._take(tok, mapping, first, last)
        except (tokenize.TokenError, SyntaxError):
            return mapping if upto is not None and upto in mapping else {}
        return mapping

    def _take(
        self, tok: tokenize.TokenInfo, mapping: dict[int, str], first: int, last: int
    ) -> tuple[int, int]:
        """One token into the current group of lines; the group's bounds after it."""
        if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            return first, last
        first = min(first, tok.start[0])
        last = max(last, tok.end[0])
        if tok.type in (tokenize.NL, tokenize.NEWLINE):
            joined = "".join(self.lines[first - 1 : last])
            for number in range(first, last + 1):
                mapping[number] = joined
            first, last = len(self.lines) + 2, -1
        return first, last


def filter_noqa(findings: Iterable[Finding], source: str) -> list[Finding]:
    """Drop the findings that a ``# noqa`` comment of ``source`` silences."""
    findings = list(findings)
    if not findings:
        return findings
    noqa = NoqaMap(source, max(f.line for f in findings))
    if file_is_silenced(noqa.lines):
        return []
    return [f for f in findings if not is_silenced_by(noqa.text_for(f.line), f.code)]
