"""``MultiNodeChainList``: a model whose parts run on several ranks, joined by send and recv.

Each part is added with the ranks it receives its input from (``rank_in``; None: the model's
inputs) and sends its output to (``rank_out``; None: the model's output). A call runs the parts
in order; the delegates of sends and receives are chained with ``pseudo_connect`` so that one
``backward()`` runs every part's backward pass, in the reverse order, on every rank.
"""

from __future__ import annotations

from collections import deque

from ...link import ChainList
from ..functions import pseudo_connect, recv, send

__all__ = ["MultiNodeChainList"]


class MultiNodeChainList(ChainList):
    """A ChainList of model parts placed across the ranks of ``comm``."""

    def __init__(self, comm):
        super().__init__()
        self._comm = comm
        self._rank_inouts = []

    def add_link(self, link, rank_in=None, rank_out=None):
        """Add a part that receives from ``rank_in`` and sends to ``rank_out`` (ranks, lists of
        ranks, or None); at most one part may have ``rank_out=None`` (the model's output)."""
        rank_in = [rank_in] if isinstance(rank_in, int) else rank_in
        rank_out = [rank_out] if isinstance(rank_out, int) else rank_out
        if rank_out is None and any(out is None for _, out in self._rank_inouts):
            raise ValueError(
                "MultiNodeChainList cannot have more than two computational graph component "
                "whose rank_out is None"
            )
        super().add_link(link)
        self._rank_inouts.append((rank_in, rank_out))

    def _inputs(self, index, part, rank_in, inputs, queue, delegate):
        """The part's output on what it takes: the model's inputs, or what the ranks sent."""
        if rank_in is None:
            if index == 0:
                return part(*inputs)
            (x,) = pseudo_connect(delegate, *inputs)
            return part(x)
        xs = []
        for source in rank_in:
            if source == self._comm.rank:
                x = queue.popleft()
                if delegate is not None:
                    (x,) = pseudo_connect(delegate, x)
            else:
                x = recv(self._comm, rank=source, delegate_variable=delegate)
            xs.append(x)
            delegate = x  # the next receive comes after this one in backward, too
        return part(*xs)

    def forward(self, *inputs):
        queue = deque()
        y = None
        delegate = None
        for index, (part, (rank_in, rank_out)) in enumerate(zip(self._children, self._rank_inouts)):
            x = self._inputs(index, part, rank_in, inputs, queue, delegate)
            if rank_in is not None:
                delegate = None
            if rank_out is None:
                y = delegate = x
                continue
            for position, dest in enumerate(rank_out):
                if dest == self._comm.rank:
                    if delegate is not None:
                        (x,) = pseudo_connect(delegate, x)
                    queue.append(x)
                    delegate = x
                else:
                    if position > 0 and delegate is not None:
                        (x,) = pseudo_connect(delegate, x)
                    delegate = send(x, self._comm, rank=dest)
        if queue:
            raise ValueError(
                "Communication queue is not empty at the end of forward. "
                "Make sure if all rank_in and rank_out correspond each other."
            )
        if y is delegate:
            return y
        if y is not None:
            (y,) = pseudo_connect(delegate, y)
            return y
        return delegate
