"""VariableStatisticsPlot: the recorded statistics, the reservoir sample, the PNG, the errors."""

from __future__ import annotations

import os

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import links as L
from fnet.training.extensions import VariableStatisticsPlot, _util
from fnet.training.extensions.variable_statistics_plot import Reservoir, Statistician


def test_statistics_of_data_and_grads_are_recorded_and_plotted(make_trainer):
    pytest.importorskip("matplotlib")
    link = L.Linear(3, 2)
    link.W.grad = numpy.ones((2, 3), numpy.float32)
    link.b.grad = None  # a missing gradient is left out
    ext = VariableStatisticsPlot(link, percentile_sigmas=(0, 50, 100), trigger=(2, "iteration"), marker="o")
    trainer = make_trainer()
    trainer.extend(ext, "stats", trigger=(1, "iteration"))
    trainer.step()
    idxs, data = ext._samples.get_data()
    values = numpy.concatenate([link.W.array.ravel(), link.b.array.ravel()])
    assert idxs.tolist() == [1]
    numpy.testing.assert_allclose(
        data[0, 0], [values.mean(), values.std(), values.min(), numpy.median(values), values.max()], rtol=1e-6
    )
    numpy.testing.assert_allclose(data[0, 1], [1, 0, 1, 1, 1])
    trainer.step()
    with open(os.path.join(trainer.out, "statistics.png"), "rb") as f:
        assert f.read(4) == b"\x89PNG"


@pytest.mark.parametrize(
    "options", [dict(plot_std=False, percentile_sigmas=50), dict(plot_mean=False, percentile_sigmas=()), {}]
)
def test_other_layouts_plot(make_trainer, options):
    pytest.importorskip("matplotlib")
    variable = chainer.Variable(numpy.arange(6, dtype=numpy.float32))
    ext = VariableStatisticsPlot(
        [variable], report_grad=False, filename="v.png", trigger=(1, "iteration"), **options
    )
    trainer = make_trainer()
    trainer.extend(ext, "stats", trigger=(1, "iteration"))
    trainer.step()
    assert os.listdir(trainer.out) == ["v.png"]


def test_reservoir_keeps_a_uniform_sample_in_order():
    numpy.random.seed(0)
    reservoir = Reservoir(10, (1,))
    for i in range(1000):
        reservoir.add(numpy.float32(i), idx=i)
    idxs, data = reservoir.get_data()
    assert len(idxs) == 10 and list(idxs) == sorted(idxs) and (data[:, 0] == idxs).all()
    assert idxs.max() > 100  # late records do get in
    first = Reservoir(3, (1,))
    first.add(numpy.float32(5))
    assert first.get_data()[0].tolist() == [0]


def test_statistician_axes():
    x = numpy.arange(12, dtype=numpy.float64).reshape(3, 4)
    out = Statistician(True, True, (0, 100))(x, axis=None)
    assert out["mean"] == 5.5 and out["percentile"].tolist() == [0, 11]
    assert Statistician(True, False, ())(x, axis=1)["mean"].tolist() == [1.5, 5.5, 9.5]


def test_errors(monkeypatch):
    with pytest.raises(ValueError, match="Need at least one variables"):
        VariableStatisticsPlot([])
    with pytest.raises(ValueError, match="Nothing to plot"):
        VariableStatisticsPlot(L.Linear(2, 2), plot_mean=False, plot_std=False, percentile_sigmas=())
    with pytest.raises(TypeError, match="targets must be Variables, links or lists of them, got int"):
        VariableStatisticsPlot(3)
    monkeypatch.setattr(_util, "matplotlib_found", lambda: False)
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        assert VariableStatisticsPlot.available() is False
