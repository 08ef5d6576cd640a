"""Train a pure-function MLP on scikit-learn's bundled handwritten digits (no network needed).

The model is a function of a params pytree; ``fnet.value_and_grad`` gives the loss and the
gradient tree, and a plain SGD step maps over both trees.

    python examples/digits_mlp.py [--epochs 20] [--smoke]
"""

from __future__ import annotations

import argparse
import time

import numpy

import fnet
import fnet.ops as fo


def init_params(key, sizes: list[int], dtype=numpy.float32) -> dict:
    """Layers ``l1, l2, ...`` with Chainer's layout (W is (out, in)) and LeCun-normal weights."""
    params = {}
    keys = fnet.random.split(key, len(sizes) - 1)
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        params[f"l{i + 1}"] = {
            "W": fnet.random.normal(keys[i], (n_out, n_in), dtype, stddev=(1.0 / n_in) ** 0.5),
            "b": numpy.zeros(n_out, dtype),
        }
    return params


def predict(params: dict, x):
    """Logits of a ReLU MLP."""
    names = sorted(params, key=lambda name: int(name[1:]))
    for name in names[:-1]:
        x = fo.maximum(x @ params[name]["W"].T + params[name]["b"], 0.0)
    last = params[names[-1]]
    return x @ last["W"].T + last["b"]


def loss_fn(params: dict, x, t):
    """Mean softmax cross entropy of the labels ``t``."""
    logits = predict(params, x)
    return fo.mean(fo.logsumexp(logits, axis=1) - logits[numpy.arange(len(t)), t])


def accuracy(params: dict, x, t) -> float:
    return float((fo.argmax(predict(params, x), axis=1) == t).mean())


def load_digits(seed: int = 0):
    """The 1797 8x8 digits, scaled to [0, 1], split 80/20 into train and test."""
    from sklearn.datasets import load_digits as sklearn_digits

    data = sklearn_digits()
    x = (data.data / 16.0).astype(numpy.float32)
    t = data.target.astype(numpy.int64)
    order = numpy.random.RandomState(seed).permutation(len(x))
    split = int(0.8 * len(x))
    train, test = order[:split], order[split:]
    return (x[train], t[train]), (x[test], t[test])


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--unit", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="two epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 2 if args.smoke else args.epochs

    (x_train, t_train), (x_test, t_test) = load_digits(args.seed)
    key = fnet.random.key(args.seed)
    init_key, shuffle_key = fnet.random.split(key)
    params = init_params(init_key, [64, args.unit, args.unit, 10])
    loss_and_grad = fnet.value_and_grad(loss_fn)

    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        order = fnet.random.permutation(fnet.random.fold_in(shuffle_key, epoch), len(x_train))
        total = 0.0
        for i in range(0, len(order), args.batchsize):
            batch = order[i : i + args.batchsize]
            loss, grads = loss_and_grad(params, x_train[batch], t_train[batch])
            params = fnet.tree.map(lambda p, g: p - args.lr * g, params, grads)
            total += float(loss) * len(batch)
        test_accuracy = accuracy(params, x_test, t_test)
        print(
            f"epoch {epoch:3d}  loss {total / len(order):.4f}  test accuracy {test_accuracy:.4f}  "
            f"({time.perf_counter() - start:.1f} s)"
        )
    return test_accuracy


if __name__ == "__main__":
    main()
