"""Ctrl-C with worker processes: silence and exit status 130, as a shell expects.

The terminal sends SIGINT to the whole foreground process group, the workers included. The
run is made slow on purpose (each analysis waits), and the signal is sent only once a worker
has started analysing, so the interrupt lands where it used to print a worker's traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")

#: Runs the CLI with two forked workers whose analysis says it started, then waits.
#: The driver first takes SIGINT back from SIG_IGN: a job a shell starts in the background
#: (``pytest ... &``, nohup, some CI runners) inherits SIGINT ignored through exec, and
#: Python then installs no KeyboardInterrupt handler; a terminal's foreground job, which
#: this test stands for, has the default.
DRIVER = """
import multiprocessing, pathlib, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from extstream_lint import analysis
from extstream_lint.frontends import cli

def slow(source, filename="<unknown>", tree=None, project=None, kept=True):
    pathlib.Path(sys.argv[1]).touch()
    time.sleep(60)
    return []

analysis.analyze_source = slow
cli.MP_CONTEXT = multiprocessing.get_context("fork")
sys.exit(cli.main(["-j", "2", "--no-cache", "."]))
"""


def test_ctrl_c_with_workers_is_silent_and_exits_130(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in "abcd":
        (project / f"{name}.py").write_text(
            f"import torch\next_{name} = torch.npu.ExternalStream(h)\n"
        )
    started = tmp_path / "started"
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(started)],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's job
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        assert started.exists(), "no worker started analysing"
        time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert (process.returncode, out, err) == (130, "", "")
