"""The README is what a user runs and reads: short, in the order commands are typed, with its
lists and defaults true (checked here against their sources)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from extstream_lint.contract import DEFAULT_IGNORE
from extstream_lint.frontends.docs import README_PATH, section_text

ROOT = Path(README_PATH).parent


def readme() -> str:
    return Path(README_PATH).read_text(encoding="utf-8")


def test_it_stays_short() -> None:
    assert len(readme().splitlines()) <= 400


def _quick_start() -> str:
    text = readme()
    return text[text.index("## Quick start\n") : text.index("<!-- SECTION:usage -->")]


def test_quick_start_commands_are_in_the_order_a_user_types_them() -> None:
    """Two set-up commands (the CPU torch before the extra that would pull the CUDA one), the
    linter on the bundled example, then the tests: the command .ci/run runs."""
    blocks = re.findall(r"^```(sh|text)\n(.*?)^```$", _quick_start(), re.M | re.S)
    commands = [
        line.removeprefix("$ ")
        for kind, body in blocks
        for line in body.splitlines()
        if kind == "sh" or line.startswith("$ ")
    ]
    assert commands == [
        "python -m pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu",
        "python -m pip install -e '.[test]'",
        "extstream-lint examples/",
        "python -m pytest -n 2",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"{commands[1]} && {commands[3]}" in ci


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib")
def test_the_test_extra_it_lists_is_the_one_pyproject_declares() -> None:
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["test"]
    declared = [re.split(r"[<>=!~;\[ ]", requirement)[0] for requirement in extra]
    sentence = " ".join(_quick_start().split()).split("The `test` extra installs ", 1)[1]
    listed = re.split(r", | and ", re.split(r"[.;]", sentence, maxsplit=1)[0])
    assert listed == declared


def test_defaults_are_stated_as_they_are() -> None:
    text = readme()
    assert DEFAULT_IGNORE == ("XST202", "XST211")
    off = f"Off by default (turn them on with `--extend-select`): {', '.join(DEFAULT_IGNORE)}."
    assert off in section_text(text, "rule-index")
    # "all" was wrong: the opt-in codes are not reported unless selected
    assert not re.search(r"default[^|\n]*\ball\b\)", text), "a default said to be 'all'"


def test_no_contract_row_number_without_a_link() -> None:
    """Rows of the contract catalogue (X03, section 2.6) mean nothing to a reader who cannot
    open it: the README names rules, which link to their pages."""
    unlinked = re.findall(r"(?<![\w/#])(?:X\d\d\b|§\s?\d[\d.]*)", readme())
    assert unlinked == []
