"""ProgressBar: its lines (layout checked against Chainer in test_golden.py), options and errors."""

from __future__ import annotations

import io

import pytest

from fnet.training.extensions import ProgressBar
from fnet.training.triggers import IntervalTrigger, ManualScheduleTrigger


def _drawings(out):
    return [part for part in out.getvalue().split("\033[J") if part]


def test_iteration_length_bar_length_and_out_are_honoured(make_trainer):
    trainer = make_trainer(iters_per_epoch=4)
    out = io.StringIO()
    bar = ProgressBar(training_length=(10, "iteration"), update_interval=5, bar_length=10, out=out)
    for i in (1, 5, 7, 10):
        trainer.updater.iteration = i
        bar(trainer)
    first, second = _drawings(out)
    assert first.splitlines()[:3] == [
        "     total [#####.....] 50.00%",
        "this epoch [##........] 25.00%",
        "         5 iter, 1 epoch / 10 iterations",
    ]
    assert first.endswith("\033[4A")
    assert second.splitlines()[0] == "     total [##########] 100.00%"
    speed = second.splitlines()[3]
    assert speed.endswith(" iters/sec. Estimated time to finish: 0:00:00.")
    assert float(speed.split()[0]) > 0
    bar.finalize()
    assert out.getvalue().endswith("\033[J")


def test_length_from_the_stop_trigger(make_trainer):
    trainer = make_trainer(stop_trigger=IntervalTrigger(4, "epoch"))
    out = io.StringIO()
    trainer.updater.iteration = 10
    ProgressBar(update_interval=1, out=out)(trainer)
    assert "10 iter, 2 epoch / 4 epochs" in out.getvalue()
    assert "total [" + "#" * 25 + "." * 25 + "] 50.00%" in out.getvalue()


def test_a_stop_trigger_without_length_needs_training_length(make_trainer):
    trainer = make_trainer(stop_trigger=ManualScheduleTrigger([3], "epoch"))
    trainer.updater.iteration = 100
    with pytest.raises(TypeError, match=r"training_length=\(20, 'epoch'\)"):
        ProgressBar(out=io.StringIO())(trainer)


def test_bad_arguments():
    with pytest.raises(ValueError, match="update_interval must be a positive int"):
        ProgressBar(update_interval=0)
    trainer_length = ProgressBar(training_length=(3, "sweeps"), update_interval=1, out=io.StringIO())

    class Trainer:
        class updater:
            iteration, epoch, epoch_detail = 1, 0, 0.1

    with pytest.raises(ValueError, match="'epoch' or 'iteration', got 'sweeps'"):
        trainer_length(Trainer())
