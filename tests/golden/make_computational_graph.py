"""Golden data for ``chainer.computational_graph``, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``computational_graph.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_computational_graph.py

``cases(chainer)`` builds graphs of user-defined ``FunctionNode`` and ``Function`` objects, whose
nodes are the same in Chainer and in fnet, with every option of ``build_computational_graph``;
``describe(dot)`` turns a dot text into its header, its node statements and its edges with the
node ids replaced by the nodes' labels (ids are addresses). The test calls both with
``fnet.compat`` and compares with the JSON.
"""

from __future__ import annotations

import json
import pathlib
import re

import numpy

OUT = pathlib.Path(__file__).with_name("computational_graph.json")


def _nodes(chainer):
    """User-defined function classes written against ``chainer`` (the real one or fnet's)."""

    class Square(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return (inputs[0] * inputs[0],)

        def backward(self, indexes, grad_outputs):
            (x,) = self.get_retained_inputs()
            return (2 * x * grad_outputs[0],)

    class Mul(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0, 1))
            return (inputs[0] * inputs[1],)

        def backward(self, indexes, grad_outputs):
            a, b = self.get_retained_inputs()
            return (b * grad_outputs[0], a * grad_outputs[0])

    class Split(chainer.FunctionNode):
        def forward(self, inputs):
            x = inputs[0]
            return (x[:1].copy(), x[1:].copy())

        def backward(self, indexes, grad_outputs):
            return (chainer.functions.concat([g for g in grad_outputs], axis=0),)

    class Double(chainer.Function):
        def forward(self, inputs):
            return (2 * inputs[0],)

        def backward(self, inputs, grad_outputs):
            return (2 * grad_outputs[0],)

    return Square, Mul, Split, Double


def cases(chainer) -> dict:
    """Graph dumps of several small computations, by case name."""
    Square, Mul, Split, Double = _nodes(chainer)
    build = chainer.computational_graph.build_computational_graph
    x = chainer.Variable(numpy.arange(1, 4, dtype=numpy.float32), name="x")
    w = chainer.Variable(numpy.full(3, 0.5, numpy.float32), name="w")
    (h,) = Square().apply((x,))
    h.name = "h"
    (y,) = Mul().apply((h, w))
    y.name = "y"
    (z,) = Square().apply((w,))
    z.name = "z"
    a, b = Split().apply((x,))
    a.name, b.name = "a", "b"
    (c,) = Square().apply((a,))
    c.name = "c"
    (d,) = Mul().apply((numpy.ones(3, numpy.float32), w))
    d.name = "d"
    e = Double()(y)
    e.name = "e"
    (m,) = Mul().apply((x, x))
    m.name = "m"
    out = {
        "default": build([y]),
        "two_outputs": build([y, z]),
        "single_variable_argument": build(y),
        "no_style_no_name": build([y], variable_style=None, function_style=None, show_name=False),
        "rankdir_lr": build([y], rankdir="LR"),
        "custom_style": build(
            [y], variable_style={"shape": "box", "color": "red"}, function_style={"fillcolor": "white"}
        ),
        "remove_variable": build([y, z], remove_variable=True),
        "multi_output_node": build([c]),
        "array_input": build([d]),
        "old_style_function": build([e]),
        "same_input_twice": build([m]),
        "leaf_only": build([x]),
        "function_node_argument": build([y.creator_node]),
    }
    return {name: describe(graph.dump()) for name, graph in out.items()}


def describe(dot: str) -> dict:
    """The header, the node statements and the edges of a dot text, ids replaced by labels."""
    header, body = dot.split(";", 1)
    assert body.endswith("}")
    statements = [s for s in body[:-1].split(";") if s]
    labels, nodes, edges = {}, [], []
    for statement in statements:
        node = re.fullmatch(r"(\d+) \[(.*)\]", statement)
        if node:
            labels[node.group(1)] = re.search(r'label="([^"]*)"', node.group(2)).group(1)
            nodes.append(node.group(2))
        else:
            head, tail = re.fullmatch(r"(\d+) -> (\d+)", statement).groups()
            edges.append((head, tail))
    return {
        "header": header + ";",
        "nodes": sorted(nodes),
        "edges": sorted([labels[head], labels[tail]] for head, tail in edges),
    }


def main() -> None:
    import chainer
    import chainer.computational_graph  # noqa: F401

    OUT.write_text(json.dumps(cases(chainer), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
