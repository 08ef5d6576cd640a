"""A small CNN with batch normalization on scikit-learn's bundled 8x8 digits (no network needed).

Batch normalization is the one layer whose behaviour depends on the mode: in training it
normalizes with the batch's own statistics and updates running averages of them; in
evaluation it normalizes with those running averages. In fnet's pure style the running
averages are not hidden inside the layer: they are a ``state`` tree, kept beside the params,
passed in and returned by every call:

    (loss, metrics), state = model(params, x, t, state=state, train=True)   # state updated
    (loss, metrics), _ = model(params, x, t, state=state, train=False)      # state only read

The example trains with Adam through ``optim.make_train_step`` (the state goes through the
step as its second argument), prints the state tree, evaluates in both modes, and saves the
params and the state together (both are needed to predict).

    python examples/cnn_bn/train.py [--epochs 10] [--out result] [--smoke]
"""

from __future__ import annotations

import argparse
import os

import attrs
import numpy

import fnet
from fnet import functions as F
from fnet import nn, optim


@attrs.frozen
class ConvNet(nn.Module):
    """Two blocks of 3x3 convolution, batch normalization, ReLU and 2x2 max pooling (8x8 -> 2x2),
    then a linear layer to the 10 class scores."""

    conv1: nn.Convolution2D
    bn1: nn.BatchNormalization
    conv2: nn.Convolution2D
    bn2: nn.BatchNormalization
    fc: nn.Linear

    @classmethod
    def of_width(cls, channels: int) -> ConvNet:
        """The network with ``channels`` feature maps in the first block, twice that in the second."""
        return cls(
            nn.Convolution2D(1, channels, 3, pad=1, nobias=True),  # the batch norm's beta is the bias
            nn.BatchNormalization(channels),
            nn.Convolution2D(channels, 2 * channels, 3, pad=1, nobias=True),
            nn.BatchNormalization(2 * channels),
            nn.Linear(2 * channels * 2 * 2, 10),
        )

    def apply(self, params, x, state, *, train: bool = True):
        """``(scores, new_state)`` of the images ``x`` (N, 1, 8, 8)."""
        h, bn1 = self.bn1(params["bn1"], self.conv1(params["conv1"], x), state["bn1"], train=train)
        h = F.max_pooling_2d(F.relu(h), 2)
        h, bn2 = self.bn2(params["bn2"], self.conv2(params["conv2"], h), state["bn2"], train=train)
        h = F.max_pooling_2d(F.relu(h), 2)
        return self.fc(params["fc"], h), {"bn1": bn1, "bn2": bn2}


def load_digits(seed: int = 0):
    """The 1797 digits as images (N, 1, 8, 8) scaled to [0, 1], split 80/20 into train and test."""
    from sklearn.datasets import load_digits as sklearn_digits

    x, t = sklearn_digits(return_X_y=True)
    x = (x / 16.0).astype(numpy.float32).reshape(-1, 1, 8, 8)
    order = numpy.random.RandomState(seed).permutation(len(x))
    train, test = order[: int(0.8 * len(x))], order[int(0.8 * len(x)) :]
    return (x[train], t[train].astype(numpy.int32)), (x[test], t[test].astype(numpy.int32))


def describe(tree) -> str:
    """One line per leaf of ``tree``: its path and its dtype and shape."""
    return "\n".join(
        f"  {fnet.tree.path_str(path)}: {numpy.asarray(leaf).dtype}{list(numpy.shape(leaf))}"
        for path, leaf in fnet.tree.flatten_with_paths(tree)
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--channels", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="result", help="folder of the saved params and state")
    parser.add_argument("--smoke", action="store_true", help="two epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 2 if args.smoke else args.epochs

    (x_train, t_train), (x_test, t_test) = load_digits(args.seed)
    init_key, shuffle_key = fnet.random.split(fnet.random.key(args.seed))
    model = nn.Classifier(ConvNet.of_width(args.channels))
    params = model.init(init_key)
    state = model.init_state()  # the running statistics: avg_mean, avg_var and N per BN layer
    print("batch-normalization state:\n" + describe(state))
    optimizer = optim.Adam(alpha=0.01)
    opt_state = optimizer.init(params)

    def loss_fn(params, state, batch):
        (loss, metrics), state = model(params, *batch, state=state, train=True)
        return loss, (state, {"accuracy": metrics["accuracy"]})

    train_step = optim.make_train_step(loss_fn, optimizer)

    def evaluate(params, state, train: bool) -> float:
        """Test accuracy, normalizing with the running statistics (train=False) or the batch's."""
        (_, metrics), _ = model(params, x_test, t_test, state=state, train=train)
        return float(metrics["accuracy"])

    for epoch in range(1, epochs + 1):
        order = fnet.random.permutation(fnet.random.fold_in(shuffle_key, epoch), len(x_train))
        total = 0.0
        for i in range(0, len(order), args.batchsize):
            batch = order[i : i + args.batchsize]
            params, state, opt_state, metrics = train_step(
                params, state, opt_state, (x_train[batch], t_train[batch])
            )
            total += float(metrics["loss"]) * len(batch)
        print(
            f"epoch {epoch:3d}  loss {total / len(order):.4f}  "
            f"test accuracy {evaluate(params, state, train=False):.4f}"
        )

    mean = numpy.asarray(state["predictor"]["bn1"]["avg_mean"])
    print(f"bn1's running mean, first channels (it started at zeros): {numpy.round(mean[:4], 3)}")
    _, after_eval = model(params, x_test, t_test, state=state, train=False)
    unchanged = all(
        numpy.array_equal(a, b) for a, b in zip(fnet.tree.leaves(after_eval), fnet.tree.leaves(state))
    )
    print(f"evaluation (train=False) returns the state unchanged: {unchanged}")
    results = {
        "eval mode": evaluate(params, state, train=False),
        "batch statistics": evaluate(params, state, train=True),
    }
    print(
        f"test accuracy with the running statistics (train=False): {results['eval mode']:.4f}; "
        f"with the test batch's own statistics (train=True): {results['batch statistics']:.4f}"
    )

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "cnn_bn.ckpt")
    fnet.io.save(path, {"params": params, "state": state})
    saved = fnet.io.load(path, like={"params": params, "state": state})
    reloaded = evaluate(saved["params"], saved["state"], train=False)
    print(f"saved params and state to {path}; reloaded test accuracy {reloaded:.4f}")
    return results


if __name__ == "__main__":
    main()
