"""MultiprocessParallelUpdater when a worker process dies: the error names the worker, its pid and
the signal (or exit code), whether the worker was found dead when sent its job (no raw
BrokenPipeError) or died while computing (no "exit code None"); the updater still finalizes."""

from __future__ import annotations

import os
import re
import signal
import time
import warnings

import numpy
import pytest

from fnet.compat import links as L
from fnet.compat import optimizers
from fnet.data.iterators import SerialIterator
from fnet.training.updaters import MultiprocessParallelUpdater

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


def _dataset(value=0.5, n=4):
    return [(numpy.full(4, value, numpy.float32), numpy.int32(i % 3)) for i in range(n)]


class Doomed(L.Classifier):
    """Kills its own process on inputs whose first value is negative (only worker 1 gets them)."""

    def forward(self, x, t):
        if float(x[0, 0]) < 0:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().forward(x, t)


def _updater(worker_data):
    model = Doomed(L.Linear(4, 3))
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterators = [SerialIterator(_dataset(), 2), SerialIterator(worker_data, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the learning rate rescaled for the sum
        return MultiprocessParallelUpdater(iterators, optimizer, devices=["@numpy", "@numpy"])


def _report(updater) -> str:
    with pytest.raises(RuntimeError) as info:  # not a BrokenPipeError (an OSError)
        updater.update()
    return str(info.value)


def test_a_worker_killed_between_steps_is_named_with_its_signal():
    updater = _updater(_dataset())
    try:
        updater.update()  # forks the worker; one good step
        worker = updater._workers[0]
        os.kill(worker.pid, signal.SIGKILL)
        worker.join(timeout=10)
        text = _report(updater)
        assert f"worker 1 (pid {worker.pid}) was killed by signal 9 (SIGKILL)" in text
        assert "out-of-memory" in text and "finalize" in text
        assert updater.iteration == 1
    finally:
        updater.finalize()
    assert updater._workers == []


def test_a_worker_killed_while_computing_is_named_with_its_signal():
    updater = _updater(_dataset(value=-1.0))
    start = time.perf_counter()
    try:
        text = _report(updater)
    finally:
        updater.finalize()
    assert re.search(r"worker 1 \(pid \d+\) was killed by signal 9 \(SIGKILL\)", text)
    assert "exit code None" not in text
    assert time.perf_counter() - start < 10
