"""The shift extensions: each follows its fnet.optim schedule (values checked against Chainer in
test_golden.py), sets a compat optimizer's hyperparameter, and resumes exactly."""

from __future__ import annotations

import pytest

from fnet.compat import links as L
from fnet.compat import optimizers
from fnet.compat.serializers import DictionarySerializer, NpzDeserializer
from fnet.optim import schedules
from fnet.training import extensions as E

MAKERS = {
    "exponential": lambda: E.ExponentialShift("lr", 0.7, target=0.02),
    "inverse": lambda: E.InverseShift("lr", 0.3, 1.5),
    "linear": lambda: E.LinearShift("lr", (0.2, 0.01), (2, 9)),
    "multistep": lambda: E.MultistepShift("lr", 0.3, [2, 5, 5, 8], 0.2),
    "polynomial": lambda: E.PolynomialShift("lr", 0.9, 12),
    "step": lambda: E.StepShift("lr", 0.5, 3, init=0.4),
    "warmup": lambda: E.WarmupShift("lr", 0.01, 5, 0.3),
}


class Optimizer:
    lr = 0.1


def _values(trainer, ext, calls):
    values = []
    for _ in range(calls):
        trainer.updater.iteration += 1
        ext(trainer)
        values.append(trainer.updater.get_optimizer("main").lr)
    return values


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_resume_from_a_snapshot_goes_on_exactly(kind, make_trainer):
    straight = make_trainer(optimizers={"main": Optimizer()})
    ext = MAKERS[kind]()
    ext.initialize(straight)
    expected = _values(straight, ext, 12)

    first = make_trainer(optimizers={"main": Optimizer()})
    ext = MAKERS[kind]()
    ext.initialize(first)
    got = _values(first, ext, 5)
    saved = DictionarySerializer()
    ext.serialize(saved)

    resumed = make_trainer(optimizers={"main": Optimizer()})
    resumed.updater.iteration = 5
    ext = MAKERS[kind]()
    ext.serialize(NpzDeserializer(saved.target))
    ext.initialize(resumed)  # before training resumes: the value of step 5 is set again
    assert resumed.updater.get_optimizer("main").lr == pytest.approx(got[-1])
    got += _values(resumed, ext, 7)
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_snapshot_loaded_after_initialize_sets_its_value_at_once(kind, make_trainer):
    """What snapshot(autoload=True) does: it loads after the shifts (higher priority) are initialized."""
    first = make_trainer(optimizers={"main": Optimizer()})
    ext = MAKERS[kind]()
    ext.initialize(first)
    expected = _values(first, ext, 6)[-1]
    saved = DictionarySerializer()
    ext.serialize(saved)

    optimizer = Optimizer()
    ext = MAKERS[kind]()
    ext.initialize(make_trainer(optimizers={"main": optimizer}))
    ext.serialize(NpzDeserializer(saved.target))
    assert optimizer.lr == pytest.approx(expected, rel=1e-12)


def test_values_are_the_schedules(make_trainer):
    trainer = make_trainer(optimizers={"main": Optimizer()})
    ext = E.PolynomialShift("lr", 2.0, 6, init=1.0, target=0.1)
    ext.initialize(trainer)
    schedule = schedules.polynomial(1.0, 2.0, 6, 0.1)
    assert _values(trainer, ext, 8) == [schedule(t) for t in range(1, 9)]


def test_a_compat_optimizers_hyperparameter_changes():
    optimizer = optimizers.Adam(alpha=0.01).setup(L.Linear(2, 2))
    ext = E.ExponentialShift("alpha", 0.5, optimizer=optimizer)
    ext.initialize(None)
    ext(None)
    assert optimizer.alpha == 0.005 and optimizer.hyperparam.alpha == 0.005


def test_init_is_read_from_the_main_optimizer(make_trainer):
    optimizer = Optimizer()
    optimizer.lr = 0.8
    trainer = make_trainer(optimizers={"main": optimizer})
    ext = E.StepShift("lr", 0.5, 1)
    ext.initialize(trainer)
    assert _values(trainer, ext, 2) == [0.4, 0.2]


def test_warmup_leaves_the_attribute_alone_after_the_warmup(make_trainer):
    optimizer = Optimizer()
    trainer = make_trainer(optimizers={"main": optimizer})
    ext = E.WarmupShift("lr", None, 2, 1.0)
    ext.initialize(trainer)
    assert _values(trainer, ext, 2) == [0.55, 1.0]
    optimizer.lr = 7.0
    ext(trainer)
    assert optimizer.lr == 7.0


def test_multistep_and_warmup_serialize_chainers_keys(make_trainer):
    trainer = make_trainer(optimizers={"main": Optimizer()})
    for ext, keys in (
        (E.MultistepShift("lr", 0.1, [1], None), ["_current_step", "_t"]),
        (MAKERS["warmup"](), ["_t"]),
    ):
        ext.initialize(trainer)
        ext(trainer)
        saved = DictionarySerializer()
        ext.serialize(saved)
        assert sorted(saved.target) == keys


def test_negative_rates_are_refused_as_in_chainer():
    with pytest.raises(ValueError, match="ExponentialShift does not support negative rate"):
        E.ExponentialShift("lr", -0.5)
    with pytest.raises(ValueError, match="InverseShift does not support negative gamma"):
        E.InverseShift("lr", -1.0, 1.0)
