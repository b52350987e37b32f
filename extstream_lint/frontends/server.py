"""``extstream-lint server``: a language server over stdio, on pygls (as ``ruff server``).

It reports what the command reports, through the same pieces: the configuration nearest the
document (:func:`.options.make_options`, as if the document were linted on its own), the
pre-filter and the analysis in the process-wide project index (:func:`.linting.lint_text`:
an unchanged module's summary is reused, a changed one re-made with what depends on it), and
the selection, ``# noqa`` and fixes of :func:`.linting.located`. What it adds is an editor's:

* diagnostics on open, change and save; a save re-checks every open document, since the
  saved module may be the helper or the stream maker another one's finding rests on (other
  modules are read as saved: an unsaved buffer counts for itself only);
* each diagnostic's trace (:mod:`.trace`) as ``relatedInformation``, and the rule's page as
  its ``codeDescription``;
* code actions: the finding's fix (safe, or marked unsafe), and ``# noqa: XSTnnn`` for it.

pygls is imported only here (the ``server`` extra); the conversion to LSP types is in
:mod:`.lsp_types`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .options import PROG

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

__all__ = ["serve"]

NEEDS_PYGLS = f"{PROG}: error: the language server needs pygls: pip install 'extstream[server]'"


def serve(argv: Sequence[str]) -> int:
    """Run the server on stdin/stdout until the client ends it; the exit status."""
    if list(argv) not in ([], ["--stdio"]):
        print(f"{PROG}: error: server takes no argument but --stdio (see --help)", file=sys.stderr)
        return 2
    try:
        server = build_server()
    except ImportError:
        print(NEEDS_PYGLS, file=sys.stderr)
        return 2
    server.start_io()
    return 0


def build_server() -> LanguageServer:
    """The pygls server with every feature registered (tests may run it in a thread)."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer

    from .. import __version__
    from ..analysis.driver.projects import serve_later_runs
    from .lsp_types import Documents, code_actions

    serve_later_runs()  # each save analyses again: keep what an edit's run replays

    server = LanguageServer("extstream-lint", __version__)
    documents = Documents()

    def publish(ls: LanguageServer, uri: str) -> None:
        document = ls.workspace.get_text_document(uri)
        diagnostics = documents.check(uri, document.source, ls.workspace.position_codec)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=document.version
            )
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        documents.open(params.text_document.uri)
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        for uri in documents.opened():  # the saved module may be what another's finding rests on
            publish(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        documents.close(params.text_document.uri)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[Any]:
        uri = params.text_document.uri
        document = ls.workspace.get_text_document(uri)
        return code_actions(documents, uri, document.source, params, ls.workspace.position_codec)

    return server
