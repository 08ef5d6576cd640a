"""``create_multi_node_n_step_rnn``: an NStep RNN whose initial cells come from one rank and
whose final cells go to another (a sequence model split across ranks)."""

from __future__ import annotations

from ...link import Chain
from ...links.rnn import NStepRNNBase
from ..functions import pseudo_connect, recv, send

__all__ = ["create_multi_node_n_step_rnn"]


class _MultiNodeNStepRNN(Chain):
    def __init__(self, link, communicator, rank_in, rank_out):
        if not isinstance(link, NStepRNNBase):
            raise ValueError("link must be NStepRNN and its inherited link")
        super().__init__(actual_rnn=link)
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = link.n_cells

    def forward(self, *inputs):
        cells = [None] * self.n_cells
        if self.rank_in is not None:
            cells = [recv(self.communicator, rank=self.rank_in) for _ in range(self.n_cells)]
        outputs = self.actual_rnn(*cells, *inputs)
        cells = outputs[:-1]
        delegate = None
        if self.rank_out is not None:
            cell = cells[0]
            for i in range(self.n_cells):
                delegate = send(cell, self.communicator, rank=self.rank_out)
                if i < self.n_cells - 1:
                    (cell,) = pseudo_connect(delegate, cells[i + 1])
        return (*outputs, delegate)


def create_multi_node_n_step_rnn(actual_link, communicator, rank_in=None, rank_out=None):
    """``actual_link`` (an NStepRNN, NStepLSTM, NStepGRU...) that receives its initial cells from
    ``rank_in`` and sends its final cells to ``rank_out``; the call returns the link's outputs
    and the delegate of the send (None when nothing is sent)."""
    return _MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
