"""chainer.reporter.Summary: a Variable added makes the mean a Variable, as in Chainer."""

from __future__ import annotations

import numpy

import fnet.compat as chainer


def test_summary_of_variables_gives_variables():
    summary = chainer.reporter.Summary()
    summary.add(1.0, 0.5)
    summary.add(3.0, chainer.Variable(numpy.array(0.3)))
    mean = summary.compute_mean()
    assert isinstance(mean, chainer.Variable)
    numpy.testing.assert_allclose(mean.array, (0.5 + 0.9) / 0.8, rtol=1e-15)  # float64 sums
    assert all(isinstance(x, chainer.Variable) for x in summary.make_statistics())
    plain = chainer.reporter.Summary()
    plain.add(2.0)
    assert not isinstance(plain.compute_mean(), chainer.Variable) and plain.compute_mean() == 2.0
