"""Lowering: a visitor dispatching on the node kind by name."""

from .ir import Graph, Node


class Lowering:
    def __init__(self, stream) -> None:
        self.stream = stream

    def visit(self, node: Node):
        method = getattr(self, "visit_" + node.kind, self.generic_visit)
        return method(node)

    def visit_barrier(self, node: Node):
        self.stream.synchronize()

    def visit_signal(self, node: Node):
        node.event = self.stream.record_event()
        return node.event

    def visit_await(self, node: Node):
        for dep in node.inputs:
            if dep.event is not None:
                self.stream.wait_event(dep.event)

    def visit_matmul(self, node: Node):
        return node

    def generic_visit(self, node: Node):
        return None

    def lower(self, graph: Graph) -> None:
        for node in graph.nodes:
            self.visit(node)
