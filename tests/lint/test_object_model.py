"""The object model (issue 27, part 1): which code runs for an instance, and what it holds.

Each case is a small project (one file, or several modules) whose lines state their
findings inline, as in ``tests/lint_cases`` (``# XST101``, ``# XST101(may)``); every other
line must stay silent. Cases come in twins: a positive (the construct carries an external
stream to a refused call) and a negative (the same construct carrying a managed stream, or
the reverse override), so a rule matched by shape rather than by Python's semantics fails
one of them. Multi-module cases are linted file by file through one project index, as
flake8 does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from tests.lint.test_cases import expectations

HEAD = "import torch\nfrom torch_npu.npu import ExternalStream\n"

CASES: dict[str, dict[str, str]] = {}


def case(name: str, **files: str) -> None:
    """A named case: its files by module path, ``pkg__mod`` for ``pkg/mod.py`` and
    ``pkg__init`` for ``pkg/__init__.py``."""
    paths = {}
    for key, text in files.items():
        parts = ["__init__" if part == "init" else part for part in key.split("__")]
        paths["/".join(parts) + ".py"] = text
    CASES[name] = paths


# --- dispatch on self: the MRO of the instance's class ---------------------------------------

case(
    "inherited_init_runs_the_override",
    m=HEAD
    + """
class Base:
    def __init__(self, ptr):
        self.ptr = ptr
        self.stream = self._make_stream()

    def _make_stream(self):
        return torch.npu.Stream()

    def flush(self):
        self.stream.synchronize()  # XST101


class Sub(Base):
    def _make_stream(self):
        return ExternalStream(self.ptr)


def use(ptr):
    Sub(ptr).stream.synchronize()  # XST101
    Base(ptr).stream.synchronize()
""",
)

case(
    "inherited_init_reverse_override_is_silent",
    m=HEAD
    + """
class Base:
    def __init__(self, ptr):
        self.ptr = ptr
        self.side = self._make_side()

    def _make_side(self):
        return ExternalStream(self.ptr)

    def drain(self):
        self.side.synchronize()  # XST101


class Managed(Base):
    def _make_side(self):
        return torch.npu.Stream()

    def drain_twice(self):
        self.side.synchronize()
        self.drain()


def use(ptr):
    Managed(ptr).side.synchronize()
    Base(ptr).side.synchronize()  # XST101
""",
)

case(
    "template_method_calls_hook_of_subclass",
    m=HEAD
    + """
class Runner:
    def run(self, ptr):
        s = self.stream_for(ptr)
        s.synchronize()

    def stream_for(self, ptr):
        return torch.npu.Stream()


class ExtRunner(Runner):
    def stream_for(self, ptr):
        return ExternalStream(ptr)


class PlainRunner(Runner):
    def unrelated(self):
        return None


def main(ptr):
    # the base's run is shared with PlainRunner: the external instance's call is the defect
    ExtRunner().run(ptr)  # XST101
    PlainRunner().run(ptr)
""",
)

case(
    "template_method_hook_never_overridden_is_silent",
    m=HEAD
    + """
class Runner:
    def run(self, ptr):
        s = self.stream_for(ptr)
        s.synchronize()

    def stream_for(self, ptr):
        return torch.npu.Stream()


class Sub(Runner):
    def stream_for_other(self, ptr):
        return ExternalStream(ptr)
""",
)

case(
    "super_follows_the_mro_of_the_instance",
    m=HEAD
    + """
class Base:
    def make(self, p):
        return torch.npu.Stream()


class Mid(Base):
    def make(self, p):
        return ExternalStream(p)


class Left(Base):
    pass


class Diamond(Left, Mid):
    def go(self, p):
        super().make(p).synchronize()  # XST101


class Plain(Left):
    def go(self, p):
        super().make(p).synchronize()
""",
)

case(
    "super_in_inherited_code_sees_the_subclass_mro",
    m=HEAD
    + """
class Root:
    def make(self, p):
        return torch.npu.Stream()


class A(Root):
    def get(self, p):
        return super().make(p)


class B(Root):
    def make(self, p):
        return ExternalStream(p)


class Both(A, B):
    pass


def use(p):
    Both().get(p).synchronize()  # XST101
    A().get(p).synchronize()
""",
)

case(
    "properties_class_and_static_methods",
    m=HEAD
    + """
class P:
    def __init__(self, ptr):
        self._ptr = ptr

    @property
    def stream(self):
        return ExternalStream(self._ptr)

    @property
    def managed(self):
        return torch.npu.Stream()

    @classmethod
    def make(cls, ptr):
        return ExternalStream(ptr)

    @staticmethod
    def smake(ptr):
        return ExternalStream(ptr)

    @staticmethod
    def plain():
        return torch.npu.Stream()


def use(ptr):
    P(ptr).stream.synchronize()  # XST101
    P(ptr).managed.synchronize()
    P.make(ptr).synchronize()  # XST101
    P.smake(ptr).synchronize()  # XST101
    P.plain().synchronize()
""",
)

case(
    "overridden_property_in_subclass",
    m=HEAD
    + """
class Base:
    def __init__(self, ptr):
        self.ptr = ptr

    @property
    def stream(self):
        return torch.npu.Stream()

    def flush(self):
        self.stream.synchronize()  # XST101


class Ext(Base):
    @property
    def stream(self):
        return ExternalStream(self.ptr)


class Same(Base):
    pass
""",
)

case(
    "property_with_a_setter_is_still_read_through_its_getter",
    m=HEAD
    + """
class P:
    def __init__(self, ptr):
        self._ptr = ptr
        self._s = None

    @property
    def stream(self):
        return ExternalStream(self._ptr)

    @stream.setter
    def stream(self, value):
        self._s = value

    @property
    def side(self):
        return torch.npu.Stream()

    @side.setter
    def side(self, value):
        self._s = value


def use(ptr):
    P(ptr).stream.synchronize()  # XST101
    P(ptr).side.synchronize()
""",
)

case(
    "inherited_factory_classmethod_makes_the_subclass",
    m=HEAD
    + """
class Base:
    def __init__(self, s):
        self.s = s

    @classmethod
    def create(cls, p):
        return cls(p)

    def clone(self, p):
        return self.__class__(p)


class Sub(Base):
    def __init__(self, p):
        self.s = ExternalStream(p)


def use(p):
    Sub.create(p).s.synchronize()  # XST101
    Sub(p).clone(p).s.synchronize()  # XST101
    Base.create(p).s.synchronize()
    Base(p).clone(p).s.synchronize()
    Base.create(ExternalStream(p)).s.synchronize()  # XST101
""",
)

# --- unpacking into attributes, holders of self ------------------------------------------

case(
    "tuple_from_self_method_unpacked_into_attributes",
    m=HEAD
    + """
class Pair:
    def __init__(self, ptr):
        self.ptr = ptr
        self.a, self.b = self._streams()

    def _streams(self):
        return torch.npu.Stream(), ExternalStream(self.ptr)

    def flush(self):
        self.a.synchronize()
        self.b.synchronize()  # XST101
""",
)

case(
    "holder_built_with_self_reads_back_through_it",
    m=HEAD
    + """
class Helper:
    def __init__(self, owner):
        self.owner = owner

    def drain(self):
        self.owner.stream.synchronize()  # XST101


class Owner:
    def __init__(self, ptr):
        self.stream = ExternalStream(ptr)
        self.helper = Helper(self)
""",
)

case(
    "holder_built_with_self_of_a_managed_owner_is_silent",
    m=HEAD
    + """
class Helper:
    def __init__(self, owner):
        self.owner = owner

    def drain(self):
        self.owner.stream.synchronize()


class Owner:
    def __init__(self):
        self.stream = torch.npu.Stream()
        self.helper = Helper(self)
""",
)

case(
    "holder_built_with_self_across_modules",
    pkg__init="",
    pkg__helper="""
class Helper:
    def __init__(self, owner):
        self.owner = owner

    def drain(self):
        return self.owner.stream
""",
    pkg__owner=HEAD
    + """from pkg.helper import Helper


class Owner:
    def __init__(self, ptr):
        self.stream = ExternalStream(ptr)
        self.helper = Helper(self)

    def flush(self):
        self.helper.drain().synchronize()  # XST101


class Managed:
    def __init__(self):
        self.stream = torch.npu.Stream()
        self.helper = Helper(self)

    def flush(self):
        self.helper.drain().synchronize()
""",
)

# --- the dataclass transform ------------------------------------------------------------

case(
    "post_init_sets_a_field_declared_init_false",
    m=HEAD
    + """from dataclasses import dataclass, field


@dataclass
class Cfg:
    ptr: int
    stream: object = field(init=False)

    def __post_init__(self):
        self.stream = ExternalStream(self.ptr)


@dataclass
class Managed:
    ptr: int
    stream: object = field(init=False)
    label: str = "x"

    def __post_init__(self):
        self.stream = torch.npu.Stream()


def use(ptr):
    Cfg(ptr).stream.synchronize()  # XST101
    Managed(ptr, "y").stream.synchronize()
""",
)

case(
    "post_init_across_modules",
    pkg__init="",
    pkg__cfg=HEAD
    + """from dataclasses import dataclass, field


@dataclass
class Cfg:
    ptr: int
    stream: object = field(init=False)

    def __post_init__(self):
        self.stream = self.make()

    def make(self):
        return ExternalStream(self.ptr)


@dataclass
class Plain:
    ptr: int
    stream: object = field(init=False)

    def __post_init__(self):
        self.stream = torch.npu.Stream()
""",
    pkg__use="""from pkg.cfg import Cfg, Plain


def run(ptr):
    Cfg(ptr).stream.synchronize()  # XST101
    Plain(ptr).stream.synchronize()
""",
)

case(
    "copies_and_replace_keep_attributes",
    m=HEAD
    + """import copy
import dataclasses
from copy import deepcopy
from dataclasses import dataclass, replace


@dataclass
class Holder:
    stream: object
    label: str = ""


def use(ptr):
    h = Holder(ExternalStream(ptr))
    copy.copy(h).stream.synchronize()  # XST101
    deepcopy(h).stream.synchronize()  # XST101
    dataclasses.replace(h, label="b").stream.synchronize()  # XST101
    replace(h).stream.synchronize()  # XST101
    dataclasses.replace(h, stream=torch.npu.Stream()).stream.synchronize()
    m = Holder(torch.npu.Stream())
    copy.copy(m).stream.synchronize()
    copy.deepcopy(m).stream.synchronize()
    replace(m, label="c").stream.synchronize()
""",
)

case(
    "namedtuple_replace_keeps_fields",
    m=HEAD
    + """from typing import NamedTuple


class Pair(NamedTuple):
    stream: object
    label: str


def use(ptr):
    p = Pair(ExternalStream(ptr), "a")
    p._replace(label="b").stream.synchronize()  # XST101
    p._replace(stream=torch.npu.Stream()).stream.synchronize()
    p._replace(label="c")[0].synchronize()  # XST101
""",
)

case(
    "attrs_classic_fields_and_post_init",
    m=HEAD
    + """import attr


@attr.s
class Conn:
    ptr = attr.ib()
    label = attr.ib(default="x")

    def __attrs_post_init__(self):
        self.stream = ExternalStream(self.ptr)


@attr.s
class Holder:
    stream = attr.ib()


def use(ptr):
    Conn(ptr).stream.synchronize()  # XST101
    Holder(ExternalStream(ptr)).stream.synchronize()  # XST101
    Holder(torch.npu.Stream()).stream.synchronize()
""",
)

case(
    "dataclass_transform_decorator_base_and_metaclass",
    m=HEAD
    + """from typing import dataclass_transform


@dataclass_transform()
def model(cls):
    return cls


@dataclass_transform()
class ModelBase:
    pass


@dataclass_transform()
class ModelMeta(type):
    pass


class MetaBase(metaclass=ModelMeta):
    pass


@model
class A:
    stream: object


class B(ModelBase):
    label: str
    stream: object


class C(MetaBase):
    stream: object


def use(ptr):
    A(ExternalStream(ptr)).stream.synchronize()  # XST101
    B("b", ExternalStream(ptr)).stream.synchronize()  # XST101
    C(ExternalStream(ptr)).stream.synchronize()  # XST101
    A(torch.npu.Stream()).stream.synchronize()
    B(ExternalStream(ptr), torch.npu.Stream()).stream.synchronize()
""",
)

case(
    "plain_class_without_transform_takes_no_fields",
    m=HEAD
    + """def model(cls):
    return cls


@model
class A:
    stream: object = None

    def __init__(self, first):
        self.first = first


def use(ptr):
    A(ExternalStream(ptr)).stream.synchronize()
    A(ExternalStream(ptr)).first.synchronize()  # XST101
""",
)

# --- holders ----------------------------------------------------------------------------

case(
    "thread_local_and_namespace_attributes",
    m=HEAD
    + """import threading
from types import SimpleNamespace

_local = threading.local()
_other = threading.local()


def setup(ptr):
    _local.stream = ExternalStream(ptr)
    _other.stream = torch.npu.Stream()


def work():
    _local.stream.synchronize()  # XST101
    _other.stream.synchronize()


def spaces(ptr):
    ns = SimpleNamespace(stream=ExternalStream(ptr), side=torch.npu.Stream())
    ns.stream.synchronize()  # XST101
    ns.side.synchronize()
""",
)

case(
    "context_variables_set_and_get",
    m=HEAD
    + """import contextvars
from contextvars import ContextVar

_var = contextvars.ContextVar("stream")
_managed = ContextVar("managed")
_default = ContextVar("default", default=None)


def setup(ptr):
    _var.set(ExternalStream(ptr))
    _managed.set(torch.npu.Stream())


def work(ptr):
    _var.get().synchronize()  # XST101
    _managed.get().synchronize()
    _default.get(torch.npu.Stream()).synchronize()
    _default.get(ExternalStream(ptr)).synchronize()  # XST101
""",
)

case(
    "thread_local_across_modules",
    pkg__init="",
    pkg__state=HEAD
    + """import threading

local = threading.local()
other = threading.local()


def install(ptr):
    local.stream = ExternalStream(ptr)
    other.stream = torch.npu.Stream()
""",
    pkg__work="""from pkg import state


def run():
    state.local.stream.synchronize()  # XST101
    state.other.stream.synchronize()
""",
)

case(
    "getattr_delegation_is_a_may",
    m=HEAD
    + """class Proxy:
    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)


class Strict:
    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        raise AttributeError(name)


class Box:
    def __init__(self, ptr):
        self.stream = ExternalStream(ptr)


def use(ptr):
    Proxy(ExternalStream(ptr)).synchronize()  # XST101(may)
    Proxy(torch.npu.Stream()).synchronize()
    Strict(ExternalStream(ptr)).synchronize()
    Proxy(Box(ptr)).stream.synchronize()  # XST101(may)
""",
)


def _lint_project(root: Path, files: dict[str, str]) -> dict[tuple[str, int, str], bool]:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    index = ProjectIndex()
    found = {}
    for relative in sorted(files):
        path = root / relative
        for finding in analyze_source(path.read_text(encoding="utf-8"), str(path), project=index):
            found[(relative, finding.line, finding.code)] = "may be" in finding.message
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str, tmp_path: Path) -> None:
    files = CASES[name]
    expected = {
        (relative, line, code): want.may
        for relative, text in files.items()
        for (line, code), want in expectations(text).items()
    }
    actual = _lint_project(tmp_path / "project", files)
    assert actual == expected


def test_every_construct_has_twins() -> None:
    """Each case states a finding, and each case file has silent lines of the same kind:
    a case made only of positives (or only of negatives) proves half of the construct."""
    positives = [name for name, files in CASES.items() if _count(files)]
    assert len(positives) >= len(CASES) - len(positives)
    assert any(not _count(files) for files in CASES.values())


def _count(files: dict[str, str]) -> int:
    return sum(len(expectations(text)) for text in files.values())
