"""``chainermn.iterators``: iterators that agree across ranks.

``create_multi_node_iterator`` lets one rank (``rank_master``) iterate and broadcasts each batch
with a small control message (stop, valid, paired, new epoch, position) to the others;
``create_synchronized_iterator`` gives every rank's iterator the same shuffling, from a seed
that rank 0 draws and broadcasts.
"""

from .multi_node_iterator import create_multi_node_iterator
from .synchronized_iterator import create_synchronized_iterator

__all__ = ["create_multi_node_iterator", "create_synchronized_iterator"]
