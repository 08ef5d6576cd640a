"""``create_multi_node_evaluator``: an evaluator whose results are averaged over ranks."""

from __future__ import annotations

import types

import numpy

__all__ = ["create_multi_node_evaluator"]


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
