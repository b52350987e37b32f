"""Call-site findings name the helper, the helper's line and where the stream was made."""

from __future__ import annotations

from pathlib import Path

from extstream_lint.analysis import analyze_source

CASE = Path(__file__).resolve().parent.parent / "lint_cases" / "helpers.py"


def _messages(case: Path = CASE) -> dict[int, str]:
    source = case.read_text(encoding="utf-8")
    return {f.line: f.message for f in analyze_source(source, str(case))}


def _line_of(text: str, case: Path = CASE) -> int:
    lines = case.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip().startswith(text))


def test_message_names_helper_line_and_origin() -> None:
    message = _messages()[_line_of("sync(ext)  # XST101")]
    op_line = _line_of("s.synchronize()")
    made = _line_of("ext = ExternalStream(h)")
    assert message.startswith(
        f"XST101 sync() calls synchronize() on its argument 's' (helpers.py:{op_line}), "
    )
    assert f"ExternalStream 'ext' (created line {made})" in message


def test_transitive_call_names_every_helper() -> None:
    message = _messages()[_line_of("forwards(ExternalStream(h))")]
    assert "forwards() calls synchronize() on its argument 'x' through sync()" in message


def test_implicit_sink_names_the_current_stream() -> None:
    message = _messages()[_line_of("open_scope()  # XST108")]
    assert "open_scope() calls torch.npu.super_kernel_scope_begin()" in message
    assert "while the current stream is" in message


def test_method_sink_names_the_attribute() -> None:
    message = _messages()[_line_of("later.flush()  # XST101")]
    assert "calls synchronize() on self.stream" in message


def test_a_call_without_a_dotted_name_is_named_after_the_function() -> None:
    messages = _messages()
    assert messages[_line_of("make_syncer(ExternalStream(h))()")].startswith(
        "XST101 _sync_one() calls synchronize() on its argument 's'"
    )
    assert messages[_line_of("bound_flush(ExternalStream(h))()")].startswith(
        "XST101 flush() calls synchronize() on self.s"
    )
    assert messages[_line_of('ops["sync"](ExternalStream(h))')].startswith(
        "XST101 <lambda>() calls synchronize()"
    )


def test_a_stream_a_helper_makes_current_is_not_named_by_the_helpers_local() -> None:
    message = _messages()[_line_of("torch.npu.current_stream().synchronize()  # XST101")]
    assert "'own'" not in message
    assert "on the current stream, an ExternalStream (made current line" in message


def test_a_function_with_several_returns_needs_no_extra_learning_pass(monkeypatch) -> None:
    """What a function returns is rebuilt each pass; the version moves only when the whole
    body gives another result, or every multi-return helper would cost every learning round."""
    from extstream_lint.analysis import interpreter

    passes = []
    original = interpreter.Interpreter._pass

    def counting(self: interpreter.Interpreter, learning: bool) -> None:
        passes.append(learning)
        original(self, learning)

    monkeypatch.setattr(interpreter.Interpreter, "_pass", counting)
    source = (
        "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
        "def use(h):\n    pick(h, True).query()\n\n\n"
        "def pick(h, c):\n    if c:\n        return torch.npu.Stream()\n"
        "    return ExternalStream(h)\n"
    )
    findings = analyze_source(source, "m.py")
    assert [f.code for f in findings] == ["XST102"]
    # use() runs before pick() is learnt: one more learning pass, and no more than that
    assert passes == [True, True, False]


HANDLES = CASE.parent / "helper_handles.py"


def test_wait_stream_receiver_side_names_its_parameter() -> None:
    message = _messages(HANDLES)[_line_of("join_streams(ext, torch.npu.Stream())", HANDLES)]
    op_line = _line_of("a.wait_stream(b)", HANDLES)
    assert message.startswith(
        f"XST104 join_streams() calls wait_stream() on its argument 'a' "
        f"(helper_handles.py:{op_line}), "
    )


def test_handle_sink_names_the_handle_method_and_current_stream() -> None:
    message = _messages(HANDLES)[_line_of("finish_through(work)", HANDLES)]
    op_line = _line_of("work.wait()", HANDLES)
    assert message.startswith(
        f"XST111 finish_through() calls Work.wait() through finish() (helper_handles.py:{op_line})"
    )
    assert "while the current stream is ExternalStream 'ext'" in message
