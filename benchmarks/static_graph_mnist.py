"""Per-iteration time of Chainer's static-graph MNIST model on fnet.compat, with and without
``@static_graph`` (``chainer.config.use_static_graph``), interleaved in one process.

The model is the ``MLP`` of Chainer 7.8.1's ``examples/static_graph_optimizations/mnist/
train_mnist.py``, loaded from a Chainer checkout (fnet does not ship Chainer's code); a step is
the example's: ``Classifier`` loss, ``backward``, Adam ``update``, on a batch of 100 synthetic
784-pixel images.

    python benchmarks/static_graph_mnist.py --chainer-checkout /path/to/chainer [--units 1000]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import runpy
import statistics
import sys
import time

import numpy

import fnet.compat as chainer
import fnet.compat.links as L


def _model_class(checkout: str):
    script = pathlib.Path(checkout) / "examples" / "static_graph_optimizations" / "mnist" / "train_mnist.py"
    if not script.is_file():
        sys.exit(
            f"static_graph_mnist: {script} not found; --chainer-checkout must be a Chainer 7.8.1 checkout"
        )
    chainer.install_alias()
    return runpy.run_path(str(script), run_name="static_graph_example")["MLP"]


def _setup(mlp, units: int, static: bool):
    model = L.Classifier(mlp(units, 10))
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    return model, optimizer, static


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chainer-checkout", default=os.environ.get("FNET_CHAINER_CHECKOUT"))
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=20, help="steps per timed round")
    args = parser.parse_args(argv)
    if not args.chainer_checkout:
        sys.exit("static_graph_mnist: pass --chainer-checkout (or set FNET_CHAINER_CHECKOUT)")
    mlp = _model_class(args.chainer_checkout)
    rng = numpy.random.default_rng(0)
    x = rng.random((args.batch, 784), dtype=numpy.float32)
    t = rng.integers(0, 10, args.batch).astype(numpy.int32)
    runs = {"static_graph": _setup(mlp, args.units, True), "define_by_run": _setup(mlp, args.units, False)}
    times: dict = {name: [] for name in runs}
    cpu: dict = {name: [] for name in runs}

    def step(model, optimizer, static):
        with chainer.using_config("use_static_graph", static):
            optimizer.update(model, x, t)

    for run in runs.values():  # warm-up: sizes the lazy layers, records the schedule
        for _ in range(3):
            step(*run)
    for _ in range(args.rounds):
        for name, run in runs.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(args.steps):
                step(*run)
            times[name].append((time.perf_counter() - start) / args.steps * 1e3)
            cpu[name].append((time.process_time() - start_cpu) / args.steps * 1e3)
    for name, ms in times.items():
        print(
            f"{name:14s} min {min(ms):8.3f} ms/iter   median {statistics.median(ms):8.3f} ms/iter   "
            f"CPU time median {statistics.median(cpu[name]):8.3f} ms/iter"
        )
    ratio = statistics.median(times["static_graph"]) / statistics.median(times["define_by_run"])
    print(f"static_graph / define_by_run (medians): {ratio:.3f}x")
    cpu_ratio = statistics.median(cpu["static_graph"]) / statistics.median(cpu["define_by_run"])
    print(f"static_graph / define_by_run (CPU time medians): {cpu_ratio:.3f}x")


if __name__ == "__main__":
    main()
