"""Real projects, ratios in one run: extstream on published wheels and the standard library.

Targets (issue 15), every ratio measured in this run against the named baseline:

* as published: the CLI <= 0.10x ``flake8 --select=E,F,W`` on the same tree; flake8 with our
  plugin <= 1.10x flake8 without it, on one large module (the editor case);
* with the overlay (below): cold CLI CPU <= 3.0x libcst's bare parse of the tree; warm with
  nothing changed <= 0.15x cold; one module edited <= 0.25x cold; flake8 on one file: warm
  <= 1.5x flake8 without the plugin, cold (no cache yet) <= 1.5x libcst's parse of the tree;
* the standard-library set through ``flake8 -j1``: the plugin's added cost <= 2.5x libcst's
  parse of those files (measured on the set each file prefixed with
  ``from torch_npu.npu import ExternalStream``, as issue 15 did, and on the plain set);
* both misuses of the overlay found in every mode; no XST000 and no finding on the
  published code.

Corpora, fetched and unpacked by this script into a cache directory outside site-packages
and outside this repository (default ``~/.cache/extstream-bench/``, ``--cache-dir``):

* ``transformers`` 5.25.0 (pure wheel, 2,951 modules);
* ``vllm-ascend`` 0.23.0: PyPI has only platform wheels, so only the ``.py`` files of its
  ``vllm_ascend/`` package are kept (482 modules);
* ``stdlib``: the interpreter's top-level standard-library modules (``Lib/*.py``, 168 on
  3.11) copied into a plain directory (no package), where ``import os`` names the copy;
* on request only (``--corpora sympy,django``): ``sympy`` 1.14.0 (pure wheel, 1,532
  modules, 586 of them on import cycles) and ``django`` 5.2.19 (pure wheel, 885 modules).

Each corpus gets a ``pyproject.toml`` at the root of its copy (the project root, where
``.extstream_cache/`` goes). The overlay, written into a second copy: an adapter module that
makes an ExternalStream (``torch_npu.npu.ExternalStream(ptr)``), re-exported by the hub (the
module that the most modules import, counted here), and two modules ``_xst_bench_a`` and
``_xst_bench_b`` that import each other: B passes the re-exported stream to A's helper, which
synchronizes it (XST101, reported in B), and A queries a stream that B makes (XST102, in A).

Every command runs as a child process with a timeout (a hang prints TIMEOUT and the run goes
on); wall time and the children's CPU time (``RUSAGE_CHILDREN``) are both measured, ratios of
medians are judged on CPU (the steadier figure on a shared machine) with wall shown beside.
Run it by hand, never as a timed test; exit status 1 if a target is missed, a misuse is
missed or a command times out::

    python benchmarks/bench_real.py --quick                  # stdlib subset, 1 repeat, 60 s
    python benchmarks/bench_real.py                          # all corpora, 3 repeats, 600 s
    python benchmarks/bench_real.py --corpora vllm-ascend --repeats 1 --timeout 300
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent


# --- corpora --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wheel:
    """A published wheel and the top-level package of it that is linted."""

    requirement: str
    package: str


WHEELS = {
    "transformers": Wheel("transformers==5.25.0", "transformers"),
    "vllm-ascend": Wheel("vllm-ascend==0.23.0", "vllm_ascend"),
    "sympy": Wheel("sympy==1.14.0", "sympy"),
    "django": Wheel("django==5.2.19", "django"),
}
STDLIB = "stdlib"
#: The plain directory the standard library is copied into (no ``__init__.py``: a root).
STDLIB_DIR = "lib"
CORPORA = (STDLIB, "vllm-ascend", "transformers")
#: Other shapes of real code, on request (``--corpora sympy,django``): sympy's 1,532 modules
#: with 586 on import cycles and files of 10,000 lines; django's 885 with a settings hub.
EXTRA_CORPORA = ("sympy", "django")

PYPROJECT = '[project]\nname = "extstream-bench-corpus"\nversion = "0"\n'


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "extstream-bench"


def check_cache_dir(cache: Path) -> None:
    """The linter never analyses installed packages, and the corpora must not land in our
    own tree (pytest, ruff and flake8 would find them): refuse both."""
    resolved = cache.resolve()
    if {"site-packages", "dist-packages"} & set(resolved.parts):
        sys.exit(f"--cache-dir {cache}: inside site-packages, where the linter analyses nothing")
    if resolved == REPOSITORY or REPOSITORY in resolved.parents:
        sys.exit(f"--cache-dir {cache}: inside this repository's working tree")


def fetch_wheel(wheel: Wheel, cache: Path, timeout: float) -> Path:
    """The wheel file, downloaded once with ``pip download --no-deps``."""
    directory = cache / "wheels" / wheel.requirement.replace("==", "-")
    found = sorted(directory.glob("*.whl"))
    if not found:
        directory.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        print(f"  fetching {wheel.requirement}: {' '.join(command[1:])} -d {directory}")
        subprocess.run(
            [*command, "-d", str(directory), wheel.requirement], check=True, timeout=timeout
        )
        found = sorted(directory.glob("*.whl"))
    if not found:
        sys.exit(f"pip download {wheel.requirement} gave no wheel in {directory}")
    return found[0]


def unpack_package(wheel_file: Path, package: str, destination: Path) -> Path:
    """The ``.py`` files of ``package`` in the wheel, unpacked once into ``destination``
    (for a platform wheel, its pure-Python part)."""
    done = destination / ".unpacked"
    if not done.exists():
        shutil.rmtree(destination, ignore_errors=True)
        with zipfile.ZipFile(wheel_file) as archive:
            for info in archive.infolist():
                parts = Path(info.filename).parts
                wanted = parts and parts[0] == package and info.filename.endswith(".py")
                if wanted and ".." not in parts:
                    archive.extract(info, destination)
        done.write_text(wheel_file.name)
    return destination


def stdlib_source(cache: Path) -> Path:
    """The interpreter's top-level ``Lib/*.py`` copied into ``<cache>/unpacked/stdlib-X.Y/lib``."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    destination = cache / "unpacked" / f"stdlib-{version}"
    done = destination / ".unpacked"
    if not done.exists():
        shutil.rmtree(destination, ignore_errors=True)
        (destination / STDLIB_DIR).mkdir(parents=True)
        for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
            shutil.copy2(path, destination / STDLIB_DIR / path.name)
        done.write_text(sys.version)
    return destination


def build_tree(source: Path, target: str, destination: Path, keep: Iterable[str] | None) -> Path:
    """A fresh copy of ``source/target`` (only ``keep``, relative paths, when given) with a
    ``pyproject.toml`` that makes ``destination`` the project root."""
    shutil.rmtree(destination, ignore_errors=True)
    if keep is None:
        shutil.copytree(source / target, destination / target)
    else:
        for relative in keep:
            (destination / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / relative, destination / relative)
    (destination / "pyproject.toml").write_text(PYPROJECT)
    return destination


# --- the import graph, as the linter's module resolution sees it -----------------------------


def module_names(tree: Path, target: str) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``tree/target``: walk up while the
    directory holds an ``__init__.py``; the directory above the topmost package is a root
    (for a file outside any package, its own directory is), as mypy and the linter do."""
    names: dict[str, Path] = {}
    for path in sorted((tree / target).rglob("*.py")):
        parts = [] if path.stem == "__init__" else [path.stem]
        directory = path.parent
        while (directory / "__init__.py").is_file():
            parts.insert(0, directory.name)
            directory = directory.parent
        if parts:
            names[".".join(parts)] = path
    return names


def imported_modules(path: Path, name: str, modules: Mapping[str, Path]) -> set[str]:
    """The project modules that ``path`` (module ``name``) imports, anywhere in the file:
    ``import a.b`` names ``a.b``; ``from a import b`` names ``a``, and ``a.b`` when that is a
    module; relative imports are resolved against the importer's package."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                if node.level - 1 > len(base):
                    continue
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            if origin in modules:
                found.add(origin)
            for alias in node.names:
                submodule = f"{origin}.{alias.name}" if origin else alias.name
                if submodule in modules:
                    found.add(submodule)
    found.discard(name)
    return found


def import_graph(tree: Path, target: str) -> dict[str, set[str]]:
    """Importer -> the project modules it imports."""
    modules = module_names(tree, target)
    return {name: imported_modules(path, name, modules) for name, path in modules.items()}


def import_counts(graph: Mapping[str, set[str]]) -> Counter[str]:
    """Module -> how many modules import it."""
    counts: Counter[str] = Counter()
    for imported in graph.values():
        counts.update(imported)
    return counts


#: Names the linter takes from its contract table, never from the project's files.
NOT_PROJECT = frozenset({"torch", "torch_npu", "__future__", "typing", "contextlib"})


def pick_hub(counts: Counter[str]) -> str:
    """The most-imported module (ties: the first name), the one a project would use to
    share an adapter."""
    candidates = [(-n, name) for name, n in counts.items() if name not in NOT_PROJECT]
    if not candidates:
        raise ValueError("no module is imported by another one")
    return min(candidates)[1]


def in_cycles(graph: Mapping[str, set[str]]) -> int:
    """How many modules lie on an import cycle (strongly connected components of more than
    one module), by the linter's own Tarjan (:func:`extstream_lint.project.graph.components`)."""
    from extstream_lint.project.graph import components

    def successors(node: str) -> list[str]:
        return sorted(following for following in graph[node] if following in graph)

    done: set[str] = set()
    cyclic = 0
    for start in graph:
        if start in done:
            continue
        for members in components(start, successors, done.__contains__):
            done.update(members)
            if len(members) > 1:
                cyclic += len(members)
    return cyclic


# --- the overlay ----------------------------------------------------------------------------

#: Marks the line whose number each edit changes (a function body: the interface stays).
EDIT_MARK = "# bench-edit"

ADAPTER = '''\
"""Benchmark overlay: the project's one place that wraps a vendor stream pointer."""
import torch_npu


def external_stream(ptr):
    return torch_npu.npu.ExternalStream(ptr)
'''

HUB_TAIL = """

from {adapter} import external_stream as xst_bench_external_stream


def _xst_bench_edited():
    return 0  {mark}
"""

HELPER = '''\
"""Benchmark overlay, module A: a helper that synchronizes the stream it is given."""
{import_b}


def drain(s):
    s.synchronize()


def poll(ptr):
    s = _xst_bench_b.open_stream(ptr)
    return s.query()  # expect XST102
'''

CALLER = '''\
"""Benchmark overlay, module B (in a cycle with A): makes streams through the hub."""
from {hub} import xst_bench_external_stream
{import_a}


def open_stream(ptr):
    return xst_bench_external_stream(ptr)


def step(ptr):
    edits = 0  {mark}
    s = xst_bench_external_stream(ptr)
    _xst_bench_a.drain(s)  # expect XST101
    return edits
'''


@dataclass(frozen=True)
class Expected:
    """A finding the overlay must produce: path relative to the tree root, line, code."""

    path: str
    line: int
    code: str


@dataclass(frozen=True)
class Overlay:
    hub: str
    hub_path: Path
    adapter: Path
    helper: Path
    caller: Path
    expected: tuple[Expected, ...]


def _import_sibling(package: str, stem: str) -> str:
    return f"from {package} import {stem}" if package else f"import {stem}"


def write_overlay(tree: Path, target: str, hub: str) -> Overlay:
    """Write the adapter, its re-export by ``hub`` and the two misusing modules into the
    copy at ``tree``; the adapter and the modules go into the hub's package."""
    modules = module_names(tree, target)
    hub_path = modules[hub]
    package = hub if hub_path.name == "__init__.py" else hub.rpartition(".")[0]
    directory = hub_path.parent

    def qualified(stem: str) -> str:
        return f"{package}.{stem}" if package else stem

    adapter = directory / "_xst_bench_adapter.py"
    adapter.write_text(ADAPTER)
    with hub_path.open("a", encoding="utf-8") as handle:
        handle.write(HUB_TAIL.format(adapter=qualified("_xst_bench_adapter"), mark=EDIT_MARK))
    helper = directory / "_xst_bench_a.py"
    helper.write_text(HELPER.format(import_b=_import_sibling(package, "_xst_bench_b")))
    caller = directory / "_xst_bench_b.py"
    caller.write_text(
        CALLER.format(hub=hub, import_a=_import_sibling(package, "_xst_bench_a"), mark=EDIT_MARK)
    )
    expected = []
    for path in (caller, helper):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "# expect " in line:
                code = line.rsplit("# expect ", 1)[1].strip()
                expected.append(Expected(path.relative_to(tree).as_posix(), number, code))
    return Overlay(hub, hub_path, adapter, helper, caller, tuple(expected))


def edit_body(path: Path, value: int) -> None:
    """Change the number on the line marked :data:`EDIT_MARK` (a function body)."""
    text = path.read_text(encoding="utf-8")
    edited, count = re.subn(rf"\d+(  {re.escape(EDIT_MARK)})", rf"{value}\1", text)
    if count != 1:
        raise ValueError(f"{path}: expected one {EDIT_MARK} line, found {count}")
    path.write_text(edited, encoding="utf-8")


def prefix_files(tree: Path, target: str, line: str) -> None:
    """Put ``line`` at the top of every ``.py`` under ``tree/target`` (after a coding
    cookie or shebang would change nothing the linter cares about: none in Lib/*.py)."""
    for path in sorted((tree / target).rglob("*.py")):
        path.write_bytes(line.encode() + b"\n" + path.read_bytes())


# --- running and measuring ------------------------------------------------------------------

OK = "ok"
TIMEOUT = "TIMEOUT"

FINDING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>XST\d{3})\b")


@dataclass(frozen=True)
class Run:
    """One child process: wall and CPU seconds (lower bounds after a timeout), status."""

    wall: float
    cpu: float
    status: str
    output: str = ""

    def findings(self) -> list[tuple[str, int, str]]:
        """(path, line, code) of every XST line the command printed."""
        found = []
        for line in self.output.splitlines():
            match = FINDING.match(line)
            if match:
                path = os.path.normpath(match["path"]).replace(os.sep, "/")
                found.append((path, int(match["line"]), match["code"]))
        return found


def measure(command: Sequence[str], cwd: Path, timeout: float, stdin: Path | None = None) -> Run:
    """Run ``command`` in its own process group; kill the group after ``timeout`` s."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(tempfile.TemporaryFile("w+b"))
        err = stack.enter_context(tempfile.TemporaryFile("w+b"))
        source = stack.enter_context(open(stdin, "rb")) if stdin else subprocess.DEVNULL
        process = subprocess.Popen(
            list(command), cwd=cwd, stdin=source, stdout=out, stderr=err, start_new_session=True
        )
        try:
            code = process.wait(timeout=timeout)
            status = OK if code in (0, 1) else f"ERROR {code}"
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            status = TIMEOUT
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
        if status.startswith("ERROR"):
            err.seek(0)
            print(f"    {status}: {' '.join(command[:6])}\n{err.read().decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, status, output)


#: Parses every ``.py`` under a directory with libcst: the baseline of the analysis' cost.
PARSE = r"""
import os, sys
import libcst
parsed = failed = 0
for directory, dirs, names in os.walk(sys.argv[1]):
    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
    for name in sorted(names):
        if name.endswith(".py"):
            with open(os.path.join(directory, name), "rb") as handle:
                data = handle.read()
            try:
                libcst.parse_module(data)
                parsed += 1
            except Exception:
                failed += 1
print(parsed, failed)
"""


def _bench_flake8() -> ModuleType:
    """benchmarks/bench_flake8.py, for its driver that hides our plugin from flake8."""
    spec = importlib.util.spec_from_file_location("bench_flake8", HERE / "bench_flake8.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_flake8", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@dataclass
class Commands:
    """The exact command lines, built once (cwd: the tree's root)."""

    jobs: int
    driver: str = field(default_factory=lambda: _bench_flake8().DRIVER)

    def cli(self, target: str, cache: bool = True) -> list[str]:
        flags = [] if cache else ["--no-cache"]
        return [
            sys.executable,
            "-m",
            "extstream_lint",
            "--isolated",
            *flags,
            "-j",
            str(self.jobs),
            target,
        ]

    def stdin(self, shown: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "extstream_lint",
            "--isolated",
            "-",
            "--stdin-filename",
            shown,
        ]

    def flake8_efw(self, target: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            "--select=E,F,W",
            "-j",
            str(self.jobs),
            target,
        ]

    def flake8(self, plugin: bool, select: str, files: Sequence[str], jobs: int = 1) -> list[str]:
        side = "with" if plugin else "without"
        return [
            sys.executable,
            "-c",
            self.driver,
            side,
            "--isolated",
            f"--select={select}",
            "-j",
            str(jobs),
            *files,
        ]

    def parse(self, target: str) -> list[str]:
        return [sys.executable, "-c", PARSE, target]


def shown(command: Sequence[str]) -> str:
    """A command line as a person would type it (the driver and parser scripts named)."""
    words = ["python" if w == sys.executable else w for w in command]
    if len(words) > 2 and words[1] == "-c":
        script = "<bench_flake8 DRIVER>" if "flake8" in words[2] else "<libcst parse script>"
        words[2] = script
    return " ".join(words)


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """The median of some runs (or a difference of medians), named by what was run."""

    name: str
    wall: float
    cpu: float
    status: str


def figure(name: str, runs: Sequence[Run], reason: str = "") -> Figure:
    if not runs:
        return Figure(name, 0.0, 0.0, reason or "not run")
    bad = [r for r in runs if r.status != OK]
    if bad:
        return Figure(name, max(r.wall for r in bad), max(r.cpu for r in bad), bad[0].status)
    return Figure(
        name,
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        OK,
    )


def minus(name: str, a: Figure, b: Figure) -> Figure:
    """``a - b``. When ``a`` timed out, a lower bound of it (``a`` is one); when ``b`` did
    not finish, or ``a`` failed otherwise, that side (its bounds and status)."""
    if b.status != OK:
        return b
    if a.status not in (OK, TIMEOUT):
        return a
    return Figure(name, a.wall - b.wall, a.cpu - b.cpu, a.status)


@dataclass(frozen=True)
class Ratio:
    corpus: str
    what: str
    measured: Figure
    baseline: Figure
    target: float

    def verdict(self) -> str:
        if self.measured.status != OK:
            return self.measured.status
        if self.baseline.status != OK:
            return f"baseline {self.baseline.status}"
        return "met" if self.measured.cpu / self.baseline.cpu <= self.target else "NOT met"

    def cells(self) -> list[str]:
        def seconds(f: Figure) -> str:
            if f.status == OK:
                return f"{f.wall:.2f}/{f.cpu:.2f}"
            if f.status == TIMEOUT:
                return f">{f.wall:.0f}/>={f.cpu:.1f}"
            return f.status.split(":")[0]

        both = self.measured.status == OK and self.baseline.status == OK
        ratio = "-"
        if both and self.baseline.cpu > 0 and self.baseline.wall > 0:
            cpu = self.measured.cpu / self.baseline.cpu
            ratio = f"{cpu:.3f}x ({self.measured.wall / self.baseline.wall:.3f}x)"
        elif self.measured.status == TIMEOUT and self.baseline.status == OK:
            # What the killed run had used by then: a lower bound of the ratio.
            cpu = self.measured.cpu / self.baseline.cpu if self.baseline.cpu > 0 else 0.0
            ratio = f">={cpu:.3f}x"
        return [
            self.corpus,
            self.what,
            seconds(self.measured),
            self.baseline.name,
            seconds(self.baseline),
            ratio,
            f"<= {self.target:g}x",
            self.verdict(),
        ]


@dataclass
class Check:
    """Whether one mode reported what it must (and nothing else)."""

    corpus: str
    mode: str
    verdict: str

    @property
    def passed(self) -> bool:
        return self.verdict.startswith("ok")


def check_findings(run: Run, expected: Sequence[Expected], relative_to: str = "") -> str:
    """``ok`` or what is wrong: MISSED findings, unexpected ones, XST000, a timeout."""
    if run.status != OK:
        return f"{run.status}: not checked"
    found = {
        (os.path.normpath(os.path.join(relative_to, p)).replace(os.sep, "/"), line, code)
        for p, line, code in run.findings()
    }
    wanted = {(e.path, e.line, e.code) for e in expected}
    problems = []
    missed = wanted - found
    if missed:
        problems.append("MISSED " + ", ".join(f"{p}:{n} {c}" for p, n, c in sorted(missed)))
    extra = found - wanted
    if any(code == "XST000" for _, _, code in extra):
        problems.append("XST000 reported")
    if extra:
        shown_extra = sorted(extra)[:5]
        problems.append(
            f"{len(extra)} unexpected: " + ", ".join(f"{p}:{n} {c}" for p, n, c in shown_extra)
        )
    return "; ".join(problems) if problems else f"ok: {len(wanted)}/{len(wanted)} found"


@dataclass
class Results:
    ratios: list[Ratio] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)


class Runner:
    """Runs keyed commands; once a key times out, its later repeats (and the runs that
    depend on it) are not run, so a hang costs one timeout, not one per repeat.

    A measured command may take ``timeout`` seconds plus what its target allows next to
    its baseline's wall time so far (``budget``: baseline key -> target), so that a busy
    machine slowing a long run within its target is not taken for a hang."""

    def __init__(self, timeout: float, baseline_timeout: float) -> None:
        self.timeout = timeout
        self.baseline_timeout = baseline_timeout
        self.runs: dict[str, list[Run]] = {}
        self.dead: dict[str, str] = {}

    def __call__(
        self,
        key: str,
        command: Sequence[str],
        cwd: Path,
        after: Sequence[str] = (),
        stdin: Path | None = None,
        baseline: bool = False,
        budget: Mapping[str, float] | None = None,
    ) -> Run | None:
        blocked = [k for k in (key, *after) if k in self.dead]
        if blocked:
            self.dead.setdefault(key, f"not run: {blocked[0]} {self.dead[blocked[0]]}")
            return None
        limit = self.baseline_timeout if baseline else self.timeout
        limit += sum(target * self.wall(other) for other, target in (budget or {}).items())
        run = measure(command, cwd, limit, stdin)
        self.runs.setdefault(key, []).append(run)
        note = "" if run.status == OK else f"  <- {run.status} after {limit:.0f}s"
        print(f"    {key:<28} {run.wall:8.2f}s wall {run.cpu:8.2f}s cpu{note}", flush=True)
        if run.status != OK:
            self.dead[key] = run.status
        return run

    def wall(self, key: str) -> float:
        """The longest wall time of ``key``'s finished runs so far (0 if none)."""
        return max((r.wall for r in self.runs.get(key, []) if r.status == OK), default=0.0)

    def figure(self, key: str, name: str) -> Figure:
        runs = self.runs.get(key, [])
        if key in self.dead and not any(r.status != OK for r in runs):
            return figure(name, [], self.dead[key])
        return figure(name, runs)


def remove_cache(tree: Path) -> None:
    shutil.rmtree(tree / ".extstream_cache", ignore_errors=True)


# --- one corpus -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    name: str
    source: Path
    target: str
    keep: tuple[str, ...] | None = None


def prepare(name: str, cache: Path, stdlib_modules: int | None, timeout: float) -> Corpus:
    """Fetch and unpack one corpus (once), and say what it is."""
    if name == STDLIB:
        source = stdlib_source(cache)
        keep = None
        if stdlib_modules:
            counts = import_counts(import_graph(source, STDLIB_DIR))
            names = sorted(module_names(source, STDLIB_DIR))
            chosen = sorted(names, key=lambda n: (-counts[n], n))[:stdlib_modules]
            keep = tuple(f"{STDLIB_DIR}/{n}.py" for n in sorted(chosen))
        return Corpus(name, source, STDLIB_DIR, keep)
    wheel = WHEELS[name]
    wheel_file = fetch_wheel(wheel, cache, timeout)
    if not wheel_file.name.endswith("-none-any.whl"):
        print(
            f"  {wheel_file.name} is a platform wheel: only the .py files of "
            f"{wheel.package}/ are kept"
        )
    source = unpack_package(wheel_file, wheel.package, cache / "unpacked" / wheel_file.stem)
    return Corpus(name, source, wheel.package)


def describe(tree: Path, target: str, graph: Mapping[str, set[str]], hub: str) -> None:
    files = list((tree / target).rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    counts = import_counts(graph)
    print(
        f"  {len(files)} files, {lines} lines, {sum(len(v) for v in graph.values())} imports "
        f"between them, {in_cycles(graph)} modules on import cycles; hub {hub} "
        f"(imported by {counts[hub]} of {len(graph)} modules)"
    )


def editor_file(tree: Path, target: str, graph: Mapping[str, set[str]], hub: str) -> str:
    """The largest module that imports the hub: what an editor lints on every save."""
    modules = module_names(tree, target)
    importers = [modules[name] for name, imported in graph.items() if hub in imported]
    chosen = max(importers, key=lambda p: (p.stat().st_size, str(p)))
    return chosen.relative_to(tree).as_posix()


def bench_corpus(
    corpus: Corpus, work: Path, commands: Commands, repeats: int, runner: Runner
) -> Results:
    results = Results()
    name, target = corpus.name, corpus.target
    published = build_tree(corpus.source, target, work / name / "published", corpus.keep)
    graph = import_graph(published, target)
    hub = pick_hub(import_counts(graph))
    describe(published, target, graph, hub)
    editor = editor_file(published, target, graph, hub)
    print(f"  one large module (imports the hub): {editor}")
    overlay_tree = build_tree(published, target, work / name / "overlay", None)
    overlay = write_overlay(overlay_tree, target, hub)
    print(
        f"  overlay: {overlay.adapter.relative_to(overlay_tree)} re-exported by {hub}; "
        f"expected: " + ", ".join(f"{e.path}:{e.line} {e.code}" for e in overlay.expected)
    )

    def key(k: str) -> str:
        return f"{name}:{k}"

    # --- as published ---
    print(f"  as published ({published}):")
    cli_pub = commands.cli(target, cache=False)
    efw = commands.flake8_efw(target)
    fl_with = commands.flake8(True, "E,F,W,XST", [editor])
    fl_without = commands.flake8(False, "E,F,W,XST", [editor])
    for repeat in range(repeats):
        pair = [("flake8 E,F,W", efw), ("CLI --no-cache", cli_pub)]
        for k, command in pair if repeat % 2 == 0 else reversed(pair):
            baseline = k.startswith("flake8")
            budget = None if baseline else {key("pub flake8 E,F,W"): 0.10}
            run = runner(key(f"pub {k}"), command, published, baseline=baseline, budget=budget)
            if run and k.startswith("CLI") and repeat == 0:
                results.checks.append(Check(name, "published: CLI", _no_findings(run)))
        runner(key("pub flake8 file without"), fl_without, published, baseline=True)
        remove_cache(published)
        alone = {key("pub flake8 file without"): 1.10}
        run = runner(key("pub flake8 file cold"), fl_with, published, budget=alone)
        if run and repeat == 0:
            results.checks.append(Check(name, "published: flake8 one file", _no_findings(run)))
        after = [key("pub flake8 file cold")]
        runner(key("pub flake8 file warm"), fl_with, published, after=after, budget=alone)
    figure_of = runner.figure
    efw_figure = figure_of(key("pub flake8 E,F,W"), f"flake8 E,F,W -j{commands.jobs}")
    results.ratios += [
        Ratio(
            name,
            "published: CLI --no-cache",
            figure_of(key("pub CLI --no-cache"), "CLI"),
            efw_figure,
            0.10,
        ),
        Ratio(
            name,
            "published: flake8+plugin, 1 file, cold",
            figure_of(key("pub flake8 file cold"), "cold"),
            figure_of(key("pub flake8 file without"), "flake8 w/o plugin"),
            1.10,
        ),
        Ratio(
            name,
            "published: flake8+plugin, 1 file, warm",
            figure_of(key("pub flake8 file warm"), "warm"),
            figure_of(key("pub flake8 file without"), "flake8 w/o plugin"),
            1.10,
        ),
    ]

    # --- with the overlay ---
    print(f"  with the overlay ({overlay_tree}):")
    cli = commands.cli(target)
    cold = key("cli cold")
    edits = 0
    for repeat in range(repeats):
        if repeat % 2 == 0:
            runner(key("libcst parse"), commands.parse(target), overlay_tree, baseline=True)
        remove_cache(overlay_tree)
        for mode, k, setup in (
            ("CLI cold", cold, None),
            ("CLI warm", key("cli warm"), None),
            ("CLI after editing B", key("cli edit B"), overlay.caller),
            ("CLI after editing the hub", key("cli edit hub"), overlay.hub_path),
        ):
            if setup is not None:
                edits += 1
                edit_body(setup, edits)
            if k == cold:
                run = runner(k, cli, overlay_tree, budget={key("libcst parse"): 3.0})
            else:
                run = runner(k, cli, overlay_tree, after=[cold], budget={cold: 0.25})
            if run and repeat == 0:
                results.checks.append(Check(name, mode, check_findings(run, overlay.expected)))
        if repeat % 2 == 1:
            runner(key("libcst parse"), commands.parse(target), overlay_tree, baseline=True)
        runner(key("flake8 file without"), fl_without, overlay_tree, baseline=True)
        remove_cache(overlay_tree)
        fl_cold = key("flake8 file cold")
        runner(fl_cold, fl_with, overlay_tree, budget={key("libcst parse"): 1.5})
        warm_budget = {key("flake8 file without"): 1.5}
        runner(key("flake8 file warm"), fl_with, overlay_tree, after=[fl_cold], budget=warm_budget)
        if repeat == 0:
            pair_files = [
                p.relative_to(overlay_tree).as_posix() for p in (overlay.helper, overlay.caller)
            ]
            run = runner(
                key("flake8 A,B warm"),
                commands.flake8(True, "XST", pair_files),
                overlay_tree,
                after=[fl_cold],
                budget={key("libcst parse"): 1.5},
            )
            if run:
                results.checks.append(
                    Check(name, "flake8 on A and B", check_findings(run, overlay.expected))
                )
            remove_cache(overlay_tree)
            caller = overlay.caller.relative_to(overlay_tree).as_posix()
            run = runner(
                key("stdin B cold"),
                commands.stdin(caller),
                overlay_tree,
                stdin=overlay.caller,
                budget={key("libcst parse"): 1.5},
            )
            if run:
                only_b = [e for e in overlay.expected if e.path == caller]
                results.checks.append(Check(name, "stdin (B), cold", check_findings(run, only_b)))
    parse = figure_of(key("libcst parse"), "libcst parse, tree")
    cold_figure = figure_of(cold, "CLI cold")
    results.ratios += [
        Ratio(name, "overlay: CLI cold", cold_figure, parse, 3.0),
        Ratio(
            name,
            "overlay: CLI warm, nothing changed",
            figure_of(key("cli warm"), "warm"),
            cold_figure,
            0.15,
        ),
        Ratio(
            name,
            "overlay: CLI, B edited",
            figure_of(key("cli edit B"), "edit B"),
            cold_figure,
            0.25,
        ),
        Ratio(
            name,
            "overlay: CLI, hub edited",
            figure_of(key("cli edit hub"), "edit hub"),
            cold_figure,
            0.25,
        ),
        Ratio(
            name,
            "overlay: flake8+plugin, 1 file, warm",
            figure_of(key("flake8 file warm"), "warm"),
            figure_of(key("flake8 file without"), "flake8 w/o plugin"),
            1.5,
        ),
        Ratio(
            name,
            "overlay: flake8+plugin, 1 file, cold",
            figure_of(key("flake8 file cold"), "cold"),
            parse,
            1.5,
        ),
    ]
    for check in results.checks:
        if check.corpus == name:
            print(f"  check {check.mode}: {check.verdict}")
    if name == STDLIB:
        bench_stdlib_flake8(
            corpus, published, overlay_tree, overlay, work, commands, repeats, runner, results
        )
    return results


def _no_findings(run: Run) -> str:
    if run.status != OK:
        return f"{run.status}: not checked"
    found = run.findings()
    if not found:
        return "ok: no finding"
    return f"{len(found)} FINDINGS on published code: " + ", ".join(
        f"{p}:{n} {c}" for p, n, c in found[:5]
    )


def bench_stdlib_flake8(
    corpus: Corpus,
    published: Path,
    overlay_tree: Path,
    overlay: Overlay,
    work: Path,
    commands: Commands,
    repeats: int,
    runner: Runner,
    results: Results,
) -> None:
    """The whole set through ``flake8 -j1``: what the plugin adds, next to libcst's parse.
    Three sets: as published, with the overlay, and each file prefixed with the import."""
    target = corpus.target
    prefixed = build_tree(published, target, work / STDLIB / "prefixed", None)
    prefix_files(prefixed, target, "from torch_npu.npu import ExternalStream")
    trees = {"published": published, "overlay": overlay_tree, "prefixed": prefixed}
    print(
        "  the set through flake8 -j1, cache cold (prefixed: each file starts with "
        "'from torch_npu.npu import ExternalStream'):"
    )
    with_plugin = commands.flake8(True, "E,F,W,XST", [target])
    without = commands.flake8(False, "E,F,W,XST", [target])
    parse_key = f"{STDLIB}:libcst parse"  # of the overlay's tree, measured before
    for repeat in range(repeats):
        for label, tree in trees.items():
            parse = f"{STDLIB}:prefixed libcst parse" if label == "prefixed" else parse_key
            if label == "prefixed" and repeat % 2 == 0:
                runner(parse, commands.parse(target), tree, baseline=True)
            sides = [("without", without), ("with", with_plugin)]
            if repeat % 2:
                sides.reverse()
            for side, command in sides:
                remove_cache(tree)
                plain = f"{STDLIB}:{label} flake8 -j1 without"
                run = runner(
                    f"{STDLIB}:{label} flake8 -j1 {side}",
                    command,
                    tree,
                    baseline=side == "without",
                    budget={plain: 1.0, parse: 2.5} if side == "with" else None,
                )
                if run and side == "with" and repeat == 0:
                    verdict = (
                        check_findings(run, overlay.expected)
                        if label == "overlay"
                        else _no_findings(run)
                        if label == "published"
                        else _no_xst000(run)
                    )
                    results.checks.append(Check(STDLIB, f"{label}: flake8 -j1 tree", verdict))
            if label == "prefixed" and repeat % 2 == 1:
                runner(parse, commands.parse(target), tree, baseline=True)
    published_parse = runner.figure(parse_key, "libcst parse")
    for label in trees:
        added = minus(
            "added by plugin",
            runner.figure(f"{STDLIB}:{label} flake8 -j1 with", "with"),
            runner.figure(f"{STDLIB}:{label} flake8 -j1 without", "without"),
        )
        parse = (
            runner.figure(f"{STDLIB}:prefixed libcst parse", "libcst parse, set")
            if label == "prefixed"
            else published_parse
        )
        results.ratios.append(
            Ratio(STDLIB, f"{label}: flake8 -j1, plugin's cost", added, parse, 2.5)
        )
    for check in results.checks[-3:]:
        print(f"  check {check.mode}: {check.verdict}")


def _no_xst000(run: Run) -> str:
    if run.status != OK:
        return f"{run.status}: not checked"
    found = run.findings()
    bad = [f for f in found if f[2] == "XST000"]
    return f"{len(bad)} XST000: {bad[:3]}" if bad else f"ok: no XST000 ({len(found)} findings)"


# --- the report -----------------------------------------------------------------------------

HEADERS = [
    "corpus",
    "ratio",
    "measured wall/cpu s",
    "baseline",
    "baseline wall/cpu s",
    "ratio cpu (wall)",
    "target",
    "verdict",
]


def print_table(ratios: Sequence[Ratio]) -> None:
    rows = [HEADERS, *(r.cells() for r in ratios)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS))]
    for number, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if number == 0:
            print("  ".join("-" * width for width in widths))


def byte_compile(cwd: Path) -> str:
    """Byte-compile the extstream_lint the children import, as pip does when it installs
    a package: flake8 and libcst, installed, load compiled modules, while a checkout under
    ``PYTHONDONTWRITEBYTECODE=1`` (as on our machines) compiles every module from source
    in every child, a cost no installed user pays, and only on the plugin's side of the
    flake8 comparisons. Says what it did."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import compileall, extstream_lint as e, os, sys; "
            "sys.exit(not compileall.compile_dir(os.path.dirname(e.__file__), quiet=1))",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    return "byte-compiled, as pip installs it" if done.returncode == 0 else "NOT byte-compiled"


def code_under_test(cwd: Path) -> str:
    """Which extstream_lint the children import, and its commit."""
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import extstream_lint as e, os; print(os.path.dirname(e.__file__))",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()

    def git(*words: str) -> str:
        done = subprocess.run(["git", "-C", probe, *words], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("log", "-1", "--format=%h")
    code = git("log", "-1", "--format=%h %s", "--", ".")[:72]
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".")
    commit = f"HEAD {head}, code last changed in {code}" if head else "no git commit"
    return f"{probe}: {commit}{' (uncommitted changes)' if dirty else ''}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpora",
        help=f"comma-separated, of {', '.join(CORPORA + EXTRA_CORPORA)} "
        f"(default: {', '.join(CORPORA)}; --quick: stdlib)",
    )
    parser.add_argument("--repeats", type=int, help="default 3 (--quick: 1)")
    parser.add_argument(
        "--timeout", type=float, help="seconds per command (default 600; --quick: 60)"
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=2, help="-j of the CLI and of flake8 E,F,W"
    )
    parser.add_argument(
        "--stdlib-modules",
        type=int,
        help="the N most-imported stdlib modules only (default: all; --quick: 60)",
    )
    parser.add_argument(
        "--baseline-timeout",
        type=float,
        default=1800.0,
        help="seconds per baseline command (flake8 without the plugin, libcst's parse): "
        "they never hang, only wait for a busy machine (default 1800)",
    )
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    parser.add_argument("--quick", action="store_true", help="a fast look: a stdlib subset")
    args = parser.parse_args(argv)
    corpora = (args.corpora or (STDLIB if args.quick else ",".join(CORPORA))).split(",")
    unknown = set(corpora) - set(CORPORA + EXTRA_CORPORA)
    if unknown:
        parser.error(f"unknown corpora: {sorted(unknown)}")
    repeats = args.repeats or (1 if args.quick else 3)
    timeout = args.timeout or (60.0 if args.quick else 600.0)
    stdlib_modules = args.stdlib_modules or (60 if args.quick else None)
    check_cache_dir(args.cache_dir)
    if any(not os.path.isabs(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p):
        sys.exit("PYTHONPATH must hold absolute paths: the commands run in the corpus copies")

    cache = args.cache_dir
    work = cache / "trees"
    commands = Commands(args.jobs)
    cache.mkdir(parents=True, exist_ok=True)
    runner = Runner(timeout, max(timeout, args.baseline_timeout))
    print(f"extstream_lint: {code_under_test(cache)}; {byte_compile(cache)}")
    print(
        f"python {sys.version.split()[0]}, cache {cache}, {repeats} repeat(s), "
        f"timeout {timeout:g}s per command ({runner.baseline_timeout:g}s for a baseline), "
        f"-j {args.jobs}"
    )
    results = Results()
    for name in corpora:
        print(f"{name}:")
        corpus = prepare(name, cache, stdlib_modules if name == STDLIB else None, timeout)
        found = bench_corpus(corpus, work, commands, repeats, runner)
        results.ratios += found.ratios
        results.checks += found.checks

    print("\ncommands (cwd: the corpus copy; FILE: the large module; A, B: the overlay's):")
    examples = {
        "CLI": commands.cli("PKG"),
        "CLI, published": commands.cli("PKG", cache=False),
        "stdin": commands.stdin("B"),
        "flake8 E,F,W": commands.flake8_efw("PKG"),
        "flake8 one file": commands.flake8(True, "E,F,W,XST", ["FILE"]),
        "flake8 without plugin": commands.flake8(False, "E,F,W,XST", ["FILE"]),
        "flake8 -j1 (stdlib)": commands.flake8(True, "E,F,W,XST", ["lib"]),
        "libcst parse": commands.parse("PKG"),
    }
    for label, command in examples.items():
        print(f"  {label + ':':<24} {shown(command)}")
    print(
        "  cold: .extstream_cache/ removed first; warm: right after a run; edits change one "
        "number in a function body"
    )
    print()
    print_table(results.ratios)
    print()
    for check in results.checks:
        print(f"findings, {check.corpus}, {check.mode}: {check.verdict}")
    missed = [c for c in results.checks if "MISSED" in c.verdict]
    for check in missed:
        print(f"!!! MISSED in {check.corpus}, {check.mode}: {check.verdict}")
    met = all(r.verdict() == "met" for r in results.ratios) and all(
        c.passed for c in results.checks
    )
    print("summary:", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
