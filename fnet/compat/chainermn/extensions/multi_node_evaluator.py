"""Evaluators over several ranks: ``create_multi_node_evaluator`` (the mean of every rank's
results) and ``GenericMultiNodeEvaluator`` (any aggregation, on one rank)."""

from __future__ import annotations

import copy
import types

import numpy

from ....data.convert import _call_converter
from ... import backend
from ...dataset import convert
from ...function import no_backprop_mode
from ...training import extension
from ...utils import argument
from ...variable import Variable

__all__ = ["create_multi_node_evaluator", "GenericMultiNodeEvaluator"]


def create_multi_node_evaluator(actual_evaluator, communicator):
    """Make ``actual_evaluator.evaluate()`` return the mean over ranks of each rank's result
    (one allreduce of the result dict); returns the same evaluator."""
    local_evaluate = actual_evaluator.evaluate
    actual_evaluator._mn_original_evaluate = local_evaluate
    actual_evaluator._mn_communicator = communicator

    def evaluate(self):
        local = {name: numpy.asarray(value, numpy.float64) for name, value in local_evaluate().items()}
        averaged = communicator.fnet_communicator.allreduce(local, "mean")
        return {
            name: value.astype(numpy.asarray(local[name]).dtype) for name, value in sorted(averaged.items())
        }

    actual_evaluator.evaluate = types.MethodType(evaluate, actual_evaluator)
    return actual_evaluator


def _plain(result):
    """``result`` with Variables replaced by their arrays (what travels between ranks)."""
    if isinstance(result, Variable):
        return result.array
    if isinstance(result, tuple | list):
        return type(result)(_plain(r) for r in result)
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items()}
    return result


class GenericMultiNodeEvaluator(extension.Extension):
    """Evaluate a dataset split unevenly between ranks, for results that are not simple means.

    Each rank runs ``calc_local`` on its batches (by default, the target); the results travel
    to ``root`` in rounds of 8 batches, and ``aggregate`` (by default, the list itself) runs
    there once, on every rank's results. Override both. The other ranks return None.
    """

    trigger = 1, "epoch"
    default_name = "validation"
    priority = extension.PRIORITY_WRITER
    name = None
    _GATHER_INTERVAL = 8

    def __init__(
        self, comm, iterator, target, device=None, converter=convert.concat_examples, root=0, **kwargs
    ):
        (progress_hook,) = argument.parse_kwargs(kwargs, ("progress_hook", None))
        if not 0 <= root < comm.size:
            raise ValueError(f"GenericMultiNodeEvaluator: expected root in [0, {comm.size}), got {root}")
        self.comm = comm
        self.iterator = iterator
        self._targets = {"main": target}
        self.converter = converter
        self.device = None if device is None else backend.get_device(device)
        self._progress_hook = progress_hook
        self.root = root

    def __call__(self, trainer=None):
        if hasattr(self.iterator, "reset"):
            self.iterator.reset()
            iterator = self.iterator
        else:
            iterator = copy.copy(self.iterator)
        results = list(self._evaluate_local(iterator))
        return self.aggregate(results) if self.comm.rank == self.root else None

    def calc_local(self, *args, **kwargs):
        """The result of one batch on this rank (anything but None); by default the target's output."""
        return self._targets["main"](*args, **kwargs)

    def aggregate(self, results):
        """The evaluation from every rank's results, on ``root`` only; by default the list itself."""
        return results

    def _calc(self, batch):
        in_arrays = _call_converter(self.converter, batch, self.device)
        with no_backprop_mode():
            if isinstance(in_arrays, tuple):
                return self.calc_local(*in_arrays)
            if isinstance(in_arrays, dict):
                return self.calc_local(**in_arrays)
            return self.calc_local(in_arrays)

    def _evaluate_local(self, iterator):
        done = False
        while not done:
            done = True
            for _ in range(self._GATHER_INTERVAL):
                try:
                    batch = iterator.next()
                except StopIteration:
                    result = None
                else:
                    result = _plain(self._calc(batch))
                    if self.comm.rank == self.root and self._progress_hook:
                        self._progress_hook(batch)
                gathered = self.comm.gather_obj(result, root=self.root)
                if self.comm.rank == self.root:
                    valid = [r for r in gathered if r is not None]
                    yield from valid
                    done = done and not valid
            done = self.comm.bcast_obj(done, root=self.root)
