"""Check the guard against any published torch-npu release, on demand.

For each version this runs the guard's test suite with

* the contract tests (``test_guard_contract.py``) reading that release's wheel: every module,
  class, method, parameter, export and native error string a patch row relies on;
* the simulation (``tests/guard/npusim``) running that release's own ``streams.py``,
  ``graphs.py``, ``utils.py`` ... under every scenario.

The wheel is downloaded into ``.cache/torch-npu/`` once (about 40 MB each, never committed).
The default test run (``python -m pytest``) covers the oldest and the newest release only.

    python tests/guard/check_releases.py                # every release that ships ExternalStream
    python tests/guard/check_releases.py 2.10.0.post7   # one (or several) versions
    python tests/guard/check_releases.py --list         # the releases known to ship it

Exit status 0 when every version passed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import _npu_wheel  # noqa: E402


def check(version: str, workers: str) -> bool:
    """Run the guard tests against ``version``; True when they pass."""
    env = {
        **os.environ,
        "EXTSTREAM_NPU_VERSIONS": version,
        "EXTSTREAM_NPU_SIM_VERSION": version,
    }
    env.pop("EXTSTREAM_NPU_WHEEL_OFFLINE", None)  # a release check must not skip
    command = [
        sys.executable, "-m", "pytest", "tests/guard", "-q", "-p", "no:cacheprovider",
        "-n", workers,
    ]  # fmt: skip
    print(f"== torch-npu {version}: {' '.join(command[2:])}", flush=True)
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    tail = [line for line in result.stdout.splitlines() if line.strip()][-3:]
    print("\n".join(tail))
    if result.returncode != 0:
        print(result.stdout[-4000:], result.stderr[-2000:], sep="\n")
    return result.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", help="torch-npu versions (default: all known)")
    parser.add_argument("--list", action="store_true", help="print the known releases")
    parser.add_argument("-n", "--workers", default="2", help="pytest-xdist workers")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(_npu_wheel.RELEASES))
        return 0
    results = {
        version: check(version, args.workers) for version in args.versions or _npu_wheel.RELEASES
    }
    for version, passed in results.items():
        print(f"{version:16} {'passed' if passed else 'FAILED'}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
