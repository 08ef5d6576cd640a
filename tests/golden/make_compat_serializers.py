"""Chainer's side of the fnet.compat serializer tests, run with Chainer 7.8.1's python.

Without arguments it writes, next to this file::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_compat_serializers.py

- ``compat_serializers_model.npz``: ``serializers.save_npz`` of ``Classifier(Net())`` after three
  Adam steps in training mode (so the batch normalization's running statistics and ``N`` have
  moved, and the lazy ``Linear(None, 3)`` has been initialized);
- ``compat_serializers_optimizer.npz``: ``save_npz`` of that Adam optimizer (``t``, ``epoch``, and
  ``m``, ``v``, ``t`` per parameter);
- ``compat_serializers_expected.npz``: the batch (``x``, ``t``), the predictor's output on it in
  test mode right after saving (``y``), then one more Adam step: its loss (``loss``) and the
  parameters and persistent values after it (``next/<key>``).

With ``--check MODEL OPTIMIZER`` it builds a fresh ``Classifier(Net())`` and Adam, loads the two
files (written by fnet.compat) with Chainer's ``load_npz``, and prints as JSON what Chainer then
holds (``held``: ``{key: [dtype, shape, flat values]}`` for the model's and the optimizer's
entries, the latter keyed ``optimizer/<key>``), and the model's entries after one more Adam step
on the batch of the expected file (``next``).
"""

from __future__ import annotations

import json
import pathlib
import sys

import chainer
import chainer.functions as F
import chainer.links as L
import numpy

assert chainer.__version__ == "7.8.1", chainer.__version__

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE / "compat_serializers_model.npz"
OPTIMIZER = HERE / "compat_serializers_optimizer.npz"
EXPECTED = HERE / "compat_serializers_expected.npz"
ALPHA = 0.01


class Net(chainer.Chain):
    """Convolution2D -> relu -> BatchNormalization -> lazy Linear."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 2, 3)
            self.bn = L.BatchNormalization(2)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        return self.fc(self.bn(F.relu(self.conv(x))))


def build():
    model = L.Classifier(Net())
    optimizer = chainer.optimizers.Adam(alpha=ALPHA)
    optimizer.setup(model)
    return model, optimizer


def entries(obj, prefix: str = "") -> dict:
    held = chainer.serializers.DictionarySerializer()
    held.save(obj)
    return {prefix + key: value for key, value in held.target.items()}


def as_json(values: dict) -> dict:
    out = {}
    for key, value in values.items():
        array = numpy.asarray(value)
        out[key] = [array.dtype.str, list(array.shape), array.ravel().tolist()]
    return out


def write_golden() -> None:
    numpy.random.seed(0)
    model, optimizer = build()
    rng = numpy.random.RandomState(1)
    x = rng.standard_normal((4, 1, 5, 5)).astype(numpy.float32)
    t = numpy.array([0, 2, 1, 2], numpy.int32)
    for _ in range(3):
        optimizer.update(model, x, t)
    chainer.serializers.save_npz(str(MODEL), model)
    chainer.serializers.save_npz(str(OPTIMIZER), optimizer)
    with chainer.no_backprop_mode(), chainer.using_config("train", False):
        y = model.predictor(x).array
    optimizer.update(model, x, t)
    expected = {"x": x, "t": t, "y": y, "loss": model.loss.array}
    expected.update(entries(model, "next/"))
    numpy.savez_compressed(EXPECTED, **expected)
    print(f"wrote {MODEL.name}, {OPTIMIZER.name} and {EXPECTED.name}")


def check(model_file: str, optimizer_file: str) -> None:
    model, optimizer = build()
    chainer.serializers.load_npz(model_file, model)
    chainer.serializers.load_npz(optimizer_file, optimizer)
    held = as_json({**entries(model), **entries(optimizer, "optimizer/")})
    with numpy.load(str(EXPECTED)) as expected:
        optimizer.update(model, expected["x"], expected["t"])
    print(json.dumps({"held": held, "next": as_json(entries(model))}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    else:
        write_golden()
