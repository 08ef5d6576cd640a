"""fnet.distributed on this machine's MPI: the packed allreduce, and data-parallel scaling.

1. Allreduce of a ResNet-50-sized pytree (161 float32 leaves, 25.6 M values) on 2 ranks:
   fnet's packed ``Communicator.allreduce`` (new arrays; and ``in_place=True``) against the floor,
   one raw mpi4py ``Allreduce`` of a single 25.6 M buffer, and the naive per-leaf loop (one
   ``Allreduce`` per leaf). Rounds alternate the four; medians over ``--repeat`` rounds.
2. Scaling: the time of one data-parallel step of the 784-1000-1000-10 MLP
   (``distributed.make_train_step``, Adam) at the same per-rank batch on 1 rank and on 2 ranks;
   the efficiency is t(1) / t(2) (1.0: perfect weak scaling).

Not a test: run it by hand (it launches itself under the venv's mpiexec)::

    python benchmarks/distributed_allreduce.py [--repeat 10] [--batch 100] [--steps 20]

With 2 ranks on 2 cores, the ranks share the cores with BLAS threads:
``OPENBLAS_NUM_THREADS=1`` gives steadier numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy

TOTAL = 25_600_000
LEAVES = 161


def resnet50_like_tree() -> dict:
    """161 float32 leaves summing to 25.6 M values, sizes spread like a convnet's (a few big
    kernels, many small batch-norm vectors)."""
    rng = numpy.random.RandomState(0)
    weights = rng.lognormal(mean=0.0, sigma=2.0, size=LEAVES)
    sizes = numpy.maximum((weights / weights.sum() * TOTAL).astype(int), 64)
    sizes[numpy.argmax(sizes)] += TOTAL - sizes.sum()
    return {f"layer{i:03d}": numpy.full(int(n), 1.0, numpy.float32) for i, n in enumerate(sizes)}


def bench_allreduce(repeat: int) -> None:
    from mpi4py import MPI

    from fnet.distributed import Communicator

    comm = Communicator()
    raw = comm.mpi_comm
    tree = resnet50_like_tree()
    flat = numpy.ones(TOTAL, numpy.float32)
    flat_out = numpy.empty_like(flat)

    def packed():
        comm.allreduce(tree)

    def packed_in_place():
        comm.allreduce(tree, in_place=True)

    def floor():
        raw.Allreduce(flat, flat_out, op=MPI.SUM)

    def per_leaf():
        for leaf in tree.values():
            raw.Allreduce(MPI.IN_PLACE, leaf, op=MPI.SUM)

    cases = {
        "raw mpi4py Allreduce, one buffer": floor,
        "fnet packed": packed,
        "fnet packed, in place": packed_in_place,
        "per-leaf loop": per_leaf,
    }
    times: dict = {name: [] for name in cases}
    for fn in cases.values():  # warm-up: buffers allocated, pages touched
        fn()
    for _ in range(repeat):
        for name, fn in cases.items():
            raw.Barrier()
            start = time.perf_counter()
            fn()
            raw.Barrier()
            times[name].append(time.perf_counter() - start)
    if comm.rank == 0:
        base = statistics.median(times["raw mpi4py Allreduce, one buffer"])
        print(
            f"allreduce of {LEAVES} float32 leaves, {TOTAL / 1e6:.1f} M values, on {comm.size} ranks "
            f"(median of {repeat})"
        )
        for name, t in times.items():
            print(f"  {name:34s} {statistics.median(t) * 1e3:8.1f} ms   x{statistics.median(t) / base:.2f}")


def bench_step(batch: int, steps: int) -> None:
    import fnet
    from fnet import distributed, nn, optim
    from fnet import functions as F

    comm = distributed.Communicator()
    layers = [nn.Linear(784, 1000), nn.Linear(1000, 1000), nn.Linear(1000, 10)]
    keys = fnet.random.split(fnet.random.key(0), 3)
    params = comm.bcast({f"l{i}": layer.init(k) for i, (layer, k) in enumerate(zip(layers, keys))})

    def loss_fn(params, state, data):
        x, t = data
        h = F.relu(layers[0](params["l0"], x))
        h = F.relu(layers[1](params["l1"], h))
        return F.softmax_cross_entropy(layers[2](params["l2"], h), t), (state, {})

    optimizer = optim.Adam()
    step = distributed.make_train_step(loss_fn, optimizer, comm)
    state = optimizer.init(params)
    rng = numpy.random.RandomState(comm.rank)
    data = (rng.rand(batch, 784).astype(numpy.float32), rng.randint(0, 10, batch).astype(numpy.int32))
    params, _, state, _ = step(params, None, state, data)  # warm-up
    comm.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        params, _, state, _ = step(params, None, state, data)
    comm.barrier()
    if comm.rank == 0:
        print(f"STEP {comm.size} {(time.perf_counter() - start) / steps * 1e3:.3f}", flush=True)


def _launch(n: int, args: list) -> str:
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [mpiexec, "-n", str(n), sys.executable, __file__, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--batch", type=int, default=100, help="examples per rank per step")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--part", choices=["allreduce", "step"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part == "allreduce":
        return bench_allreduce(args.repeat)
    if args.part == "step":
        return bench_step(args.batch, args.steps)
    print(_launch(2, ["--part", "allreduce", "--repeat", str(args.repeat)]), end="")
    times = {}
    for n in (1, 2):
        out = _launch(n, ["--part", "step", "--batch", str(args.batch), "--steps", str(args.steps)])
        times[n] = float(out.split()[-1])
    print(
        f"data-parallel MLP step, batch {args.batch} per rank: 1 rank {times[1]:.1f} ms, "
        f"2 ranks {times[2]:.1f} ms; scaling efficiency t1/t2 = {times[1] / times[2]:.2f}"
    )


if __name__ == "__main__":
    main()
