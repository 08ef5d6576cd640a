"""``AllreducePersistent``: a model's floating persistent values (batch-norm statistics)
averaged over ranks."""

from __future__ import annotations

import numpy

from ..._chx import to_data
from ...training import extension

__all__ = ["AllreducePersistent"]


class AllreducePersistent(extension.Extension):
    """Replace each floating persistent array of ``model`` with its mean over the ranks of
    ``comm`` (one packed allreduce); integer and scalar persistents are left alone."""

    trigger = 1, "epoch"
    priority = extension.PRIORITY_WRITER + 1

    def __init__(self, model, comm):
        self.model = model
        self.comm = comm

    def __call__(self, trainer=None):
        arrays = {}
        for link_name, link in self.model.namedlinks():
            for name in sorted(link._persistent):
                value = to_data(link.__dict__[name])  # under a ChainerX array: the memory it shares
                if isinstance(value, numpy.ndarray) and value.dtype.kind == "f":
                    arrays[f"{link_name}/{name}"] = value
        self.comm.fnet_communicator.allreduce(arrays, "mean", in_place=True)
