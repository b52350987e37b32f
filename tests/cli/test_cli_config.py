"""``[tool.extstream-lint]``: found upwards, validated strictly, overridden by flags."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main
from extstream_lint.frontends.config import CONFIG_KEYS, ConfigError, find_pyproject, load_config

HEADER = "from torch_npu.npu import ExternalStream\n"
BODY = HEADER + "BAD_XST101()\nBAD_XST102()\nBAD_XST001()\n"


def codes_in(out: str) -> list[str]:
    return [line.split(": ", 1)[1].split()[0] for line in out.splitlines()]


def write_config(directory: Path, body: str) -> Path:
    path = directory / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\n\n[tool.extstream-lint]\n{body}')
    return path


def test_nearest_pyproject_with_our_table_wins(in_tmp: Path) -> None:
    outer = write_config(in_tmp, 'ignore = ["XST1"]\n')
    inner = in_tmp / "sub" / "deeper"
    inner.mkdir(parents=True)
    (in_tmp / "sub" / "pyproject.toml").write_text('[project]\nname = "no-table"\n')
    assert find_pyproject(str(inner)) == str(outer)
    mine = write_config(in_tmp / "sub", "select = ['XST']\n")
    assert find_pyproject(str(inner)) == str(mine)


def test_config_select_and_ignore_apply(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(in_tmp, 'ignore = ["XST10"]\n')
    (in_tmp / "m.py").write_text(BODY)
    assert main(["m.py"]) == 1
    assert codes_in(capsys.readouterr().out) == ["XST001"]


def test_flags_override_config(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(in_tmp, 'ignore = ["XST10"]\nselect = ["XST0"]\n')
    (in_tmp / "m.py").write_text(BODY)
    assert main(["--ignore", "XST102", "m.py"]) == 1  # --ignore replaces the config's
    assert codes_in(capsys.readouterr().out) == ["XST001"]  # select still from config
    assert main(["--select", "XST1", "--ignore", "XST102", "m.py"]) == 1
    assert codes_in(capsys.readouterr().out) == ["XST101"]
    assert main(["--extend-select", "XST102", "m.py"]) == 1
    # the longer, explicit XST102 beats the config's broader ignore of XST10
    assert codes_in(capsys.readouterr().out) == ["XST102", "XST001"]


def test_longest_prefix_wins_like_flake8(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(BODY)
    assert main(["--select", "XST101", "--ignore", "XST1", "m.py"]) == 1
    assert codes_in(capsys.readouterr().out) == ["XST101"]
    assert main(["--select", "XST1", "--ignore", "XST101", "m.py"]) == 1
    assert codes_in(capsys.readouterr().out) == ["XST102"]
    assert main(["--ignore", "XST", "m.py"]) == 0


def test_per_file_ignores(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        in_tmp,
        '[tool.extstream-lint.per-file-ignores]\n"tests/*" = ["XST1"]\n"gen_*.py" = ["XST"]\n',
    )
    (in_tmp / "tests" / "deep").mkdir(parents=True)
    (in_tmp / "tests" / "deep" / "t.py").write_text(BODY)
    (in_tmp / "pkg").mkdir()
    (in_tmp / "pkg" / "gen_x.py").write_text(BODY)
    (in_tmp / "pkg" / "m.py").write_text(BODY)
    assert main(["."]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.rsplit(":", 3)[0] for line in out] == ["pkg/m.py"] * 3 + ["tests/deep/t.py"]
    assert out[-1].endswith("XST001 fake finding")


def test_exclude_from_config_applies_to_walked_and_named_files(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(in_tmp, 'exclude = ["generated", "*_pb2.py"]\n')
    for name in ("generated/a.py", "pkg/x_pb2.py", "pkg/ok.py"):
        (in_tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (in_tmp / name).write_text(BODY)
    assert main(["."]) == 1
    assert {line.split(":")[0] for line in capsys.readouterr().out.splitlines()} == {"pkg/ok.py"}
    assert main(["pkg/x_pb2.py", "generated/a.py"]) == 0
    assert main(["--exclude", "", "pkg/x_pb2.py"]) == 1  # --exclude replaces the config's


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            'selct = ["XST"]\n',
            "unknown key 'selct' in [tool.extstream-lint] of {path}; valid keys: "
            + ", ".join(CONFIG_KEYS),
        ),
        ('select = ["XST"]\nignore = [1]\n', "ignore must be a list of strings"),
        # every key's type, as the README's table says: a string is not a one-item list
        ('select = "XST"\n', "select must be a list of strings, not 'XST'"),
        ('extend-select = "XST1"\n', "extend-select must be a list of strings, not 'XST1'"),
        ('ignore = "XST102"\n', "ignore must be a list of strings, not 'XST102'"),
        ('extend-ignore = "XST1"\n', "extend-ignore must be a list of strings, not 'XST1'"),
        ('exclude = "build"\n', "exclude must be a list of strings, not 'build'"),
        ('src = "src"\n', "src must be a list of strings, not 'src'"),
        (
            '[tool.extstream-lint.per-file-ignores]\n"tests/*" = "XST1"\n',
            "per-file-ignores: tests/* must be a list of strings, not 'XST1'",
        ),
        ('jobs = "4"\n', "jobs must be a positive integer or \"auto\", not '4'"),
        ("jobs = true\n", 'jobs must be a positive integer or "auto", not True'),
        ('cache = "no"\n', "cache must be true or false, not 'no'"),
        ("respect-gitignore = 0\n", "respect-gitignore must be true or false, not 0"),
        ('ignore = ["XST999"]\n', "'XST999' matches no extstream code; valid codes: XST000"),
        ('ignore = ["xst-1"]\n', "'xst-1' is not a code prefix"),
        ("jobs = 0\n", "jobs must be a positive integer"),
        ('per-file-ignores = ["x"]\n', "per-file-ignores must be a table"),
        ("select = [\n", "cannot read TOML"),
    ],
)
def test_bad_config_is_a_clear_error_with_exit_2(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    path = write_config(in_tmp, body)
    (in_tmp / "m.py").write_text("x = 1\n")
    assert main(["m.py"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("extstream-lint: error: ")
    assert expected.format(path=path) in err
    with pytest.raises(ConfigError):
        load_config(str(path))


def test_isolated_and_explicit_config(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(in_tmp, "bogus = 1\n")
    other = in_tmp / "other"
    other.mkdir()
    explicit = write_config(other, 'select = ["XST0"]\n')
    (in_tmp / "m.py").write_text(BODY)
    assert main(["--isolated", "m.py"]) == 1
    assert codes_in(capsys.readouterr().out) == ["XST101", "XST102", "XST001"]
    assert main(["--config", str(explicit), "m.py"]) == 1
    assert codes_in(capsys.readouterr().out) == ["XST001"]
    assert main(["--config", "missing.toml", "m.py"]) == 2


def test_bad_flags_exit_2(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "m.py").write_text("x = 1\n")
    assert main(["--select", "XST999", "m.py"]) == 2
    assert "valid codes" in capsys.readouterr().err
    # another tool's prefix selects nothing of ours: an error, not a silent clean run
    for flag, value in [
        ("--select", "E501"),
        ("--extend-select", "W"),
        ("--ignore", "F4"),
        ("--extend-ignore", "ABC1"),
    ]:
        assert main([flag, value, "m.py"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"extstream-lint: error: {flag}: '{value}' matches no extstream code")
        assert err.count("\n") == 1
    assert main(["--select", "xst1", "m.py"]) == 0  # ours, in any case
    assert main(["-j", "zero", "m.py"]) == 2
    assert main(["--format", "xml", "m.py"]) == 2
    assert main(["--select", "XST1,", "-j", "auto"]) == 0  # no paths: the current directory


def test_jobs_auto_in_the_configuration_as_on_the_command_line(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "pyproject.toml").write_text('[tool.extstream-lint]\njobs = "auto"\n')
    assert main(["--show-settings"]) == 0
    assert f"jobs = {os.cpu_count() or 1}" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("table", ["extstream_lint", "extstream", "Extstream-Lint"])
def test_a_misspelt_table_is_not_silently_ignored(
    in_tmp: Path, table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "pyproject.toml").write_text(f'[tool.{table}]\nignore = ["XST101"]\n')
    (in_tmp / "m.py").write_text("x = 1\n")
    assert main(["--no-cache", "m.py"]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"extstream-lint: warning: [tool.{table}] in {in_tmp / 'pyproject.toml'} is not read: "
        "extstream's table is [tool.extstream-lint]\n"
    )
    assert main(["--no-cache", "-q", "m.py"]) == 0
    assert capsys.readouterr().err == ""


def test_a_misspelt_table_above_the_configuration_in_use_is_not_looked_at(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "pyproject.toml").write_text("[tool.extstream_lint]\n")
    (in_tmp / "sub").mkdir()
    (in_tmp / "sub" / "pyproject.toml").write_text("[tool.extstream-lint]\n")
    (in_tmp / "sub" / "m.py").write_text("x = 1\n")
    os.chdir(in_tmp / "sub")
    assert main(["--no-cache", "m.py"]) == 0
    assert capsys.readouterr().err == ""


SELECT_CASES = [
    # flake8's rule (the user's prefix is explicit, the default ignore of the opt-in codes
    # is not): an explicit prefix selects every code under it, XST202/XST211 included
    pytest.param('select = ["XST"]\n', [], True, id="select = XST"),
    pytest.param('extend-select = ["XST"]\n', [], True, id="extend-select = XST"),
    pytest.param("", ["--select", "XST"], True, id="--select XST"),
    pytest.param("", [], False, id="the default"),
    pytest.param('select = ["XST1"]\n', [], False, id="select = XST1"),
    pytest.param(
        'extend-select = ["XST"]\nextend-ignore = ["XST202", "XST211"]\n',
        [],
        False,
        id="extend-select = XST, the opt-in codes ignored",
    ),
]


@pytest.mark.parametrize("config, flags, opt_in", SELECT_CASES)
def test_an_explicit_prefix_selects_the_off_by_default_codes(
    in_tmp: Path, config: str, flags: list[str], opt_in: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """What issue 41 found the README's comments contradicting: they now say this."""
    (in_tmp / "pyproject.toml").write_text(f"[tool.extstream-lint]\n{config}")
    assert main(["--show-settings", *flags]) == 0
    enabled = next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("enabled")
    )
    assert ("XST211" in enabled) == opt_in and ("XST202" in enabled) == opt_in


def test_the_readme_says_what_an_explicit_prefix_selects() -> None:
    """The README's configuration block and its flake8 advice say that ``XST`` turns on the
    off-by-default codes (its comment used to say the opposite)."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    select_line = next(line for line in readme.splitlines() if line.startswith("select = "))
    assert "off-by-default codes too" in select_line, select_line
    flake8 = readme[readme.index("### flake8") :]
    flake8 = flake8[: flake8.index("###", 4)]
    assert "extend-ignore = XST202,XST211" in flake8
