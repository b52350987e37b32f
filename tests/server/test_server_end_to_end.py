"""``extstream-lint server`` end to end: a real LSP client (pytest-lsp) talks to the server
over stdio, as an editor does, on a two-module project written to a temporary directory.

The project: ``pkg/helpers.py`` has a helper that synchronizes its argument, ``pkg/main.py``
makes an external stream and hands it to the helper (XST101 at the call, found across
modules), and copies pinned memory under it (XST201, which has a safe fix).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types

pytest_lsp = pytest.importorskip("pytest_lsp", reason="the test extra installs pytest-lsp")
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

HELPERS = "import torch\n\n\ndef wait_on(stream):\n    stream.synchronize()\n"
HELPERS_FIXED = "import torch\n\n\ndef wait_on(stream):\n    torch.npu.synchronize()\n"
MAIN = (
    "import torch\n"
    "from pkg.helpers import wait_on\n"
    "\n"
    "ext = torch.npu.ExternalStream(handle)\n"
    "pinned = torch.ones(4).pin_memory()\n"
    "out = torch.ones(4, device='npu')\n"
    "wait_on(ext)\n"
    "with torch.npu.stream(ext):\n"
    '    host = out.to("cpu", non_blocking=True)\n'
)

SERVER = [sys.executable, "-m", "extstream_lint", "server"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text(HELPERS)
    (root / "pkg" / "main.py").write_text(MAIN)
    return root


async def _initialize(lsp_client: LanguageClient, root: Path) -> None:
    """The session an editor opens on the project folder ``root``."""
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="proj")],
        )
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    await _initialize(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


async def _diagnostics_of(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The next diagnostics published for ``uri`` (after :func:`_forget` of the last)."""
    for _ in range(400):
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics published for {uri}")


def _forget(client: LanguageClient, *paths: Path) -> None:
    for path in paths:
        client.diagnostics.pop(path.as_uri(), None)


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=path.as_uri(), language_id="python", version=version, text=text
            )
        )
    )


def _change(client: LanguageClient, path: Path, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """A client's application of TextEdits (ASCII text: UTF-16 units are characters)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


@pytest.mark.asyncio
async def test_the_cross_module_finding_carries_its_trace(client: LanguageClient, project: Path):
    main = project / "pkg" / "main.py"
    _open(client, main, MAIN)
    diagnostics = await _diagnostics_of(client, main.as_uri())
    by_code = {d.code: d for d in diagnostics}
    assert sorted(by_code) == ["XST101", "XST201"]
    sync = by_code["XST101"]
    assert (sync.range.start.line, sync.range.start.character) == (6, 0)
    assert (sync.range.end.line, sync.range.end.character) == (6, len("wait_on"))
    assert sync.source == "extstream"
    assert sync.code_description is not None
    assert sync.code_description.href.endswith("rules.md#xst101")
    related = [
        (Path(r.location.uri.removeprefix("file://")).name, r.location.range.start.line)
        for r in sync.related_information or []
    ]
    # the helper's line (helpers.py:5), then where the stream was made (main.py:4)
    assert related == [("helpers.py", 4), ("main.py", 3)]
    assert "synchronize()" in sync.related_information[0].message
    assert "created" in sync.related_information[1].message


@pytest.mark.asyncio
async def test_a_fix_and_a_noqa_through_code_actions(client: LanguageClient, project: Path):
    main = project / "pkg" / "main.py"
    _open(client, main, MAIN)
    diagnostics = await _diagnostics_of(client, main.as_uri())
    copy = next(d for d in diagnostics if d.code == "XST201")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=main.as_uri()),
            range=copy.range,
            context=types.CodeActionContext(diagnostics=[copy]),
        )
    )
    titles = [a.title for a in actions or []]
    assert titles == [
        "XST201: Use `non_blocking=False`",
        "XST201: add `# noqa: XST201` to this line",
    ]
    fix, noqa = actions
    assert fix.is_preferred
    fixed = _apply(MAIN, fix.edit.changes[main.as_uri()])
    assert fixed == MAIN.replace("non_blocking=True", "non_blocking=False")
    silenced = _apply(MAIN, noqa.edit.changes[main.as_uri()])
    assert silenced.endswith("non_blocking=True)  # noqa: XST201\n")

    _forget(client, main)
    _change(client, main, fixed, 2)
    after = await _diagnostics_of(client, main.as_uri())
    assert [d.code for d in after] == ["XST101"]


@pytest.mark.asyncio
async def test_editing_the_helper_clears_the_finding(client: LanguageClient, project: Path):
    main, helpers = project / "pkg" / "main.py", project / "pkg" / "helpers.py"
    _open(client, main, MAIN)
    before = await _diagnostics_of(client, main.as_uri())
    assert "XST101" in [d.code for d in before]
    _open(client, helpers, HELPERS)
    await _diagnostics_of(client, helpers.as_uri())

    _forget(client, main, helpers)
    _change(client, helpers, HELPERS_FIXED, 2)
    helpers.write_text(HELPERS_FIXED)  # the editor saves, then says so
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=helpers.as_uri())
        )
    )
    after = await _diagnostics_of(client, main.as_uri())
    assert [d.code for d in after] == ["XST201"]


@pytest.fixture
def configured(project: Path) -> Path:
    """The same project, with a ``[tool.extstream-lint]`` table that ignores XST201."""
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'proj'\n\n[tool.extstream-lint]\nextend-ignore = ['XST201']\n"
    )
    return project


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def configured_client(lsp_client: LanguageClient, configured: Path):
    await _initialize(lsp_client, configured)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_server_reads_the_projects_configuration(
    configured_client: LanguageClient, configured: Path
):
    """The server reads ``[tool.extstream-lint]`` as the CLI does (issue 41): the ignored
    code is not published, the other finding is."""
    main = configured / "pkg" / "main.py"
    _open(configured_client, main, MAIN)
    diagnostics = await _diagnostics_of(configured_client, main.as_uri())
    assert sorted(d.code for d in diagnostics) == ["XST101"]
