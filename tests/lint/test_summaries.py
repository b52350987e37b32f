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


def _learning_passes(monkeypatch, source: str) -> tuple[list[str], list[bool]]:
    """The codes found in ``source`` and the passes run for it (True: learning)."""
    from extstream_lint.analysis.interp import interpreter

    passes: list[bool] = []
    original = interpreter.Interpreter._pass

    def counting(self: interpreter.Interpreter, learning: bool) -> None:
        passes.append(learning)
        original(self, learning)

    monkeypatch.setattr(interpreter.Interpreter, "_pass", counting)
    return [f.code for f in analyze_source(source, "m.py")], passes


_PICK = (
    "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
    "def use(h):\n    pick(h, h > 1).query()\n\n\n"
    "def pick(h, c):\n    if c:\n        return torch.npu.Stream()\n"
    "    return ExternalStream(h)\n"
)


_CHAIN = (
    "from torch_npu.npu import ExternalStream\n\n\n"
    "def use(h):\n    mid(h).query()\n\n\n"
    "def mid(h):\n    return pick(h)\n\n\n"
    "def pick(h):\n    return ExternalStream(h)\n"
)


def test_a_function_with_several_returns_needs_no_extra_learning_pass(monkeypatch) -> None:
    """What a function returns is rebuilt each pass; the version moves only when the whole
    body gives another result, or every multi-return helper would cost every learning round."""
    # The module's body calls pick() before any function body has run: one more learning
    # pass, and no more than that.
    codes, passes = _learning_passes(monkeypatch, _PICK + "\n\nFIRST = pick(0, True)\n")
    assert codes == ["XST102"]
    assert passes == [True, True, False]


def test_after_one_pass_a_function_runs_after_the_helpers_it_calls(monkeypatch) -> None:
    """use() calls mid(), which calls pick(), each defined before its helper. In definition
    order each learning pass learns one link of the chain (three passes); once the first
    pass was not enough, bodies run callees first and the second pass sees all of it."""
    codes, passes = _learning_passes(monkeypatch, _CHAIN)
    assert codes == ["XST102"]
    assert passes == [True, True, False]


def test_after_one_pass_methods_run_after_the_methods_they_call_on_self(monkeypatch) -> None:
    source = (
        "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
        "class Runner:\n"
        "    def step(self, h):\n        self.make(h).synchronize()\n\n"
        "    def make(self, h):\n        return self.wrap(h)\n\n"
        "    def wrap(self, h):\n        return ExternalStream(h)\n"
    )
    codes, passes = _learning_passes(monkeypatch, source)
    assert codes == ["XST101"]
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


def test_parameter_paths_are_k_limited() -> None:
    """A recursive structure (a wrapper whose ``_stream`` may be another wrapper, a linked
    list's ``next``) grew a parameter path by one step per learning pass, and the standard
    library's import cycles never settled: a path takes at most ``MAX_PATH`` steps, the
    same step at most ``MAX_REPEAT`` times, and is "unknown" (None) beyond."""
    from extstream_lint.analysis.abstract import paths
    from extstream_lint.analysis.abstract.atoms import ParamRef
    from extstream_lint.analysis.abstract.values import ClassInfo, FunctionInfo, Instance

    owner = FunctionInfo("f")

    def path_of(value: object) -> tuple[str, ...]:
        return value.param.path  # type: ignore[attr-defined]

    model = paths.symbolic(ParamRef(owner, 0, ("model", "model")))
    assert path_of(paths.attribute(model, "layers")) == ("model", "model", "layers")
    assert paths.attribute(model, "model") is None  # a third repeat
    deep = paths.symbolic(ParamRef(owner, 0, ("a", "b", "c", "d", "e", "f")))
    assert len(deep.param.path) == paths.MAX_PATH  # type: ignore[union-attr]
    for step in (paths.attribute(deep, "g"), paths.element(deep), paths.contents(deep)):
        assert step is None
    assert path_of(paths.element(model)) == ("model", "model", paths.ITERATED)
    # the same limits on an object read through ``self`` (a parameter's instance)
    wrapper = Instance(ClassInfo("Wrap"), (), ParamRef(owner, 0, ("_stream", "_stream")))
    assert paths.attribute(wrapper, "_stream") is None
    assert path_of(paths.attribute(wrapper, "_proc")) == ("_stream", "_stream", "_proc")


def test_a_helper_that_changes_nothing_a_caller_reads_costs_no_extra_pass(monkeypatch) -> None:
    """The module's body calls ``log()`` before the helper's body has run. Its first return
    leaves the caller's stream current and returns nothing known: no caller reads anything
    new, so the version does not move and one learning pass is enough."""
    source = (
        "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
        "def log(message):\n    print(message)\n\n\n"
        "log('start')\nExternalStream(7).synchronize()\n"
    )
    codes, passes = _learning_passes(monkeypatch, source)
    assert codes == ["XST101"]
    assert passes == [True, False]
