"""``chainer.computational_graph``: graphs of user-defined functions are compared with Chainer 7.8.1
(``tests/golden/make_computational_graph.py``); graphs of built-in functions show fnet's
primitives."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.computational_graph as c
from fnet.compat import functions as F
from fnet.compat.function_hooks import TimerHook

from .._scripts import GOLDEN, load_golden


@pytest.fixture(scope="module")
def golden():
    expected = json.loads((GOLDEN / "computational_graph.json").read_text())
    return load_golden("make_computational_graph"), expected


def test_graphs_of_user_functions_match_chainer(golden):
    module, expected = golden
    got = json.loads(json.dumps(module.cases(chainer)))
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name


def variable(*shape, name=None, seed=0):
    array = numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)
    return chainer.Variable(array, name=name)


def structure(graph) -> tuple[list, list]:
    """Node labels and edges (as label pairs) of a graph's dot text."""
    return _structure(graph.dump())


def _structure(dot: str) -> tuple[list, list]:
    labels = dict(re.findall(r'(\d+) \[label="([^"]*)"', dot))
    edges = re.findall(r"(\d+) -> (\d+);", dot)
    return sorted(labels.values()), sorted((labels[h], labels[t]) for h, t in edges)


def test_documented_usage_writes_a_dot_file(tmp_path):
    x = variable(2, 3, name="x")
    W = variable(4, 3, name="W", seed=1)
    vs = [F.sum(F.relu(F.linear(x, W)))]
    g = c.build_computational_graph(vs)
    with open(tmp_path / "graph.dot", "w") as o:
        o.write(g.dump())
    text = (tmp_path / "graph.dot").read_text()
    assert text.startswith("digraph graphname{rankdir=TB;") and text.endswith("}")
    assert isinstance(g, c.ComputationalGraph)


def test_builtin_functions_show_as_their_chainer_nodes():
    x = variable(2, 3, name="x")
    W = variable(4, 3, name="W", seed=1)
    y = F.relu(F.linear(x, W))
    y.name = "y"
    labels, edges = structure(c.build_computational_graph(y))
    assert labels == [
        "(2, 4), float32",
        "LinearFunction",
        "ReLU",
        "W: (4, 3), float32",
        "x: (2, 3), float32",
        "y: (2, 4), float32",
    ]
    assert edges == [
        ("(2, 4), float32", "ReLU"),
        ("LinearFunction", "(2, 4), float32"),
        ("ReLU", "y: (2, 4), float32"),
        ("W: (4, 3), float32", "LinearFunction"),
        ("x: (2, 3), float32", "LinearFunction"),
    ]


class Square(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * inputs[0],)


def test_hook_markers_do_not_show():
    def compute():
        x = variable(3, name="x")
        h = F.exp(x)
        h.name = "h"
        (s,) = Square().apply((F.split_axis(h, 3, axis=0)[1],))
        s.name = "s"
        y = F.sum(s * h)
        y.name = "y"
        return x, h, s, y  # the Variables hold the names: keep them alive

    alive = compute()
    plain = structure(c.build_computational_graph(alive[-1]))
    with TimerHook():
        alive = compute()
        hooked = structure(c.build_computational_graph(alive[-1]))
    assert hooked == plain
    assert {"x: (3), float32", "h: (3), float32", "s: (1), float32", "Square"} <= set(plain[0])


def test_only_what_outputs_depend_on_is_drawn():
    x = variable(3, name="x")
    y, z = F.exp(x), F.sin(x)
    y.name, z.name = "y", "z"
    labels, _ = structure(c.build_computational_graph([y]))
    assert "sin" not in labels and "z: (3), float32" not in labels
    labels, _ = structure(c.build_computational_graph([y, z]))
    assert {"sin", "exp", "z: (3), float32", "y: (3), float32"} <= set(labels)


def test_graph_stops_at_unchain_backward():
    x = variable(3, name="x")
    h = F.exp(x)
    h.name = "h"
    y = F.sin(h)
    h.unchain_backward()
    labels, _ = structure(c.build_computational_graph([y]))
    assert labels == ["(3), float32", "h: (3), float32", "sin"]


def test_remove_variable_draws_function_to_function_edges():
    x = variable(3, name="x")
    y = F.sum(F.sin(F.exp(x)))
    dot = c.build_computational_graph([y], remove_variable=True).dump()
    labels, edges = _structure(dot)
    assert labels == ["Sum", "exp", "sin"]
    assert edges == [("exp", "sin"), ("sin", "Sum")]


def test_graph_of_a_double_backprop_gradient():
    x = variable(3, name="x")
    y = F.sum(F.exp(x) * x)
    (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
    labels, _ = structure(c.build_computational_graph([gx]))
    assert "x: (3), float32" in labels and "exp" in labels


def test_deep_graphs_need_no_recursion():
    x = variable(2, name="x")
    h = x
    for _ in range(3000):
        h = F.sin(h)
    graph = c.build_computational_graph([h])
    assert len(graph.nodes) == 2 * 3000 + 1 and len(graph.edges) == 2 * 3000


def test_styles_rankdir_and_names():
    x = variable(3, name="x")
    y = F.exp(x)
    dot = c.build_computational_graph(
        [y], variable_style={"color": "red"}, function_style=None, rankdir="BT", show_name=False
    ).dump()
    assert dot.startswith("digraph graphname{rankdir=BT;")
    assert '[label="(3), float32",shape="oval",color="red"];' in dot
    assert '[label="exp",shape="box"];' in dot


def test_bad_arguments():
    y = F.exp(variable(3))
    with pytest.raises(ValueError, match="remove_split=False is not supported"):
        c.build_computational_graph([y], remove_split=False)
    with pytest.raises(ValueError, match="rankdir must be one of TB, BT, LR, RL, got 'XY'"):
        c.build_computational_graph([y], rankdir="XY")
    with pytest.raises(TypeError, match="each output must be a Variable"):
        c.build_computational_graph([y.array])
    with pytest.raises(NotImplementedError, match="only the 'dot' format"):
        c.build_computational_graph([y]).dump(format="svg")
    with pytest.raises(ValueError, match="variable_style must be a dict"):
        c.build_computational_graph([y], variable_style="fancy")


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_graphviz_accepts_the_dump():
    x = variable(2, 3, name="x")
    dot = c.build_computational_graph([F.sum(F.tanh(x) * x)]).dump()
    subprocess.run(["dot", "-Tsvg"], input=dot, text=True, check=True, capture_output=True)


def test_dot_node_as_chainer():
    from fnet.compat.computational_graph import DotNode

    x = chainer.Variable(numpy.ones((2, 3), numpy.float32), name="x")
    y = chainer.functions.relu(x)
    node = DotNode(x.node, {"color": "red"})
    assert node.node is x.node and node.id_ == id(x.node)
    assert node.attribute == {"label": "x: (2, 3), float32", "shape": "oval", "color": "red"}
    assert node.label == f'{id(x.node)} [label="x: (2, 3), float32",shape="oval",color="red"];'
    assert DotNode(x.node, show_name=False).attribute["label"] == "(2, 3), float32"
    assert DotNode(y.creator).attribute == {"label": "ReLU", "shape": "box"}
    with pytest.raises(TypeError, match="expected a VariableNode or a function node"):
        DotNode(x)
