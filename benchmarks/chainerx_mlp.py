"""Per-step time of an MLP training step written with ChainerX's routines on fnet.compat.chainerx,
against the same step in pure fnet, interleaved in one process: the cost of the ChainerX array
type (its wrapping, its per-graph nodes, its dtype rules) over fnet's tape.

The step: a 784-U-U-10 MLP with relu on a batch of 100 (synthetic, seeded), softmax cross
entropy (mean), gradients of all weights and biases, and SGD (lr 0.01) in place on the
parameters' data. ChainerX: ``require_grad`` parameters, ``chainerx.linear``/``relu``/
``softmax_cross_entropy``, ``loss.backward()``, then ``p -= lr * p.grad`` on the grad-stopped
data. fnet: ``fnet.value_and_grad`` of the same function in ``fnet.functions``.

    python benchmarks/chainerx_mlp.py [--units 1000] [--rounds 7] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20, help="steps per timed batch")
    parser.add_argument("--threads", default="1", help="BLAS threads, or 'default'")
    return parser.parse_args()


def main():
    args = _args()
    if args.threads != "default":
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = args.threads
    import numpy

    import fnet
    import fnet.compat.chainerx as chx
    import fnet.functions as F

    rng = numpy.random.default_rng(0)
    sizes = [784, args.units, args.units, 10]
    weights = {}
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        weights[f"W{i}"] = (rng.standard_normal((n_out, n_in)) / numpy.sqrt(n_in)).astype(numpy.float32)
        weights[f"b{i}"] = numpy.zeros(n_out, numpy.float32)
    x = rng.standard_normal((args.batch, 784)).astype(numpy.float32)
    t = rng.integers(0, 10, args.batch).astype(numpy.int32)
    lr = numpy.float32(0.01)
    layers = len(sizes) - 1

    def fnet_loss(p):
        h = x
        for i in range(layers):
            h = F.linear(h, p[f"W{i}"], p[f"b{i}"])
            if i < layers - 1:
                h = F.relu(h)
        return F.softmax_cross_entropy(h, t)

    fnet_params = {k: v.copy() for k, v in weights.items()}
    value_and_grad = fnet.value_and_grad(fnet_loss)

    def fnet_step():
        loss, grads = value_and_grad(fnet_params)
        for k, g in grads.items():
            fnet_params[k] -= lr * g
        return float(loss)

    chx_params = {k: chx.array(v).require_grad() for k, v in weights.items()}
    cx, ct = chx.array(x), chx.array(t)

    def chx_step():
        h = cx
        for i in range(layers):
            h = chx.linear(h, chx_params[f"W{i}"], chx_params[f"b{i}"])
            if i < layers - 1:
                h = chx.relu(h)
        loss = chx.softmax_cross_entropy(h, ct).mean()
        loss.backward()
        for p in chx_params.values():
            data = p.as_grad_stopped()  # shares p's data
            data -= lr * p.grad
            p.cleargrad()
        return float(loss)

    first = fnet_step(), chx_step()
    second = fnet_step(), chx_step()
    times: dict = {"fnet": [], "chainerx": []}
    for _ in range(args.rounds):
        for name, step in (("fnet", fnet_step), ("chainerx", chx_step)):
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            times[name].append((time.perf_counter() - start) / args.steps * 1e3)
    fnet_ms, chx_ms = statistics.median(times["fnet"]), statistics.median(times["chainerx"])
    print(f"MLP 784-{args.units}-{args.units}-10, batch {args.batch}, threads {args.threads}")
    print(f"losses of the first two steps: fnet {first[0]:.6f} {second[0]:.6f};", end=" ")
    print(f"chainerx {first[1]:.6f} {second[1]:.6f}")
    print(f"fnet      {fnet_ms:8.3f} ms/step (min {min(times['fnet']):.3f})")
    print(f"chainerx  {chx_ms:8.3f} ms/step (min {min(times['chainerx']):.3f})")
    print(f"chainerx/fnet {chx_ms / fnet_ms:.2f}x")


if __name__ == "__main__":
    main()
