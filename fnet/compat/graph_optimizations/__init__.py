"""Chainer's ``chainer.graph_optimizations``: static subgraphs (``static_graph``, ``static_code``)."""

from .static_graph import static_graph
from .static_graph_utilities import static_code

__all__ = ["static_graph", "static_code"]
