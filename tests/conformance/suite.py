"""The conformance suite: cases by section of the language reference, run as a user runs them.

Each case is a file ``fixtures/<section>/<case>.py``, or a directory
``fixtures/<section>/<case>/`` of several modules (its own import root, as a project is) for
the import system and for values that travel through helpers in other modules. A case holds a
**positive** twin, whose refused operations carry ``# expect: XST101`` comments on the line the
finding must be reported on (``# or: XST101`` marks a line that may carry it instead: the body
of a method both twins' instances share), and a **negative** twin, introduced by a
``# negative: ...`` comment line: the same construct carrying a managed ``torch.npu.Stream``, a
CUDA stream, or a literal flag that turns the path off, which must give no finding at all. The
first comment line of the case (of ``main.py`` for a directory) names the construct, as the
matrix shows it.

A case is measured through the entry points users run: every section is linted by one CLI
project run (``python -m extstream_lint``, default codes, no cache) of a private copy of
``fixtures/``. The positive twin passes when every expected (file, line, code) is reported, the
negative when nothing else is (a finding the case does not expect counts against the negative
twin wherever it is: a wrong code on the positive line is a false alarm too). flake8 over the
same tree, and flake8 given one file at a time (as an editor runs it) on a sample, must report
the same. What the analysis does not follow is
listed once, in :mod:`tests.conformance.gaps`; the tests turn that table into strict xfails and
:mod:`tests.conformance.matrix` into ``docs/conformance.md``. The expectations themselves are
checked by running the twins under the simulated torch_npu (:mod:`tests.conformance.test_runtime`).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
REPO = HERE.parent.parent

#: The twins of a case; a known gap names the one the analysis gets wrong.
POSITIVE = "positive"
NEGATIVE = "negative"


@dataclass(frozen=True)
class Section:
    """A folder of cases and the part of the language reference it exercises."""

    folder: str
    title: str
    reference: str
    #: The oldest Python whose parser reads every case of the section (``match``: 3.10).
    min_python: tuple[int, int] = (3, 9)


#: In the order the matrix shows them.
SECTIONS: tuple[Section, ...] = (
    Section("assignment", "Assignment and unpacking", "7.2 Assignment statements"),
    Section("calls", "Calls and argument binding", "6.3.4 Calls"),
    Section("unbound_methods", "Methods called through their class", "3.2 Instance methods"),
    Section("functions", "Function definitions and decorators", "8.7 Function definitions"),
    Section("closures", "Lambdas, closures, global and nonlocal", "4.2 Naming and binding"),
    Section("classes", "Class definitions and the object model", "8.8, 3.3 Data model"),
    Section("class_guarantees", "What a class guarantees its instances", "3.3.1, 3.3.2"),
    Section("declared_types", "Declared types give a value its class", "PEP 484, 3.3.1"),
    Section("placement", "One finding per defect, where the code must change", "6.3.4 Calls"),
    Section("dataclasses", "Dataclasses and named tuples", "dataclasses, typing.NamedTuple"),
    Section("loops", "Loops carrying values round", "8.2 The while statement, 8.3 The for"),
    Section("with_stmt", "`with` and context managers", "8.5 The with statement"),
    Section("generators", "Generators and iteration", "6.2.9 Yield expressions"),
    Section("comprehensions", "Comprehensions", "6.2.4 Displays"),
    Section("async", "Coroutines and `async`", "8.9 Coroutines"),
    Section("exceptions", "Exceptions", "8.4 The try statement"),
    Section("containers", "Containers and holders", "3.3.7 Container types"),
    Section("library_flow", "What library calls do to values", "docs/flow-models.md"),
    Section(
        "call_effects", "What a call does to state outside its frame", "4.2.2, 3.3.7, contextvars"
    ),
    Section("constants", "Constants, conditions and literal flags", "8.1 The if statement"),
    Section("imports", "The import system", "5 The import system"),
    Section("match", "`match`", "8.6 The match statement", (3, 10)),
    Section(
        "data_model", "The data model: descriptors, metaclasses, enums", "3.3 Special method names"
    ),
    Section("autograd", "Autograd and grad mode", "torch.autograd, hazards.md hazard 3"),
    Section("devices", "Devices and copies between them", "hazards.md hazard 1, XST112"),
    Section("hazard_flow", "Hazards through value flow", "hazards.md, docs/flow-models.md"),
)

_EXPECT = re.compile(r"#\s*expect:\s*(XST\d{3}(?:\s*,\s*XST\d{3})*)")
_OR = re.compile(r"#\s*or:\s*(XST\d{3}(?:\s*,\s*XST\d{3})*)")
_NEGATIVE = re.compile(r"^\s*#\s*negative:", re.MULTILINE)
_CODE = re.compile(r"XST\d{3}")
#: flake8's default output: ``path:row:col: CODE text``.
_FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: (?P<code>[A-Z]+\d+) ")

#: A finding as the suite compares them: (path under fixtures/, line, code).
Key = tuple[str, int, str]


def expectations(source: str, path: str, marker: re.Pattern[str] = _EXPECT) -> set[Key]:
    """The (path, line, code) findings that ``# expect: XST...`` comments ask for.

    With ``marker=_OR``: the lines where ``# or: XST...`` accepts the same finding instead.
    """
    found: set[Key] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            match = marker.search(token.string)
            if match:
                for code in _CODE.findall(match.group(1)):
                    found.add((path, token.start[0], code))
    return found


@dataclass(frozen=True)
class Case:
    """One construct: a file, or a directory of modules, holding both twins."""

    section: Section
    name: str
    #: The case's files, relative to ``fixtures/``.
    files: tuple[str, ...]
    construct: str
    expected: frozenset[Key]
    #: Lines that may carry an expected finding instead of (or as well as) its ``expect`` line:
    #: a refused call in a method body shared by the instances of both twins, which the
    #: analysis may report where it happens or at the call that passes the instance.
    alternatives: frozenset[Key]
    has_negative: bool

    @property
    def id(self) -> str:
        return f"{self.section.folder}/{self.name}"

    @property
    def multi_module(self) -> bool:
        return len(self.files) > 1

    @property
    def runs_here(self) -> bool:
        """Whether this Python can parse the case (older ones cannot parse ``match``)."""
        return sys.version_info[:2] >= self.section.min_python


def _construct(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# ") and not line.startswith("# negative:"):
            return line[2:].strip()
    return ""


def _case(section: Section, entry: Path) -> Case:
    paths = sorted(entry.rglob("*.py")) if entry.is_dir() else [entry]
    files = tuple(p.relative_to(FIXTURES).as_posix() for p in paths)
    texts = {p.relative_to(FIXTURES).as_posix(): p.read_text(encoding="utf-8") for p in paths}
    main = f"{section.folder}/{entry.name}/main.py" if entry.is_dir() else files[0]
    expected: set[Key] = set()
    alternatives: set[Key] = set()
    for rel, text in texts.items():
        expected |= expectations(text, rel)
        alternatives |= expectations(text, rel, _OR)
    return Case(
        section=section,
        name=entry.stem if entry.is_file() else entry.name,
        files=files,
        construct=_construct(texts.get(main, "")),
        expected=frozenset(expected),
        alternatives=frozenset(alternatives),
        has_negative=any(_NEGATIVE.search(text) for text in texts.values()),
    )


def load_cases() -> list[Case]:
    """Every case, section by section in the matrix's order, then by name."""
    cases = []
    for section in SECTIONS:
        folder = FIXTURES / section.folder
        entries = sorted(p for p in folder.iterdir() if p.suffix == ".py" or p.is_dir())
        cases.extend(_case(section, e) for e in entries if e.name != "__pycache__")
    return cases


@dataclass
class Measurement:
    """What the entry points reported, per (path, line, code), on the suite's fixtures."""

    cli: set[Key]
    flake8_tree: set[Key]
    #: The CLI's message for each finding (:mod:`.placement` reads the defect it names).
    messages: dict[Key, str] = field(default_factory=dict)
    #: Files given to flake8 one at a time, and what it reported on them.
    flake8_each: dict[str, set[Key]] = field(default_factory=dict)
    seconds: float = 0.0

    def of(self, case: Case) -> set[Key]:
        files = set(case.files)
        return {key for key in self.cli if key[0] in files}


@dataclass(frozen=True)
class Verdict:
    """How one case fared: its positive twin found, its negative twin silent."""

    case: Case
    missing: frozenset[Key]
    unexpected: frozenset[Key]

    @property
    def positive(self) -> bool:
        return not self.missing

    @property
    def negative(self) -> bool:
        return not self.unexpected

    def failing(self) -> set[str]:
        """The twins that fail, as :mod:`.gaps` names them."""
        return {t for t, ok in ((POSITIVE, self.positive), (NEGATIVE, self.negative)) if not ok}


def verdict(case: Case, measured: Measurement) -> Verdict:
    """An expected finding is met on its line or on an ``# or:`` line of the same code; a
    finding on neither is unexpected."""
    actual = measured.of(case)
    met_codes = {code for _, _, code in actual & case.alternatives}
    missing = {key for key in case.expected - actual if key[2] not in met_codes}
    unexpected = actual - case.expected - case.alternatives
    return Verdict(case, frozenset(missing), frozenset(unexpected))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # The copy sits outside the checkout: make the package under test importable from there.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.pop("EXTSTREAM_CACHE_DIR", None)
    return env


def _run(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=_env(), capture_output=True, text=True, check=False
    )


def _cli(root: Path, folders: Sequence[str]) -> dict[Key, str]:
    """Each finding of one CLI project run, with its message."""
    done = _run(
        [
            "-m",
            "extstream_lint",
            "--isolated",
            "--no-cache",
            "--format",
            "json",
            "-j",
            "1",
            *folders,
        ],
        root,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"extstream-lint failed ({done.returncode}):\n{done.stderr}")
    report = json.loads(done.stdout)
    return {
        (f["filename"].removeprefix("./"), f["line"], f["code"]): f["message"]
        for f in report["findings"]
    }


def _parse_flake8(output: str) -> set[Key]:
    found: set[Key] = set()
    for raw in output.splitlines():
        match = _FLAKE8_LINE.match(raw)
        if match and match["code"].startswith("XST"):
            found.add((match["path"].removeprefix("./"), int(match["line"]), match["code"]))
    return found


def _flake8(root: Path, paths: Sequence[str]) -> set[Key]:
    done = _run(["-m", "flake8", "--isolated", "-j", "1", *paths], root)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"flake8 failed ({done.returncode}):\n{done.stderr}")
    return _parse_flake8(done.stdout)


def flake8_sample(cases: Iterable[Case]) -> list[str]:
    """Files flake8 is given one at a time: every multi-module case's, and each section's first.

    The cases where one file at a time can differ from a tree are those whose values come from
    other modules; the tree run already covers every file.
    """
    sample: list[str] = []
    seen: set[str] = set()
    for case in cases:
        if case.multi_module:
            sample.extend(case.files)
        elif case.section.folder not in seen:
            sample.append(case.files[0])
        seen.add(case.section.folder)
    return sample


def measure(cases: Sequence[Case], each: bool = True) -> Measurement:
    """Lint a private copy of the fixtures with the CLI and with flake8 (tree, then a sample)."""
    import time

    start = time.perf_counter()
    folders = sorted({c.section.folder for c in cases if c.runs_here})
    with tempfile.TemporaryDirectory(prefix="xst-conformance-") as tmp:
        root = Path(tmp)
        for folder in folders:
            shutil.copytree(
                FIXTURES / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__")
            )
        messages = _cli(root, folders)
        measured = Measurement(
            cli=set(messages), flake8_tree=_flake8(root, folders), messages=messages
        )
        if each:
            sample = flake8_sample(c for c in cases if c.runs_here)
            done = _run(["-m", "tests.conformance.flake8_each", *sample], root)
            if done.returncode not in (0, 1):
                raise RuntimeError(f"flake8 failed ({done.returncode}):\n{done.stderr}")
            found = _parse_flake8(done.stdout)
            for path in sample:
                measured.flake8_each[path] = {key for key in found if key[0] == path}
    measured.seconds = time.perf_counter() - start
    return measured
