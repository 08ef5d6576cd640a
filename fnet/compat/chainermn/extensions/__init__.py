"""``chainermn.extensions``: trainer extensions that agree across ranks."""

from ._multi_node_snapshot import multi_node_snapshot
from .allreduce_persistent import AllreducePersistent
from .checkpoint import create_multi_node_checkpointer
from .multi_node_early_stopping_trigger import MultiNodeEarlyStoppingTrigger
from .multi_node_evaluator import GenericMultiNodeEvaluator, create_multi_node_evaluator
from .observation_aggregator import ObservationAggregator

__all__ = [
    "AllreducePersistent",
    "GenericMultiNodeEvaluator",
    "MultiNodeEarlyStoppingTrigger",
    "ObservationAggregator",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "multi_node_snapshot",
]
