"""ProgressBar: its lines on a terminal (layout checked against Chainer in test_golden.py), its
plain lines elsewhere, options and errors."""

from __future__ import annotations

import io

import pytest

from fnet.training.extensions import ProgressBar
from fnet.training.triggers import IntervalTrigger, ManualScheduleTrigger


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


def _drawings(out):
    return [part for part in out.getvalue().split("\033[J") if part]


def test_iteration_length_bar_length_and_out_are_honoured(make_trainer):
    trainer = make_trainer(iters_per_epoch=4)
    out = Terminal()
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
    out = Terminal()
    trainer.updater.iteration = 10
    ProgressBar(update_interval=1, out=out)(trainer)
    assert "10 iter, 2 epoch / 4 epochs" in out.getvalue()
    assert "total [" + "#" * 25 + "." * 25 + "] 50.00%" in out.getvalue()


def test_a_stop_trigger_without_length_needs_training_length(make_trainer):
    trainer = make_trainer(stop_trigger=ManualScheduleTrigger([3], "epoch"))
    trainer.updater.iteration = 100
    with pytest.raises(TypeError, match=r"training_length=\(20, 'epoch'\)"):
        ProgressBar(out=Terminal())(trainer)


def test_bad_arguments():
    with pytest.raises(ValueError, match="update_interval must be a positive int"):
        ProgressBar(update_interval=0)
    with pytest.raises(ValueError, match="log_interval must be a positive int, got 2.5"):
        ProgressBar(log_interval=2.5)
    trainer_length = ProgressBar(training_length=(3, "sweeps"), update_interval=1, out=Terminal())

    class Trainer:
        class updater:
            iteration, epoch, epoch_detail = 1, 0, 0.1

    with pytest.raises(ValueError, match="'epoch' or 'iteration', got 'sweeps'"):
        trainer_length(Trainer())


def test_a_stream_that_is_not_a_terminal_gets_plain_lines_at_a_lower_rate(make_trainer):
    """Redirected output (a file, a pipe, a CI log): no ANSI escape codes, one line every
    log_interval iterations (10 * update_interval by default)."""
    trainer = make_trainer(iters_per_epoch=10)
    out = io.StringIO()  # isatty() is False
    bar = ProgressBar(training_length=(4, "epoch"), update_interval=2, out=out)
    for i in range(1, 41):
        trainer.updater.iteration = i
        bar(trainer)
    bar.finalize()
    text = out.getvalue()
    assert "\033" not in text
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines] == ["iteration 20, epoch 2", "iteration 40, epoch 4"]
    assert lines[0].startswith("iteration 20, epoch 2: 50.00% of 4 epochs, ")
    assert lines[1].endswith(" iters/sec, estimated time to finish: 0:00:00")

    trainer.updater.iteration = 0
    custom = io.StringIO()
    bar = ProgressBar(training_length=(6, "iteration"), update_interval=1, log_interval=3, out=custom)
    for i in range(1, 6):
        trainer.updater.iteration = i
        bar(trainer)
    bar.finalize()  # the last iteration gets its line when the training ends
    assert [line.split(":")[0] for line in custom.getvalue().splitlines()] == [
        "iteration 3, epoch 0",
        "iteration 5, epoch 0",
    ]


def test_terminal_detection():
    from fnet.training.extensions._util import is_terminal

    class Closed(io.StringIO):
        def isatty(self):
            raise ValueError("I/O operation on closed file")

    assert is_terminal(Terminal()) and not is_terminal(io.StringIO())
    assert not is_terminal(object()) and not is_terminal(Closed())
