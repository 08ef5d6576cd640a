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


def _functional_trainer(tmp_path, tx, step=None, **updater_options):
    import numpy

    import fnet
    from fnet import optim
    from fnet.data.iterators import SerialIterator
    from fnet.training import Trainer
    from fnet.training.updaters import FunctionalUpdater

    def loss_fn(params, state, batch):
        return fnet.ops.mean((batch * params["w"]) ** 2), (state, {})

    params = {"w": numpy.ones(2, numpy.float32)}
    data = [numpy.float32(x) for x in range(4)]
    step = step or optim.make_train_step(loss_fn, tx)
    updater = FunctionalUpdater(SerialIterator(data, 2), step, params, tx.init(params), **updater_options)
    return Trainer(updater, (4, "iteration"), out=str(tmp_path))


def test_observe_lr_with_a_functional_updater_records_the_rate_each_update_used(tmp_path):
    from fnet import optim

    schedule = optim.schedules.exponential(0.1, 0.5)
    tx = optim.chain(optim.WeightDecay(1e-4), optim.MomentumSGD(lr=schedule))
    trainer = _functional_trainer(tmp_path, tx)
    lrs = []
    trainer.extend(observe_lr(), trigger=(1, "iteration"), call_before_training=True)
    trainer.extend(lambda t: lrs.append(t.observation["lr"]), trigger=(1, "iteration"), name="keep")
    trainer.run()
    assert lrs == [schedule(0), schedule(1), schedule(2), schedule(3)]

    adam = _functional_trainer(tmp_path, optim.Adam(alpha=0.25))
    adam.extend(observe_lr("main", "alpha"), trigger=(1, "iteration"))
    adam.run()
    assert adam.observation["alpha"] == 0.25


def test_observe_lr_with_a_functional_updater_errors(tmp_path):
    import pytest

    from fnet import optim
    from fnet.errors import InvalidInputError

    trainer = _functional_trainer(tmp_path, optim.AdaDelta())
    with pytest.raises(
        InvalidInputError, match=r"(?s)the optimizer AdaDelta\(rho=0.95, eps=1e-06\) has no learning"
    ):
        observe_lr()(trainer)
    with pytest.raises(InvalidInputError, match="has one optimizer, 'main', got optimizer_name='gen'"):
        observe_lr("gen")(trainer)
    tx = optim.SGD(lr=0.5)
    hand_written = _functional_trainer(tmp_path, tx, step=lambda p, s, o, b: (p, s, o, {}))
    with pytest.raises(
        InvalidInputError, match="(?s)does not know its step's optimizer.*optimizer=optimizer"
    ):
        observe_lr()(hand_written)
    told = _functional_trainer(tmp_path, tx, step=lambda p, s, o, b: (p, s, o, {}), optimizer=tx)
    observe_lr()(told)
    assert told.observation == {"lr": 0.5}
