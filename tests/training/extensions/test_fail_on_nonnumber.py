"""FailOnNonNumber: compat links and params trees."""

from __future__ import annotations

import numpy
import pytest

from fnet.compat import links as L
from fnet.training.extensions import FailOnNonNumber


class Optimizer:
    def __init__(self, target):
        self.target = target


def test_finite_parameters_pass_and_a_nan_stops(make_trainer):
    link = L.Linear(2, 2)
    trainer = make_trainer(optimizers={"main": Optimizer(link), "other": Optimizer(L.Linear(None, 2))})
    FailOnNonNumber()(trainer)
    link.b.array[1] = numpy.inf
    with pytest.raises(
        RuntimeError, match="Kill the process since parameters in optimizer 'main' diverge. R.I.P."
    ):
        FailOnNonNumber()(trainer)


def test_a_params_tree_target(make_trainer):
    params = {"l1": {"W": numpy.ones((2, 2), numpy.float32), "name": "x"}}
    trainer = make_trainer(optimizers={"pure": Optimizer(params)})
    FailOnNonNumber()(trainer)
    params["l1"]["W"][0, 0] = numpy.nan
    with pytest.raises(RuntimeError, match="optimizer 'pure' diverge"):
        FailOnNonNumber()(trainer)


def test_the_params_of_a_functional_updater(make_trainer):
    trainer = make_trainer()
    trainer.updater.params = {"w": numpy.zeros(3, numpy.float32)}
    FailOnNonNumber()(trainer)
    trainer.updater.params["w"][2] = -numpy.inf
    with pytest.raises(RuntimeError, match="the parameters of the updater diverge"):
        FailOnNonNumber()(trainer)
