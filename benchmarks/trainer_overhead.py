"""The cost of the training machinery: one epoch of the 784-1000-1000-10 MLP through
``Trainer`` + ``StandardUpdater``, against the same update steps in a bare loop.

Both sides train a Chainer-style ``Classifier`` (``fnet.compat``) with MomentumSGD on the same
MNIST-shaped random data, reading batches with a ``SerialIterator`` and ``concat_examples``:

- bare: ``for each batch: optimizer.update(model, *concat_examples(next(iterator)))``
- trainer: ``Trainer(StandardUpdater(iterator, optimizer), (1, 'epoch')).run()``, without
  extensions, or (``--extensions``) with LogReport and PrintReport as in the MNIST example.

The two are run alternately (ABBA...) ``--repeat`` times (after one warm-up epoch each); the medians and
their ratio are printed, with the cost of the loop itself (a Trainer around an updater that
does nothing). Not a test: run it by hand::

    python benchmarks/trainer_overhead.py [--examples 10000] [--batch 100] [--repeat 5] [--extensions]

On a busy machine, multithreaded BLAS makes the time of an update vary by tens of percent
from one epoch to the next; ``OPENBLAS_NUM_THREADS=1`` (or ``OMP_NUM_THREADS=1``) and more
repeats give a stable ratio.
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time

import numpy

import fnet.compat as chainer
import fnet.compat.training  # noqa: F401 - chainer.training
from fnet.compat import functions as F
from fnet.compat import links as L
from fnet.compat import optimizers
from fnet.data.convert import concat_examples
from fnet.data.iterators import SerialIterator


class MLP(chainer.Chain):
    def __init__(self, n_units: int = 1000, n_out: int = 10):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, n_units)
            self.l2 = L.Linear(n_units, n_units)
            self.l3 = L.Linear(n_units, n_out)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def _setup(dataset, batch: int):
    numpy.random.seed(0)
    model = L.Classifier(MLP())
    optimizer = optimizers.MomentumSGD(lr=0.01)
    optimizer.setup(model)
    return model, optimizer, SerialIterator(dataset, batch, shuffle=True)


def bare_epoch(dataset, batch: int) -> float:
    model, optimizer, iterator = _setup(dataset, batch)
    start = time.perf_counter()
    while iterator.epoch == 0:
        x, t = concat_examples(next(iterator))
        optimizer.update(model, x, t)
    return time.perf_counter() - start


def trainer_epoch(dataset, batch: int, with_extensions: bool) -> float:
    model, optimizer, iterator = _setup(dataset, batch)
    updater = chainer.training.updaters.StandardUpdater(iterator, optimizer)
    trainer = chainer.training.Trainer(updater, (1, "epoch"), out=tempfile.mkdtemp())
    if with_extensions:
        from fnet.compat.training import extensions

        trainer.extend(extensions.LogReport())
        trainer.extend(
            extensions.PrintReport(["epoch", "main/loss", "main/accuracy", "elapsed_time"], out=io.StringIO())
        )
    start = time.perf_counter()
    trainer.run()
    return time.perf_counter() - start


class _NoOpUpdater:
    """An updater whose step does nothing: what remains is the loop's own cost."""

    iteration = 0
    epoch_detail = previous_epoch_detail = 0.0

    def update(self):
        self.iteration += 1

    def get_all_optimizers(self):
        return {}

    def finalize(self):
        pass


def loop_cost(iterations: int = 20000) -> float:
    """Seconds per iteration of the Trainer loop itself (observation, reporter scope, stop trigger)."""
    trainer = chainer.training.Trainer(_NoOpUpdater(), (iterations, "iteration"), out=tempfile.mkdtemp())
    start = time.perf_counter()
    trainer.run()
    return (time.perf_counter() - start) / iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10000, help="examples in the epoch")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--extensions", action="store_true", help="add LogReport and PrintReport")
    args = parser.parse_args()
    rng = numpy.random.RandomState(1)
    x = rng.rand(args.examples, 784).astype(numpy.float32)
    t = rng.randint(0, 10, args.examples).astype(numpy.int32)
    dataset = list(zip(x, t))
    bare_epoch(dataset, args.batch)
    trainer_epoch(dataset, args.batch, args.extensions)
    bare, trained = [], []
    for i in range(args.repeat):  # in the order ABBA ABBA...: a drift of the machine's speed cancels
        runs = [(bare, lambda: bare_epoch(dataset, args.batch))]
        runs.append((trained, lambda: trainer_epoch(dataset, args.batch, args.extensions)))
        for times, run in runs if i % 2 == 0 else runs[::-1]:
            times.append(run())
    b, tr = statistics.median(bare), statistics.median(trained)
    steps = -(-args.examples // args.batch)
    print(f"epoch of {args.examples} examples, batch {args.batch} ({steps} updates), median of {args.repeat}")
    print(f"bare loop          {b:8.3f} s   {1000 * b / steps:7.2f} ms/update")
    label = "trainer+extensions" if args.extensions else "trainer"
    print(f"{label:<18} {tr:8.3f} s   {1000 * tr / steps:7.2f} ms/update")
    print(f"ratio trainer/bare {tr / b:8.3f}   (overhead {100 * (tr / b - 1):+.1f}%)")
    cost = loop_cost()
    share = 100 * cost * steps / b
    print(f"the loop's own cost: {1e6 * cost:.1f} us/iteration ({share:.3f}% of the bare epoch)")


if __name__ == "__main__":
    main()
