"""fnet.training.modes: the evaluation and debug modes that a layer above registers."""

from __future__ import annotations

import contextlib

import numpy

from fnet.data.iterators import SerialIterator
from fnet.training import Reporter, modes
from fnet.training.extensions import Evaluator


def _evaluate(eval_func):
    data = [(numpy.float32(x),) for x in range(3)]
    ext = Evaluator(SerialIterator(data, 2, repeat=False, shuffle=False), eval_func)
    ext.name = "validation"
    with Reporter().scope({}):
        return ext()


def test_a_registered_evaluation_mode_is_on_during_evaluation_only():
    events = []

    @contextlib.contextmanager
    def quiet():
        events.append("enter")
        yield
        events.append("exit")

    def metrics(x):
        events.append("batch")
        return {"n": float(len(x))}

    modes.register_evaluation_mode(quiet)
    modes.register_evaluation_mode(quiet)  # registered once
    try:
        result = _evaluate(metrics)
    finally:
        modes.unregister_evaluation_mode(quiet)
    assert events == ["enter", "batch", "batch", "exit"]
    assert result["validation/main/n"] == 1.5
    events.clear()
    _evaluate(metrics)
    assert events == ["batch", "batch"]


def test_debug_mode_is_on_while_a_registered_check_says_so():
    switch = {"on": False}

    def check():
        return switch["on"]

    modes.register_debug_check(check)
    try:
        assert not modes.is_debug()
        switch["on"] = True
        assert modes.is_debug()
    finally:
        modes.unregister_debug_check(check)
    assert not modes.is_debug()
