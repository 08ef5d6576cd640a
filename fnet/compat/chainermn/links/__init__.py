"""``chainermn.links``: model parallelism (MultiNodeChainList, multi-node NStep RNNs) and batch
normalization over every rank's batch."""

from .batch_normalization import MultiNodeBatchNormalization
from .create_mnbn_model import create_mnbn_model
from .multi_node_chain_list import MultiNodeChainList
from .n_step_rnn import create_multi_node_n_step_rnn

__all__ = [
    "MultiNodeBatchNormalization",
    "MultiNodeChainList",
    "create_mnbn_model",
    "create_multi_node_n_step_rnn",
]
