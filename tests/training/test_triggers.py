"""Triggers: when they fire and what they save, against Chainer 7.8.1 (``tests/golden/make_training.py``),
exact resumes from their serialized state, and their errors."""

from __future__ import annotations

import json
import warnings

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat.serializers import DictionarySerializer, NpzDeserializer
from fnet.training import triggers
from fnet.training.triggers import (
    BestValueTrigger,
    EarlyStoppingTrigger,
    IntervalTrigger,
    ManualScheduleTrigger,
    MaxValueTrigger,
    MinValueTrigger,
    OnceTrigger,
    TimeTrigger,
    get_trigger,
)

from .._scripts import GOLDEN, load_golden

make = load_golden("make_training")
GOLDEN_RUNS = json.loads((GOLDEN / "training.json").read_text())["triggers"]


@pytest.fixture(scope="module")
def runs():
    return make.trigger_runs(chainer)


@pytest.mark.parametrize("name", sorted(GOLDEN_RUNS))
def test_firing_and_state_match_chainer(runs, name):
    got, want = runs[name], GOLDEN_RUNS[name]
    assert got["fired"] == want["fired"]
    assert got["finished"] == want["finished"]
    if name.startswith("early"):  # Chainer keeps no early-stopping state (fnet does: see below)
        assert want["state"] is None
        return
    assert got["state"] == pytest.approx(want["state"])


def _save(trigger) -> dict:
    serializer = DictionarySerializer()
    trigger.serialize(serializer)
    return dict(serializer.target)


@pytest.mark.parametrize("name", sorted(GOLDEN_RUNS))
def test_resume_from_serialized_state_fires_as_uninterrupted(name):
    factory = make._triggers(chainer)[name]
    trainer, trigger = make.FakeTrainer(), factory()
    fired = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(make.N_ITERATIONS):
            trainer.step()
            fired.append(trigger(trainer))
            if trainer.updater.iteration == make.SNAPSHOT_AT:
                saved = _save(trigger)
                trigger = factory()
                trigger.serialize(NpzDeserializer(saved))
    expected = GOLDEN_RUNS[name]["fired"]
    if name == "once_on_resume":  # fires once more, at the first call after the resume
        expected = list(expected)
        expected[make.SNAPSHOT_AT] = True
    assert fired == expected


def _trainer_at(iteration, epoch_detail=0.0, previous=0.0, observation=None):
    trainer = make.FakeTrainer()
    trainer.updater.iteration = iteration
    trainer.updater.epoch_detail = epoch_detail
    trainer.updater.previous_epoch_detail = previous
    trainer.observation = observation or {}
    return trainer


def test_get_trigger():
    def fn(trainer):
        return True

    assert get_trigger(fn) is fn
    never = get_trigger(None)
    assert not never(None)
    interval = get_trigger((2, "epoch"))
    assert isinstance(interval, IntervalTrigger)
    assert (interval.period, interval.unit) == (2, "epoch")
    assert get_trigger([5, "iteration"]).get_training_length() == (5, "iteration")
    with pytest.raises(TypeError, match=r"get_trigger: expected a \(period, unit\) pair.*got 5"):
        get_trigger(5)
    assert triggers.get_trigger is get_trigger


def test_interval_trigger_errors_and_str():
    with pytest.raises(
        ValueError, match="IntervalTrigger: the trigger unit must be either 'epoch' or 'iteration'"
    ):
        IntervalTrigger(1, "epochs")
    with pytest.raises(ValueError, match="IntervalTrigger: period must be a positive number, got 0"):
        IntervalTrigger(0, "iteration")
    with pytest.raises(ValueError, match="period must be a positive number"):
        IntervalTrigger("1", "epoch")
    assert str(IntervalTrigger(2, "epoch")) == "IntervalTrigger(2, 'epoch')"
    assert IntervalTrigger(numpy.int64(3), "iteration").period == 3


def test_interval_trigger_count():
    trigger = IntervalTrigger(0.5, "epoch")
    trigger(_trainer_at(3, 1.2, 0.9))
    assert trigger.count == 2


def test_missing_state_warns_and_guesses():
    trigger = IntervalTrigger(3, "iteration")
    with pytest.warns(UserWarning) as record:
        trigger.serialize(NpzDeserializer({}))
    messages = " ".join(str(w.message) for w in record)
    assert "no previous_iteration" in messages and "no previous_epoch_detail" in messages
    # the previous iteration is guessed as the current one minus one
    assert trigger(_trainer_at(6))
    assert not trigger(_trainer_at(7))

    epochs = IntervalTrigger(1, "epoch")
    with pytest.warns(UserWarning):
        epochs.serialize(NpzDeserializer({}))
    assert epochs(_trainer_at(4, 1.2, 0.9))  # the updater's previous_epoch_detail is used


def test_manual_schedule_trigger_missing_finished_is_decided_at_next_call():
    trigger = ManualScheduleTrigger([2, 4], "iteration")
    state = _save(trigger)
    del state["finished"]
    with pytest.warns(UserWarning, match="no 'finished' flag"):
        trigger.serialize(NpzDeserializer(state))
    assert not trigger.finished
    trigger(_trainer_at(9))
    assert trigger.finished


def test_manual_schedule_trigger_errors():
    with pytest.raises(ValueError, match="ManualScheduleTrigger: the trigger unit must be"):
        ManualScheduleTrigger([1], "epochs")
    with pytest.raises(ValueError, match="ManualScheduleTrigger: points is empty"):
        ManualScheduleTrigger([], "epoch")
    assert ManualScheduleTrigger((1, 2), "epoch").points == [1, 2]


def test_best_value_trigger_custom_compare_and_missing_key():
    trigger = BestValueTrigger("v", lambda best, new: abs(new) < abs(best), (1, "iteration"))
    fired = [trigger(_trainer_at(i, observation={"v": v})) for i, v in enumerate([3.0, -1.0, 2.0, 0.5], 1)]
    assert fired == [True, True, False, True]
    missing = MaxValueTrigger("validation/main/accuracy", (1, "iteration"))
    with pytest.raises(KeyError, match="no value was reported as 'validation/main/accuracy'"):
        missing(_trainer_at(1, observation={"main/loss": 1.0}))


def test_best_value_trigger_without_best_value_round_trips_through_npz(tmp_path):
    trigger = MinValueTrigger("main/loss", (2, "iteration"))
    trigger(_trainer_at(1, observation={"main/loss": 1.0}))  # accumulated, no best value yet
    path = tmp_path / "trigger.npz"
    chainer.serializers.save_npz(path, trigger)
    loaded = MinValueTrigger("main/loss", (2, "iteration"))
    chainer.serializers.load_npz(path, loaded)
    assert loaded._best_value is None
    assert loaded(_trainer_at(2, observation={"main/loss": 3.0}))
    assert loaded._best_value == pytest.approx(2.0)  # the mean over both iterations


def test_early_stopping_options(caplog, capsys):
    caplog.set_level("DEBUG", logger="fnet.training.triggers.early_stopping")
    trigger = EarlyStoppingTrigger(patients=5, monitor="validation/main/accuracy", verbose=True)
    assert trigger.patience == 5
    assert trigger.best == float("-inf")
    EarlyStoppingTrigger()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("INFO", "early stopping: operator is greater"),
        ("DEBUG", "early stopping: operator is less"),  # verbose=False: at DEBUG
    ]
    assert capsys.readouterr() == ("", "")  # messages, not prints
    assert EarlyStoppingTrigger().patience == 3
    assert EarlyStoppingTrigger(mode="max").best == float("-inf")
    assert EarlyStoppingTrigger(max_trigger=(7, "iteration")).get_training_length() == (7, "iteration")
    with pytest.raises(TypeError, match="both patience and patients were given"):
        EarlyStoppingTrigger(patience=2, patients=3)
    with pytest.raises(ValueError, match="mode must be one of"):
        EarlyStoppingTrigger(mode="maximum")


def test_early_stopping_warns_when_the_monitored_value_is_missing():
    trigger = EarlyStoppingTrigger(check_trigger=(1, "iteration"), monitor="main/accuracy")
    with pytest.warns(UserWarning, match="main/accuracy is not in observation"):
        assert not trigger(_trainer_at(1, observation={"main/loss": 0.3}))


def test_early_stopping_verbose_stop(caplog):
    caplog.set_level("INFO", logger="fnet.training.triggers.early_stopping")
    trigger = EarlyStoppingTrigger(check_trigger=(1, "iteration"), patience=1, verbose=True)
    trainer = _trainer_at(1, observation={"main/loss": 1.0})
    trainer.updater.epoch = 4
    assert not trigger(trainer)
    trainer.updater.iteration = 2
    assert trigger(trainer)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records][-1] == (
        "fnet.training.triggers.early_stopping",
        "INFO",
        "Epoch 4: early stopping",
    )


def test_early_stopping_state_is_saved_and_a_chainer_snapshot_without_it_warns():
    trigger = EarlyStoppingTrigger(check_trigger=(1, "iteration"), patience=3)
    for i, loss in enumerate([1.0, 2.0, 3.0], 1):
        trigger(_trainer_at(i, observation={"main/loss": loss}))
    state = _save(trigger)
    assert state["count"] == 2 and state["best"] == 1.0
    assert {
        "interval_trigger/previous_iteration",
        "max_trigger/previous_epoch_detail",
        "summary/_names",
    } <= set(state)
    fresh = EarlyStoppingTrigger(check_trigger=(1, "iteration"), patience=3)
    with pytest.warns(UserWarning, match="holds no early-stopping state"):
        fresh.serialize(NpzDeserializer({}))
    assert fresh.count == 0


def test_once_trigger_resume_flags():
    trigger = OnceTrigger()
    assert not trigger.finished
    assert trigger(None)
    assert trigger.finished
    state = _save(trigger)
    resumed = OnceTrigger(call_on_resume=True)
    resumed.serialize(NpzDeserializer(state))
    assert not resumed.finished and resumed(None) and not resumed(None)
    old = OnceTrigger()
    with pytest.warns(UserWarning, match="no _flag_first"):
        old.serialize(NpzDeserializer({}))
    assert old.finished


def test_time_trigger_errors():
    with pytest.raises(ValueError, match="TimeTrigger: period must be a positive number of seconds"):
        TimeTrigger(0)
