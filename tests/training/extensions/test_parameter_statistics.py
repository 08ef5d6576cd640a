"""ParameterStatistics beyond the golden comparison: statistics choices, NaN skipping, errors."""

from __future__ import annotations

import numpy
import pytest

from fnet.compat import links as L
from fnet.training.extensions import ParameterStatistics


def _report(ext, trainer):
    trainer.step()
    return trainer.observation


def test_no_statistics_then_registered_ones(make_trainer):
    link = L.Linear(2, 2, initialW=numpy.eye(2, dtype=numpy.float32))
    ext = ParameterStatistics(link, statistics=None, report_grads=False, trigger=(1, "iteration"))
    ext.register_statistics("trace", lambda x: x.reshape(2, 2).trace() if x.size == 4 else x.sum())
    trainer = make_trainer()
    trainer.extend(ext, "stats", trigger=(1, "iteration"))
    assert _report(ext, trainer) == {"None/W/data/trace": 2.0, "None/b/data/trace": 0.0}
    assert (ext.default_name, ext.priority) == ("parameter_statistics", 300)


def test_nan_params_are_skipped_when_asked(make_trainer):
    link = L.Linear(2, 1)
    link.W.array[0, 0] = numpy.nan
    ext = ParameterStatistics(
        link, {"max": numpy.max}, report_grads=False, trigger=(1, "iteration"), skip_nan_params=True
    )
    trainer = make_trainer()
    trainer.extend(ext, "stats", trigger=(1, "iteration"))
    observation = _report(ext, trainer)
    assert numpy.isnan(observation["None/W/data/max"]) and observation["None/b/data/max"] == 0


def test_uninitialized_params_and_missing_grads_are_skipped(make_trainer):
    link = L.Linear(None, 2)
    link.cleargrads()
    ext = ParameterStatistics(link, {"mean": numpy.mean}, trigger=(1, "iteration"))
    trainer = make_trainer()
    trainer.extend(ext, "stats", trigger=(1, "iteration"))
    assert sorted(_report(ext, trainer)) == ["None/b/data/mean"]


def test_errors():
    with pytest.raises(TypeError, match="links must be Chainer links"):
        ParameterStatistics({"W": numpy.zeros(2)})
    with pytest.raises(ValueError, match="statistics must be a dict, None or 'default'"):
        ParameterStatistics(L.Linear(2, 2), statistics="all")


def test_drawn_parameters_start_with_nan_grads_as_in_chainer(make_trainer):
    # Chainer's links draw their parameters with a NaN-filled grad (a forgotten cleargrads()
    # shows), so ParameterStatistics reports the grads of a link that has not run backward yet
    link = L.Linear(3, 2)
    assert numpy.isnan(link.W.grad).all() and numpy.isnan(link.b.grad).all()
    ext = ParameterStatistics(link, {"min": numpy.min}, trigger=(1, "iteration"), skip_nan_params=True)
    trainer = make_trainer()
    trainer.extend(ext, "stats", trigger=(1, "iteration"))
    observation = _report(ext, trainer)
    assert sorted(observation) == ["None/W/data/min", "None/W/grad/min", "None/b/data/min", "None/b/grad/min"]
    assert numpy.isnan(observation["None/W/grad/min"])
    lazy = L.Linear(None, 2)
    assert lazy.W.grad is None
    lazy(numpy.zeros((1, 3), numpy.float32))
    assert numpy.isnan(lazy.W.grad).all() and lazy.W.grad.shape == (2, 3)
    assert L.Parameter(numpy.zeros(2, numpy.float32)).W.grad is None  # made from an array: none
