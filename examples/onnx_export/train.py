"""Train a small CNN on scikit-learn's bundled 8x8 digits, export it to ONNX, and check that
onnxruntime predicts the same classes on the test split (needs the onnx extra).

The exported function is the model's inference: batch normalization with its running
statistics (``train=False``) and the softmax of the class scores. ``fnet.onnx.export`` runs it
once on an example batch and writes the recorded operations; the params become initializers
named by their tree paths (``predictor/conv1/W``), and the batch axis is left dynamic so the
file accepts any number of images.

    python examples/onnx_export/train.py [--epochs 8] [--out result] [--smoke]
"""

from __future__ import annotations

import argparse
import os

import attrs
import numpy
import onnx
import onnxruntime

import fnet
import fnet.onnx
from fnet import functions as F
from fnet import nn, optim


@attrs.frozen
class ConvNet(nn.Module):
    """3x3 convolution, batch normalization, ReLU and 2x2 max pooling (8x8 -> 4x4), a second
    convolution and pooling (4x4 -> 2x2), then a linear layer to the 10 class scores."""

    conv1: nn.Convolution2D
    bn1: nn.BatchNormalization
    conv2: nn.Convolution2D
    fc: nn.Linear

    @classmethod
    def of_width(cls, channels: int) -> ConvNet:
        return cls(
            nn.Convolution2D(1, channels, 3, pad=1, nobias=True),
            nn.BatchNormalization(channels),
            nn.Convolution2D(channels, 2 * channels, 3, pad=1),
            nn.Linear(2 * channels * 2 * 2, 10),
        )

    def apply(self, params, x, state, *, train: bool = True):
        """``(scores, new_state)`` of the images ``x`` (N, 1, 8, 8)."""
        h, bn1 = self.bn1(params["bn1"], self.conv1(params["conv1"], x), state["bn1"], train=train)
        h = F.max_pooling_2d(F.relu(h), 2)
        h = F.max_pooling_2d(F.relu(self.conv2(params["conv2"], h)), 2)
        return self.fc(params["fc"], h), {"bn1": bn1}


def load_digits(seed: int = 0):
    """The 1797 digits as images (N, 1, 8, 8) in [0, 1], split 80/20 into train and test."""
    from sklearn.datasets import load_digits as sklearn_digits

    x, t = sklearn_digits(return_X_y=True)
    x = (x / 16.0).astype(numpy.float32).reshape(-1, 1, 8, 8)
    order = numpy.random.RandomState(seed).permutation(len(x))
    train, test = order[: int(0.8 * len(x))], order[int(0.8 * len(x)) :]
    return (x[train], t[train].astype(numpy.int32)), (x[test], t[test].astype(numpy.int32))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--channels", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opset", type=int, default=None, help="ONNX opset (default: the newest)")
    parser.add_argument("--out", default="result", help="folder of the .onnx file")
    parser.add_argument("--smoke", action="store_true", help="two epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 2 if args.smoke else args.epochs

    (x_train, t_train), (x_test, t_test) = load_digits(args.seed)
    init_key, shuffle_key = fnet.random.split(fnet.random.key(args.seed))
    model = nn.Classifier(ConvNet.of_width(args.channels))
    params, state = model.init(init_key), model.init_state()
    optimizer = optim.Adam(alpha=0.01)
    opt_state = optimizer.init(params)

    def loss_fn(params, state, batch):
        (loss, metrics), state = model(params, *batch, state=state, train=True)
        return loss, (state, {"accuracy": metrics["accuracy"]})

    train_step = optim.make_train_step(loss_fn, optimizer)
    for epoch in range(1, epochs + 1):
        order = fnet.random.permutation(fnet.random.fold_in(shuffle_key, epoch), len(x_train))
        for i in range(0, len(order), args.batchsize):
            batch = order[i : i + args.batchsize]
            params, state, opt_state, _ = train_step(
                params, state, opt_state, (x_train[batch], t_train[batch])
            )
        print(f"epoch {epoch:3d}  trained")

    def predict(params, x):
        """Class probabilities of ``x`` in inference mode: the function that is exported."""
        scores, _ = model.predictor(params["predictor"], x, state["predictor"], train=False)
        return F.softmax(scores)

    expected = numpy.asarray(predict(params, x_test))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "digits.onnx")
    fnet.onnx.export(
        predict,
        params,
        x_test[:4],
        filename=path,
        opset=args.opset,
        input_names=["images"],
        output_names=["probabilities"],
        dynamic_axes={"images": {0: "batch"}, "probabilities": {0: "batch"}},
    )
    written = onnx.load(path)
    onnx.checker.check_model(written, full_check=True)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"images": x_test})  # all 360 images: the batch axis is dynamic
    same = int((got.argmax(axis=1) == expected.argmax(axis=1)).sum())
    accuracy = float((expected.argmax(axis=1) == t_test).mean())
    difference = float(numpy.abs(got - expected).max())
    ops = ", ".join(sorted({n.op_type for n in written.graph.node}))
    print(f"exported {path} (opset {written.opset_import[0].version}): {ops}")
    print(f"fnet test accuracy {accuracy:.4f}")
    print(f"onnxruntime predicts the same class as fnet for {same} of {len(x_test)} test images")
    print(f"largest probability difference {difference:.2e}")
    return {"same": same, "total": len(x_test), "accuracy": accuracy, "max_diff": difference}


if __name__ == "__main__":
    main()
