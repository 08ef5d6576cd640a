"""``chainermn.extensions``: trainer extensions that agree across ranks."""

from .multi_node_evaluator import create_multi_node_evaluator

__all__ = ["create_multi_node_evaluator"]
