"""Chainer's ``computational_graph``: the graph behind some variables, dumped as Graphviz dot.

The graph is read from the records that fnet keeps for every operation on Variables. A
built-in function is one node of Chainer's class (``F.linear`` is a ``LinearFunction``,
``F.relu`` a ``ReLU``), as is a user ``FunctionNode`` (or old-style ``Function``); an operation
no Chainer class stands for (inside a composite such as ``F.average``) shows as the fnet
primitive that made the value. Only values that can carry a gradient are drawn as inputs of an
operation without a class. A variable's name shows while its Variable object is alive (names live
on Variables, not in the graph). The markers that function hooks put around built-in functions
are looked through.
"""

from __future__ import annotations

from ..autodiff import Record, Tracer
from ._tape import PrimitiveNode, VariableNode, attached, node_of, tracer_node
from .function_hooks import unmarked
from .function_node import FunctionNode
from .variable import Variable

__all__ = ["ComputationalGraph", "DotNode", "build_computational_graph"]

_VARIABLE_STYLE = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_FUNCTION_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}
_RANKDIRS = ("TB", "BT", "LR", "RL")


def _style(style, default: dict, name: str) -> dict:
    if style is None:
        return {}
    if isinstance(style, str):
        if style != "default":
            raise ValueError(
                f"ComputationalGraph: {name} must be a dict of dot attributes, None or 'default', "
                f"got {style!r}"
            )
        return dict(default)
    return dict(style)


def _is_function(node) -> bool:
    return isinstance(node, (FunctionNode, PrimitiveNode))


class DotNode:
    """One node of the graph in dot: ``node`` (a ``VariableNode`` or a function node), ``id_``
    (its id in the dot text) and ``attribute`` (its label, its shape, then ``attribute``'s
    entries); ``label`` is its dot statement. ``show_name`` puts a variable's name in front of
    its label."""

    def __init__(self, node, attribute: dict | None = None, show_name: bool = True):
        if not (isinstance(node, VariableNode) or _is_function(node)):
            raise TypeError(
                f"DotNode: expected a VariableNode or a function node, got {type(node).__name__}\n"
                "  hint: pass variable.node or variable.creator"
            )
        self.node = node
        self.id_ = id(node)
        self.attribute = {"label": node.label}
        if isinstance(node, VariableNode):
            if show_name and node.name is not None:
                self.attribute["label"] = f"{node.name}: {node.label}"
            self.attribute["shape"] = "oval"
        else:
            self.attribute["shape"] = "box"
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The dot statement of the node: its id, then its attributes."""
        listed = ",".join(f'{key}="{value}"' for key, value in self.attribute.items())
        return f"{self.id_} [{listed}];"


class ComputationalGraph:
    """A graph of variable nodes and function nodes, and its rendering in dot.

    Args:
        nodes: the nodes (``VariableNode`` and function nodes).
        edges: ``(head, tail)`` pairs: a variable into the function that takes it, or a
            function into the variable it made.
        variable_style, function_style: dot attributes of the variable and function nodes;
            ``'default'`` for Chainer's (grey octagons, blue records), None for none.
        rankdir: the direction of the drawing: 'TB', 'BT', 'LR' or 'RL'.
        remove_variable: draw only the functions, with an edge from each function into the
            functions that take its outputs.
        show_name: put variables' names in front of their labels.
    """

    def __init__(
        self,
        nodes,
        edges,
        variable_style="default",
        function_style="default",
        rankdir: str = "TB",
        remove_variable: bool = False,
        show_name: bool = True,
    ):
        if rankdir not in _RANKDIRS:
            raise ValueError(
                f"ComputationalGraph: rankdir must be one of {', '.join(_RANKDIRS)}, got {rankdir!r}"
            )
        self.nodes = list(nodes)
        self.edges = list(edges)
        self.variable_style = _style(variable_style, _VARIABLE_STYLE, "variable_style")
        self.function_style = _style(function_style, _FUNCTION_STYLE, "function_style")
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _function_edges(self) -> list:
        """The edges between functions: from the maker of each variable to each of its users."""
        makers = {id(tail): head for head, tail in self.edges if _is_function(head)}
        return [
            (makers[id(head)], tail)
            for head, tail in self.edges
            if isinstance(head, VariableNode) and id(head) in makers
        ]

    def _to_dot(self) -> str:
        lines = [f"digraph graphname{{rankdir={self.rankdir};"]
        for node in self.nodes:
            if isinstance(node, VariableNode):
                if not self.remove_variable:
                    lines.append(DotNode(node, self.variable_style, self.show_name).label)
            elif _is_function(node):
                lines.append(DotNode(node, self.function_style, self.show_name).label)
            else:
                raise TypeError(
                    "ComputationalGraph.dump: a node must be a VariableNode or a function node, "
                    f"got {type(node).__name__}"
                )
        if self.remove_variable:
            edges = self._function_edges()
        else:
            edges = self.edges
            for head, tail in edges:
                if isinstance(head, VariableNode) == isinstance(tail, VariableNode):
                    raise TypeError(
                        "ComputationalGraph.dump: an edge must join a variable and a function, got "
                        f"{type(head).__name__} -> {type(tail).__name__}"
                    )
        drawn = set()
        for head, tail in edges:
            edge = (id(head), id(tail))
            if edge not in drawn:
                drawn.add(edge)
                lines.append(f"{edge[0]} -> {edge[1]};")
        lines.append("}")
        return "".join(lines)

    def dump(self, format: str = "dot") -> str:
        """The graph as text in ``format``; only 'dot' (Graphviz) is supported."""
        if format != "dot":
            raise NotImplementedError(
                f"ComputationalGraph.dump: only the 'dot' format is supported, got {format!r}"
            )
        return self._to_dot()


class _Builder:
    """Walks the records backward from the outputs; one node object per variable and function."""

    def __init__(self):
        self.nodes: dict = {}  # key -> node, in the order found
        self.edges: dict = {}  # (id head, id tail) -> (head, tail), in the order found
        self.pending: list = []

    # A variable is known by the record of its value (looking through hooks' input markers),
    # or by its node when it has no record (a Variable that holds a plain array).
    def variable(self, node: VariableNode, record: Record | None):
        if record is not None:
            record = unmarked(record, through_exit=False)
        key = ("variable", id(node) if record is None else record)
        if key not in self.nodes:
            self.nodes[key] = node
            self.pending.append((node, record))
        return self.nodes[key]

    def variable_of_record(self, record: Record):
        record = unmarked(record, through_exit=False)
        key = ("variable", record)
        if key in self.nodes:
            return self.nodes[key]
        return self.variable(tracer_node(Tracer(record.ans, record.level, record)), record)

    def function(self, node):
        key = ("function", node._record if type(node) is PrimitiveNode else node)
        if key not in self.nodes:
            self.nodes[key] = node
            self.pending.append((node, None))
        return self.nodes[key]

    def edge(self, head, tail) -> None:
        self.edges.setdefault((id(head), id(tail)), (head, tail))

    def creator(self, record: Record | None):
        """The function node that made the value of ``record`` (None for a leaf)."""
        if record is None:
            return None
        if record.primitive is None:
            return None
        if all(p is None for p in record.parents):  # cut by unchain_backward: a leaf now
            return None
        node = attached(record)  # a built-in function's node, on its (perhaps hook-marked) outputs
        if node is not None:
            return node
        record = unmarked(record, through_exit=True)
        if record.primitive is None:
            return None
        if all(p is None for p in record.parents):
            return None
        return node_of(record)

    def inputs(self, function) -> list:
        if type(function) is PrimitiveNode:
            return [self.variable_of_record(p.record) for p in function._record.parents if p is not None]
        return [self.variable(x, getattr(x, "_record", None)) for x in function.inputs or ()]

    def run(self) -> None:
        while self.pending:
            node, record = self.pending.pop()
            if isinstance(node, VariableNode):
                creator = self.creator(record)
                if creator is not None:
                    self.edge(self.function(creator), node)
            else:
                for x in self.inputs(node):
                    self.edge(x, node)


def build_computational_graph(
    outputs,
    remove_split: bool = True,
    variable_style="default",
    function_style="default",
    rankdir: str = "TB",
    remove_variable: bool = False,
    show_name: bool = True,
) -> ComputationalGraph:
    """The graph of the functions and variables that ``outputs`` were computed from.

    Args:
        outputs: a Variable, a ``VariableNode``, a function node, or a list of them.
        remove_split: must be True (kept for compatibility with old code).
        variable_style, function_style, rankdir, remove_variable, show_name: passed to
            :class:`ComputationalGraph`.

    >>> import numpy, fnet.compat as chainer
    >>> x = chainer.Variable(numpy.ones(3, numpy.float32), name="x")
    >>> y = chainer.functions.exp(x)
    >>> graph = build_computational_graph([y])
    >>> sorted(node.label for node in graph.nodes)
    ['(3), float32', '(3), float32', 'exp']
    >>> graph.dump().startswith('digraph graphname{rankdir=TB;')
    True
    """
    if not remove_split:
        raise ValueError(
            "build_computational_graph: remove_split=False is not supported any more (as in Chainer v7)\n"
            "  hint: leave remove_split at its default, True"
        )
    if isinstance(outputs, (Variable, VariableNode, FunctionNode, PrimitiveNode)):
        outputs = [outputs]
    builder = _Builder()
    for out in outputs:
        if isinstance(out, Variable):
            data = out._data
            builder.variable(out._node, data.record if type(data) is Tracer else None)
        elif isinstance(out, VariableNode):
            builder.variable(out, getattr(out, "_record", None))
        elif _is_function(out):
            builder.function(out)
        else:
            raise TypeError(
                "build_computational_graph: each output must be a Variable, a VariableNode or a "
                f"FunctionNode, got {type(out).__name__}\n"
                "  hint: pass the variables you computed, e.g. [loss]"
            )
    builder.run()
    return ComputationalGraph(
        list(builder.nodes.values()),
        list(builder.edges.values()),
        variable_style,
        function_style,
        rankdir,
        remove_variable,
        show_name,
    )
