#!/usr/bin/env python
"""A digits classifier written as a Chainer 7 program, run unchanged on fnet.

Nothing in this file knows about fnet: it imports ``chainer`` and trains with Chainer's
Trainer (an Evaluator on held-out digits, LogReport, PrintReport and a snapshot every epoch).
Run it on fnet through the launcher, which makes ``chainer`` name ``fnet.compat``:

    python -m fnet.compat examples/chainer_digits/train.py [--epoch 20] [--out result] [--smoke]
    python -m fnet.compat examples/chainer_digits/train.py --resume result/snapshot_epoch_2

It runs as it is under Chainer 7.8.1 too (``python examples/chainer_digits/train.py``). The
data are scikit-learn's bundled 8x8 digits, so no download is needed.
"""

import argparse
import os

import chainer
import chainer.functions as F
import chainer.links as L
import numpy
from chainer import training
from chainer.training import extensions
from sklearn.datasets import load_digits


class MLP(chainer.Chain):
    """Two hidden ReLU layers of ``n_units``; input sizes are inferred on the first batch."""

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.dropout(F.relu(self.l2(h1)), ratio=0.2)
        return self.l3(h2)


def digits_datasets(seed):
    """The 1797 digits as (float32 pixels in [0, 1], int32 label) pairs, split 80/20."""
    x, t = load_digits(return_X_y=True)
    dataset = chainer.datasets.TupleDataset((x / 16.0).astype(numpy.float32), t.astype(numpy.int32))
    return chainer.datasets.split_dataset_random(dataset, int(len(dataset) * 0.8), seed=seed)


def main():
    parser = argparse.ArgumentParser(description="Chainer: an MLP on the digits")
    parser.add_argument("--batchsize", "-b", type=int, default=32)
    parser.add_argument("--epoch", "-e", type=int, default=20)
    parser.add_argument("--unit", "-u", type=int, default=100)
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--resume", "-r", default="", help="a snapshot to resume from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="train for 2 epochs, to check that it runs")
    args = parser.parse_args()
    epochs = 2 if args.smoke else args.epoch

    numpy.random.seed(args.seed)  # Chainer draws the initial weights from NumPy's generator
    model = L.Classifier(MLP(args.unit, 10))
    optimizer = chainer.optimizers.Adam(alpha=0.005)
    optimizer.setup(model)

    train, test = digits_datasets(args.seed)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=-1)
    trainer = training.Trainer(updater, (epochs, "epoch"), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=-1))
    trainer.extend(extensions.snapshot(filename="snapshot_epoch_{.updater.epoch}"), trigger=(1, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy"]
        )
    )
    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()

    with chainer.using_config("train", False), chainer.no_backprop_mode():
        x, t = chainer.dataset.concat_examples(test)
        accuracy = float(F.accuracy(model.predictor(x), t).array)
    chainer.serializers.save_npz(os.path.join(args.out, "mlp.npz"), model)
    print(f"final test accuracy: {accuracy:.4f}")


if __name__ == "__main__":
    main()
