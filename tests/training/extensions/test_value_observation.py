"""observe_value and observe_lr."""

from __future__ import annotations

from fnet.compat import links as L
from fnet.compat import optimizers
from fnet.training.extensions import observe_lr, observe_value


def test_observe_lr_records_the_learning_rate_of_the_named_optimizer(make_trainer):
    sgd = optimizers.SGD(lr=0.25).setup(L.Linear(2, 2))
    trainer = make_trainer(
        optimizers={"main": sgd, "gen": optimizers.MomentumSGD(lr=0.5).setup(L.Linear(2, 2))}
    )
    observe_lr()(trainer)
    observe_lr("gen", "gen/lr")(trainer)
    assert trainer.observation == {"lr": 0.25, "gen/lr": 0.5}
    ext = observe_lr()
    assert (ext.trigger, ext.priority, ext.default_name) == ((1, "epoch"), 300, "observe_value")


def test_observe_value_in_a_trainer(make_trainer):
    trainer = make_trainer()
    trainer.extend(observe_value("it", lambda t: t.updater.iteration * 10), "it", trigger=(1, "iteration"))
    trainer.step()
    assert trainer.observation == {"it": 10}
