"""``create_mnbn_model``: a copy of a model with every BatchNormalization made multi-node."""

from __future__ import annotations

import copy

from ...link import Chain, ChainList
from ...links import BatchNormalization
from ...sequential import Sequential
from .batch_normalization import MultiNodeBatchNormalization

__all__ = ["create_mnbn_model"]


def _multi_node(link, comm, backend):
    mnbn = MultiNodeBatchNormalization(
        size=link.avg_mean.shape,
        comm=comm,
        decay=link.decay,
        eps=link.eps,
        dtype=link.avg_mean.dtype,
        use_gamma=link.gamma is not None,
        use_beta=link.beta is not None,
        communication_backend=backend,
    )
    mnbn.copyparams(link)
    for name in link._persistent:
        mnbn.__dict__[name] = copy.deepcopy(link.__dict__[name])
    return mnbn


def create_mnbn_model(link, comm, communication_backend="auto"):
    """A deep copy of ``link`` in which each ``BatchNormalization`` (at any depth of Chains,
    ChainLists and Sequentials) is a ``MultiNodeBatchNormalization`` with the same parameters
    and statistics."""
    if isinstance(link, BatchNormalization):
        return _multi_node(link, comm, communication_backend)
    if isinstance(link, Chain):
        new = copy.deepcopy(link)
        for name in link._children:
            new.__dict__[name] = create_mnbn_model(link.__dict__[name], comm, communication_backend)
        return new
    if isinstance(link, Sequential):
        new = copy.deepcopy(link)
        for i, child in enumerate(link):
            new[i] = create_mnbn_model(child, comm, communication_backend)
        return new
    if isinstance(link, ChainList):
        new = copy.deepcopy(link)
        for i, child in enumerate(link):
            new._children[i] = create_mnbn_model(child, comm, communication_backend)
        return new
    return copy.deepcopy(link)
