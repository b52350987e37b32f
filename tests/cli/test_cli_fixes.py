"""``--fix``, ``--unsafe-fixes`` and ``--diff``: the real analysis, then the rewritten file
linted again (its finding gone, every other finding and byte as before)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.contract import RULES
from extstream_lint.frontends.cli import main
from extstream_lint.frontends.fixes import rewriter_codes
from tests.cli.test_cli_formats import _sarif_schema_errors

HEAD = (
    "import torch\n\n"
    "ext = torch.npu.ExternalStream(handle)\n"
    "pinned = torch.ones(4).pin_memory()\n"
    "out = torch.ones(4, device='npu')\n"
)


def _lint(path: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = main(["--no-cache", *flags, str(path.name)])
    lines = capsys.readouterr().out.splitlines()
    return status, lines


def _codes(lines: list[str]) -> list[str]:
    return [line.split(": ")[1].split()[0] for line in lines if line.count(":") >= 3]


def _round_trip(
    tmp: Path, body: str, expected: str, capsys: pytest.CaptureFixture[str], *flags: str
) -> list[str]:
    """Fix ``HEAD + body``; the file must become ``HEAD + expected`` and its findings must be
    the old ones minus the fixed one. Returns the summary line."""
    path = tmp / "m.py"
    path.write_text(HEAD + body)
    _, before = _lint(path, capsys=capsys)
    assert before, "the case must have a finding"
    main(["--no-cache", "--fix", *flags, "m.py"])
    captured = capsys.readouterr()
    assert path.read_text() == HEAD + expected
    _, after = _lint(path, capsys=capsys)
    fixed = [line for line in before if line not in after]
    assert len(fixed) == 1 and not [line for line in after if line not in before]
    return captured.err.splitlines()


NON_BLOCKING = [
    pytest.param(
        'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=True)  # keep me\n',
        'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=False)  # keep me\n',
        id="keyword",
    ),
    pytest.param(
        "with torch.npu.stream(ext):\n    y = pinned.npu(0, True)\n",
        "with torch.npu.stream(ext):\n    y = pinned.npu(0, False)\n",
        id="npu-positional",
    ),
    pytest.param(
        "with torch.npu.stream(ext):\n    out.copy_(pinned, True)\n",
        "with torch.npu.stream(ext):\n    out.copy_(pinned, False)\n",
        id="copy-positional",
    ),
    pytest.param(
        'with torch.npu.stream(ext):\n    z = pinned.to("npu", None, True)\n',
        'with torch.npu.stream(ext):\n    z = pinned.to("npu", None, False)\n',
        id="to-positional",
    ),
    pytest.param(
        "with torch.npu.stream(ext):\n    z = (pinned  # the batch\n"
        '         .to("npu",\n             non_blocking = True))\n',
        "with torch.npu.stream(ext):\n    z = (pinned  # the batch\n"
        '         .to("npu",\n             non_blocking = False))\n',
        id="multi-line-with-comment",
    ),
    pytest.param(  # issue 43: torch binds non_blocking third, before copy
        "with torch.npu.stream(ext):\n    nb = True\n"
        '    h = out.to("cpu", torch.float32, nb, True)\n',
        "with torch.npu.stream(ext):\n    nb = True\n"
        '    h = out.to("cpu", torch.float32, False, True)\n',
        id="to-device-dtype-flag-copy",
    ),
    pytest.param(
        "with torch.npu.stream(ext):\n    z = pinned.to(out, True, True)\n",
        "with torch.npu.stream(ext):\n    z = pinned.to(out, False, True)\n",
        id="to-tensor-flag-copy",
    ),
    pytest.param(
        "torch.npu.set_stream(ext)\ny = pinned.npu(non_blocking=True)\n",
        "torch.npu.set_stream(ext)\ny = pinned.npu(non_blocking=False)\n",
        id="set-stream",
    ),
]


@pytest.mark.parametrize(("body", "expected"), NON_BLOCKING)
def test_fix_makes_a_pinned_copy_blocking_and_only_that(
    in_tmp: Path, body: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = _round_trip(in_tmp, body, expected, capsys)
    assert summary == ["Found 1 error (1 fixed, 0 remaining)."]


@pytest.mark.parametrize(
    "body",
    [
        # an ordinary stream and a CUDA stream: no finding, nothing to fix
        "s = torch.npu.Stream()\nwith torch.npu.stream(s):\n"
        '    host = out.to("cpu", non_blocking=True)\n',
        "c = torch.cuda.ExternalStream(h)\nwith torch.cuda.stream(c):\n"
        '    host = out.to("cpu", non_blocking=True)\n',
        # already blocking
        'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=False)\n',
    ],
)
def test_fix_leaves_what_is_not_flagged_alone(
    in_tmp: Path, body: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = in_tmp / "m.py"
    path.write_text(HEAD + body)
    assert main(["--no-cache", "--fix", "--unsafe-fixes", "m.py"]) == 0
    assert path.read_text() == HEAD + body
    assert capsys.readouterr().err == ""


def test_a_finding_at_a_helpers_call_gets_no_fix(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rewrite would belong in the helper, where the finding is not: no fix offered."""
    body = (
        "def fetch(t):\n"
        '    return t.to("cpu", non_blocking=True)\n\n'
        "with torch.npu.stream(ext):\n    host = fetch(out)\n"
    )
    path = in_tmp / "m.py"
    path.write_text(HEAD + body)
    status, lines = _lint(path, capsys=capsys)
    assert status == 1 and _codes(lines) == ["XST201"]
    assert main(["--no-cache", "--fix", "--unsafe-fixes", "m.py"]) == 1
    assert path.read_text() == HEAD + body
    assert capsys.readouterr().err.splitlines() == ["Found 1 error (0 fixed, 1 remaining)."]


UNSAFE = [
    pytest.param("ext.synchronize()\n", "torch.npu.synchronize()\n", id="XST101-bound"),
    pytest.param(
        "torch.Stream.synchronize(ext)\n", "torch.npu.synchronize()\n", id="XST101-unbound"
    ),
    pytest.param(
        "with torch.npu.stream(ext):\n    torch.npu.current_stream().synchronize()\n",
        "with torch.npu.stream(ext):\n    torch.npu.synchronize()\n",
        id="XST101-current",
    ),
    pytest.param(
        "import torch_npu\ntorch_npu.npu._launch_host_func(ext, fn, data)\n",
        "import torch_npu\ntorch_npu.npu._launch_host_func_pending(ext, fn, data)\n",
        id="XST109",
    ),
    pytest.param(
        "with torch.npu.graph(g, stream=ext):\n    pass\n",
        "with torch.npu.graph(g):\n    pass\n",
        id="XST106-keyword-last",
    ),
    pytest.param(
        "with torch.npu.graph(g, stream=ext, pool=p):\n    pass\n",
        "with torch.npu.graph(g, pool=p):\n    pass\n",
        id="XST106-keyword-middle",
    ),
    pytest.param(  # issue 43: the span of a parenthesised argument holds its parentheses
        "with torch.npu.graph((g), stream=ext):\n    pass\n",
        "with torch.npu.graph((g)):\n    pass\n",
        id="XST106-parenthesised",
    ),
    pytest.param(
        "with torch.npu.graph((h := g), stream=ext):\n    pass\n",
        "with torch.npu.graph((h := g)):\n    pass\n",
        id="XST106-walrus",
    ),
    pytest.param(
        "with torch.npu.graph(*(g,), stream=ext):\n    pass\n",
        "with torch.npu.graph(*(g,)):\n    pass\n",
        id="XST106-star",
    ),
    pytest.param(
        "with torch.npu.graph(\n    (g\n    ),\n    stream=ext,\n):\n    pass\n",
        "with torch.npu.graph(\n    (g\n    ),\n):\n    pass\n",
        id="XST106-multi-line",
    ),
    pytest.param(
        "with torch.npu.graph(g, None, ext):\n    pass\n",
        "with torch.npu.graph(g, None):\n    pass\n",
        id="XST106-positional",
    ),
]


@pytest.mark.parametrize(("body", "expected"), UNSAFE)
def test_unsafe_fixes_need_the_flag(
    in_tmp: Path, body: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = in_tmp / "m.py"
    path.write_text(HEAD + body)
    assert main(["--no-cache", "m.py"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "Found 1 error.",
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).",
    ]
    assert main(["--no-cache", "--fix", "m.py"]) == 1  # safe fixes only: untouched
    assert path.read_text() == HEAD + body
    capsys.readouterr()
    summary = _round_trip(in_tmp, body, expected, capsys, "--unsafe-fixes")
    assert summary == ["Found 1 error (1 fixed, 0 remaining)."]


@pytest.mark.parametrize(
    "body",
    [
        # the stream expression is a call: dropping it could drop an effect
        "def make():\n    return ext\n\n\nmake().synchronize()\n",
        # torch is not (only) the imported module here
        "def f(torch):\n    ext.synchronize()\n",
        # a bare imported name would need its import changed too
        "from torch_npu.npu import _launch_host_func\n_launch_host_func(ext, fn, data)\n",
        # a comment inside the span that would be deleted
        "with torch.npu.graph(g, stream=ext,  # capture\n                     pool=p):\n    pass\n",
    ],
)
def test_no_fix_where_the_rewrite_would_lose_something(
    in_tmp: Path, body: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = in_tmp / "m.py"
    path.write_text(HEAD + body)
    assert main(["--no-cache", "--fix", "--unsafe-fixes", "m.py"]) == 1
    assert path.read_text() == HEAD + body
    assert "(0 fixed" in capsys.readouterr().err


def test_diff_shows_and_writes_nothing(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = in_tmp / "m.py"
    body = "with torch.npu.stream(ext):\n    y = pinned.npu(non_blocking=True)\next.synchronize()\n"
    path.write_text(HEAD + body)
    assert main(["--no-cache", "--diff", "m.py"]) == 1
    captured = capsys.readouterr()
    assert path.read_text() == HEAD + body
    assert captured.out.splitlines()[:2] == ["--- m.py", "+++ m.py"]
    assert "-    y = pinned.npu(non_blocking=True)" in captured.out.splitlines()
    assert "+    y = pinned.npu(non_blocking=False)" in captured.out.splitlines()
    assert "torch.npu.synchronize()" not in captured.out  # unsafe: hidden
    assert captured.err == "Would fix 1 error.\n"
    assert main(["--no-cache", "--diff", "--unsafe-fixes", "m.py"]) == 1
    captured = capsys.readouterr()
    assert "+torch.npu.synchronize()" in captured.out.splitlines()
    assert captured.err == "Would fix 2 errors.\n"


def test_diff_with_nothing_to_fix_exits_0(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "m.py").write_text(HEAD + "ext.query()\n")
    assert main(["--no-cache", "--diff", "m.py"]) == 0
    assert capsys.readouterr().out == ""


def test_hint_counts_safe_and_hidden_fixes(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "with torch.npu.stream(ext):\n    y = pinned.npu(non_blocking=True)\next.synchronize()\n"
    (in_tmp / "m.py").write_text(HEAD + body + "ext.query()\n")
    assert main(["--no-cache", "m.py"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "Found 3 errors.",
        "[*] 1 fixable with the `--fix` option "
        "(1 hidden fix can be enabled with the `--unsafe-fixes` option).",
    ]
    assert main(["--no-cache", "--unsafe-fixes", "m.py"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "Found 3 errors.",
        "[*] 2 fixable with the `--fix` option.",
    ]


def test_fix_keeps_crlf_and_the_declared_encoding(in_tmp: Path) -> None:
    text = (
        "# -*- coding: latin-1 -*-\n" + HEAD + "# café\nwith torch.npu.stream(ext):\n"
        '    host = out.to("cpu", non_blocking=True)\n'
    )
    data = text.replace("\n", "\r\n").encode("latin-1")
    path = in_tmp / "m.py"
    path.write_bytes(data)
    assert main(["--no-cache", "--fix", "m.py"]) == 0
    assert path.read_bytes() == data.replace(b"non_blocking=True", b"non_blocking=False")


@pytest.mark.parametrize(
    "prefix",
    [b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n"],
    ids=["undeclared-latin1", "bom", "bom-and-latin1-cookie"],
)
def test_fix_writes_back_in_the_encoding_the_file_was_read_with(
    in_tmp: Path, prefix: bytes
) -> None:
    """Files read by flake8's latin-1 fallback are fixed too, byte for byte elsewhere."""
    body = 'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=True)  # \xe9\n'
    data = prefix + (HEAD + body).encode("latin-1")
    path = in_tmp / "m.py"
    path.write_bytes(data)
    assert main(["--no-cache", "--fix", "m.py"]) == 0
    assert path.read_bytes() == data.replace(b"non_blocking=True", b"non_blocking=False")


def test_fix_of_stdin_prints_the_fixed_source(in_tmp: Path) -> None:
    """ruff's ``--fix -``: the fixed source on stdout (an editor pipes the buffer through),
    the findings left on stderr, exit 1 while some are left. It was a usage error."""
    body = 'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=True)\n'
    left = "ext.query()\n"
    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--no-cache", "--fix", "-"],
        input=HEAD + body + left,
        capture_output=True,
        text=True,
        cwd=in_tmp,
    )
    assert done.stdout == HEAD + body.replace("=True", "=False") + left
    assert [line.split(": ")[1].split()[0] for line in done.stderr.splitlines()[:1]] == ["XST102"]
    assert "(1 fixed, 1 remaining)" in done.stderr
    assert done.returncode == 1


def test_sarif_results_carry_their_fixes_and_validate(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "with torch.npu.stream(ext):\n    y = pinned.npu(non_blocking=True)\next.synchronize()\n"
    (in_tmp / "m.py").write_text(HEAD + body + "ext.query()\n")
    assert main(["--no-cache", "--format", "sarif", "m.py"]) == 1
    document = json.loads(capsys.readouterr().out)
    results = {r["ruleId"]: r for r in document["runs"][0]["results"]}
    assert "fixes" not in results["XST102"]
    (change,) = results["XST201"]["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "m.py", "uriBaseId": "%SRCROOT%"}
    line = len(HEAD.splitlines()) + 2
    column = len("    y = pinned.npu(non_blocking=") + 1
    assert change["replacements"] == [
        {
            "deletedRegion": {
                "startLine": line,
                "startColumn": column,
                "endLine": line,
                "endColumn": column + len("True"),
            },
            "insertedContent": {"text": "False"},
        }
    ]
    assert "unsafe" in results["XST101"]["fixes"][0]["description"]["text"]
    assert _sarif_schema_errors(document) == []


def test_every_rule_with_a_fix_has_a_rewriter_and_no_other() -> None:
    assert rewriter_codes() == {code for code, rule in RULES.items() if rule.autofix != "none"}
    assert {rule.autofix for rule in RULES.values()} <= {"safe", "unsafe", "none"}


def test_flake8_stays_report_only(in_tmp: Path) -> None:
    """flake8 reports the fixable finding and leaves the file as it was."""
    body = 'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=True)\n'
    path = in_tmp / "m.py"
    path.write_text(HEAD + body)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=XST", "m.py"],
        cwd=in_tmp,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and " XST201 " in done.stdout
    assert "fixable" not in done.stdout + done.stderr  # no hint: flake8 cannot apply one
    assert path.read_text() == HEAD + body


def test_json_and_github_do_not_pay_for_fixes(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from extstream_lint.frontends import linting

    asked: list[str] = []
    real = linting.find_fixes
    monkeypatch.setattr(
        linting, "find_fixes", lambda text, found: asked.append(text) or real(text, found)
    )
    body = 'with torch.npu.stream(ext):\n    host = out.to("cpu", non_blocking=True)\n'
    (in_tmp / "m.py").write_text(HEAD + body)
    for fmt in ("json", "github"):
        assert main(["--no-cache", "--format", fmt, "m.py"]) == 1
    assert asked == []
    assert main(["--no-cache", "--format", "sarif", "m.py"]) == 1
    assert len(asked) == 1
