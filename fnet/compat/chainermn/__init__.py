"""ChainerMN's API on fnet.distributed: ``import chainermn`` under ``python -m fnet.compat``.

Compat holds state only: communicators, the multi-node optimizer and evaluator keep references
and call ``fnet.distributed``, where the transport (mpi4py) and the arithmetic are. On the
CPU the communicators are ``naive`` and ``flat``; the NCCL ones say what they need.
"""

from . import (
    communicators,
    datasets,
    extensions,
    functions,
    global_except_hook,
    iterators,
    optimizers,
    testing,
)
from .communicators import CommunicatorBase, create_communicator
from .datasets import DataSizeError, create_empty_dataset, scatter_dataset, scatter_index
from .extensions import create_multi_node_checkpointer, create_multi_node_evaluator
from .links import MultiNodeChainList
from .optimizers import create_multi_node_optimizer

__all__ = [
    "communicators",
    "datasets",
    "extensions",
    "functions",
    "global_except_hook",
    "iterators",
    "links",
    "optimizers",
    "testing",
    "CommunicatorBase",
    "create_communicator",
    "DataSizeError",
    "create_empty_dataset",
    "scatter_dataset",
    "scatter_index",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "MultiNodeChainList",
    "create_multi_node_optimizer",
]

global_except_hook._add_hook_if_enabled()
