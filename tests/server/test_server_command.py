"""``extstream-lint server`` as a command: what it says when it cannot start."""

from __future__ import annotations

import subprocess
import sys

from extstream_lint.frontends.cli import main


def test_server_takes_no_paths(capsys) -> None:
    assert main(["server", "src/"]) == 2
    assert capsys.readouterr().err == (
        "extstream-lint: error: server takes no argument but --stdio (see --help)\n"
    )


def test_without_pygls_it_says_which_extra_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['pygls'] = None\n"  # as if the server extra were not installed
        "from extstream_lint.frontends.cli import main\n"
        "sys.exit(main(['server']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "extstream-lint: error: the language server needs pygls: pip install 'extstream[server]'\n"
    )
