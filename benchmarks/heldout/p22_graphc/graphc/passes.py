"""Optimisation passes, registered by a class decorator and run by name."""

import abc
from typing import Dict, Iterable, Type

from .ir import Graph

PASSES: Dict[str, Type["Pass"]] = {}


def register_pass(name: str):
    def deco(cls):
        PASSES[name] = cls
        cls.pass_name = name
        return cls

    return deco


class Pass(abc.ABC):
    pass_name = "?"

    def __init__(self, stream) -> None:
        self.stream = stream

    @abc.abstractmethod
    def run(self, graph: Graph) -> Graph: ...


@register_pass("fence")
class FencePass(Pass):
    def run(self, graph: Graph) -> Graph:
        self.stream.synchronize()
        return graph


@register_pass("mark")
class MarkPass(Pass):
    def run(self, graph: Graph) -> Graph:
        graph.marks.append(self.stream.record_event())
        return graph


@register_pass("fold")
class FoldPass(Pass):
    def run(self, graph: Graph) -> Graph:
        graph.nodes = [n for n in graph.nodes if n.kind != "nop"]
        return graph


def run_passes(stream, graph: Graph, names: Iterable[str]) -> Graph:
    for name in names:
        graph = PASSES[name](stream).run(graph)
    return graph
