"""unchain_variables: the graphs of reported Variables are cut when keep_graph_on_report was on."""

from __future__ import annotations

import numpy

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat.training.extensions import unchain_variables


def test_variables_are_unchained_after_iterations_with_the_flag(make_trainer):
    trainer = make_trainer()
    ext = unchain_variables()
    assert ext.priority == 0
    ext.initialize(trainer)
    assert ext.trigger(trainer) is False  # the flag was off
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with chainer.using_config("keep_graph_on_report", True):
        assert ext.trigger(trainer) is False
        loss = F.sum(x * 2)
    assert ext.trigger(trainer) is True  # it was on at the previous check
    trainer.observation = {"loss": loss, "n": 1}
    assert loss.creator is not None
    ext(trainer)
    assert loss.creator is None
