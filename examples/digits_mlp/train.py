"""Train an MLP classifier on scikit-learn's bundled handwritten digits (no network needed).

The model is Chainer's MNIST example in fnet's pure style: an ``nn.Module`` of three
``nn.Linear`` layers inside an ``nn.Classifier`` (softmax cross entropy and accuracy), trained
with ``fnet.optim.Adam`` through one pure ``make_train_step``. After each epoch the params, the
optimizer state and the epoch number are saved, atomically, with ``fnet.io.save``; ``--resume``
continues from that checkpoint, and at the end the checkpoint is reloaded and checked to give
the same test accuracy.

    python examples/digits_mlp/train.py [--epochs 20] [--out result] [--resume] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import time

import attrs
import numpy

import fnet
from fnet import functions as F
from fnet import nn, optim

CHECKPOINT = "digits_mlp.ckpt"


@attrs.frozen
class MLP(nn.Module):
    """Two ReLU hidden layers of ``n_units`` and a linear output: params ``l1``, ``l2``, ``l3``."""

    l1: nn.Linear
    l2: nn.Linear
    l3: nn.Linear

    @classmethod
    def of_sizes(cls, n_in: int, n_units: int, n_out: int) -> MLP:
        """The MLP from ``n_in`` inputs through two layers of ``n_units`` to ``n_out`` scores."""
        return cls(nn.Linear(n_in, n_units), nn.Linear(n_units, n_units), nn.Linear(n_units, n_out))

    def apply(self, params, x):
        """The class scores of the batch ``x``."""
        h = F.relu(self.l1(params["l1"], x))
        h = F.relu(self.l2(params["l2"], h))
        return self.l3(params["l3"], h)


def load_digits(seed: int = 0):
    """The 1797 8x8 digits, scaled to [0, 1], split 80/20 into train and test."""
    from sklearn.datasets import load_digits as sklearn_digits

    data = sklearn_digits()
    x = (data.data / 16.0).astype(numpy.float32)
    t = data.target.astype(numpy.int32)
    order = numpy.random.RandomState(seed).permutation(len(x))
    split = int(0.8 * len(x))
    train, test = order[:split], order[split:]
    return (x[train], t[train]), (x[test], t[test])


def test_accuracy(model: nn.Classifier, params, x, t) -> float:
    """The classifier's accuracy on the whole test set."""
    return float(model(params, x, t)[1]["accuracy"])


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.005, help="Adam's step size alpha")
    parser.add_argument("--unit", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="result", help="folder of the checkpoint " + CHECKPOINT)
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    parser.add_argument("--smoke", action="store_true", help="two epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 2 if args.smoke else args.epochs

    (x_train, t_train), (x_test, t_test) = load_digits(args.seed)
    init_key, shuffle_key = fnet.random.split(fnet.random.key(args.seed))
    model = nn.Classifier(MLP.of_sizes(x_train.shape[1], args.unit, 10))
    optimizer = optim.Adam(alpha=args.lr)
    params = model.init(init_key)
    opt_state = optimizer.init(params)

    def loss_fn(params, state, batch):
        loss, metrics = model(params, *batch)
        return loss, (state, {"accuracy": metrics["accuracy"]})

    train_step = optim.make_train_step(loss_fn, optimizer)

    path = os.path.join(args.out, CHECKPOINT)
    first_epoch = 1
    if args.resume:
        saved = fnet.io.load(path, like={"params": params, "opt_state": opt_state, "epoch": 0})
        params, opt_state, first_epoch = saved["params"], saved["opt_state"], saved["epoch"] + 1
        print(f"resumed from {path} after epoch {saved['epoch']}")
    os.makedirs(args.out, exist_ok=True)

    start = time.perf_counter()
    accuracy = test_accuracy(model, params, x_test, t_test)
    for epoch in range(first_epoch, epochs + 1):
        order = fnet.random.permutation(fnet.random.fold_in(shuffle_key, epoch), len(x_train))
        total = 0.0
        for i in range(0, len(order), args.batchsize):
            batch = order[i : i + args.batchsize]
            params, _, opt_state, metrics = train_step(
                params, None, opt_state, (x_train[batch], t_train[batch])
            )
            total += float(metrics["loss"]) * len(batch)
        fnet.io.save(path, {"params": params, "opt_state": opt_state, "epoch": epoch})
        accuracy = test_accuracy(model, params, x_test, t_test)
        print(
            f"epoch {epoch:3d}  loss {total / len(order):.4f}  test accuracy {accuracy:.4f}  "
            f"({time.perf_counter() - start:.1f} s)"
        )

    reloaded = fnet.io.load(path, like={"params": params, "opt_state": opt_state, "epoch": 0})
    reloaded_accuracy = test_accuracy(model, reloaded["params"], x_test, t_test)
    if reloaded_accuracy != accuracy:
        raise RuntimeError(f"the checkpoint {path} gives test accuracy {reloaded_accuracy}, not {accuracy}")
    print(f"reloaded {path} (epoch {reloaded['epoch']}): test accuracy {reloaded_accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main()
