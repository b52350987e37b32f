"""One decoding rule, one answer: odd files give the same findings through the CLI and
through flake8. Where flake8 refuses a file itself (E999: CPython rejects it, as for a null
byte), the CLI says XST000 alone, as for any syntax error."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from extstream_lint.project.sources import decode_python

MISUSE = (
    "import torch\n\n"
    "null = torch.npu.ExternalStream(0)\n"
    "ext = torch.npu.ExternalStream(h)\n"
    "ext.synchronize()\n"
)

#: name -> bytes; each holds the misuse (XST001 and XST101) however it is read.
ODD = {
    "latin1_undeclared.py": b"# caf\xe9\n" + MISUSE.encode(),
    "latin1_declared.py": b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + MISUSE.encode(),
    "utf8_declared_bad_bytes.py": b"# -*- coding: utf-8 -*-\n# caf\xe9\n" + MISUSE.encode(),
    "unknown_codec.py": b"# -*- coding: no-such-codec -*-\n" + MISUSE.encode(),
    "bom.py": b"\xef\xbb\xbf" + MISUSE.encode(),
    "bom_and_latin1_cookie.py": b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n" + MISUSE.encode(),
    "utf16.py": ("# -*- coding: utf-16 -*-\n" + MISUSE).encode("utf-16"),
    "crlf.py": MISUSE.replace("\n", "\r\n").encode(),
    "cr.py": MISUSE.replace("\n", "\r").encode(),
    "no_final_newline.py": MISUSE.rstrip("\n").encode(),
    "form_feed_and_tabs.py": b"\x0c\n" + MISUSE.replace("ext.s", "if 1:\n\text.s").encode(),
    "nul_in_string.py": MISUSE.encode() + b"x = '\x00'\n",
    "nul_in_comment.py": b"# \x00\n" + MISUSE.encode(),
}

_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) ")


def _findings(output: str) -> dict[str, set[tuple[int, int, str]]]:
    found: dict[str, set[tuple[int, int, str]]] = {name: set() for name in ODD}
    for line in output.splitlines():
        match = _LINE.match(line)
        if match:
            name = Path(match["path"]).name
            found[name].add((int(match["line"]), int(match["col"]), match["code"]))
    return found


def test_odd_files_give_the_same_answer_through_both_front_ends(tmp_path: Path) -> None:
    for name, data in ODD.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "pyproject.toml").write_text("[tool.extstream-lint]\ncache = false\n")
    cli = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "-j", "1", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "-j", "1", "--select", "XST,E9", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 1 and flake8.returncode == 1, (cli.stderr, flake8.stderr)
    ours, theirs = _findings(cli.stdout), _findings(flake8.stdout)
    for name in ODD:
        refused = {f for f in theirs[name] if f[2].startswith("E9")}
        if refused:  # flake8 ran no plugin: the CLI's one XST000 is its E999
            assert theirs[name] == refused, name
            # ...when the file passes the pre-filter (read as latin-1, a UTF-16 file's
            # words are split by null bytes: neither front end analyses it)
            expected = set() if name == "utf16.py" else {(1, 1, "XST000")}
            assert ours[name] == expected, name
        else:
            assert ours[name] == theirs[name], name
            assert {code for _, _, code in ours[name]} == {"XST001", "XST101"}, name
    refused = {name for name in ODD if any(f[2].startswith("E9") for f in theirs[name])}
    assert refused == {"nul_in_string.py", "nul_in_comment.py", "utf16.py"}


def test_the_rule_is_pep_263_then_latin1_without_a_bom() -> None:
    assert decode_python(b"# coding: latin-1\nx = '\xe9'\n") == "# coding: latin-1\nx = 'é'\n"
    assert decode_python(b"x = '\xe9'\n") == "x = 'é'\n"  # not UTF-8: latin-1, as flake8
    assert decode_python(b"# coding: klingon\n") == "# coding: klingon\n"
    assert decode_python(b"\xef\xbb\xbfx = 1\r\n") == "x = 1\r\n"
    assert decode_python(b"\xef\xbb\xbf# coding: latin-1\n") == "# coding: latin-1\n"
