"""The training script of the compat parity test, written once against Chainer's API.

``train(chainer, ...)`` takes the ``chainer`` module as an argument and reaches every Chainer name
through it, so the very same code runs with Chainer 7.8.1 (``make_compat_parity.py`` makes the
golden losses with it) and with ``fnet.compat`` (``tests/compat/test_parity.py``). It trains a
small MLP or CNN (in a ``Classifier``) with MomentumSGD or Adam for ``STEPS`` steps on a fixed
batch, starting from the parameters saved in an npz file, and returns the loss of every step.
"""

from __future__ import annotations

import importlib

import numpy

STEPS = 50
BATCH = 8
CLASSES = 10
KINDS = ("mlp", "cnn")
OPTIMIZERS = ("MomentumSGD", "Adam")
DTYPES = ("float32", "float64")
CASES = [(kind, opt, dtype) for kind in KINDS for opt in OPTIMIZERS for dtype in DTYPES]


def case_name(kind: str, optimizer_name: str, dtype: str) -> str:
    """The key prefix of a case in the golden files, e.g. ``mlp_Adam_float32``."""
    return f"{kind}_{optimizer_name}_{dtype}"


def _submodule(chainer, name: str):
    """``chainer.<name>`` (imported, as ``import chainer.<name>`` would)."""
    return importlib.import_module(f"{chainer.__name__}.{name}")


def make_model(chainer, kind: str):
    """A ``Classifier`` around a 20-50-10 MLP (``'mlp'``) or a conv-pool-linear CNN (``'cnn'``)
    on 1x8x8 images, whose last layer is lazy (``Linear(None, 10)``)."""
    F = _submodule(chainer, "functions")
    L = _submodule(chainer, "links")

    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(20, 50)
                self.l2 = L.Linear(50, CLASSES)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    class CNN(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.conv = L.Convolution2D(1, 4, 3)
                self.fc = L.Linear(None, CLASSES)

        def forward(self, x):
            h = F.max_pooling_2d(F.relu(self.conv(x)), 2)
            return self.fc(h)

    return L.Classifier(MLP() if kind == "mlp" else CNN())


def make_data(kind: str, dtype: str) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The fixed batch of a case: inputs of ``dtype`` and int32 labels (NumPy's legacy
    RandomState, whose streams never change between NumPy versions)."""
    rng = numpy.random.RandomState(1 if kind == "mlp" else 2)
    shape = (BATCH, 20) if kind == "mlp" else (BATCH, 1, 8, 8)
    x = rng.standard_normal(shape).astype(dtype)
    t = rng.randint(0, CLASSES, BATCH).astype(numpy.int32)
    return x, t


def make_optimizer(chainer, optimizer_name: str):
    """MomentumSGD or Adam, with hyperparameters other than the defaults."""
    optimizers = _submodule(chainer, "optimizers")
    if optimizer_name == "MomentumSGD":
        return optimizers.MomentumSGD(lr=0.01, momentum=0.8)
    return optimizers.Adam(alpha=0.001, beta1=0.85)


def train(chainer, kind: str, optimizer_name: str, dtype: str, init_npz, path: str) -> numpy.ndarray:
    """Train a case for ``STEPS`` steps from the parameters under ``path`` in ``init_npz``, with
    ``chainer.config.dtype`` set to ``dtype`` (so that every parameter, the lazy one included,
    has that dtype); the losses of the steps (computed before each update)."""
    with chainer.using_config("dtype", numpy.dtype(dtype)):
        model = make_model(chainer, kind)
        _submodule(chainer, "serializers").load_npz(init_npz, model, path=path)
        optimizer = make_optimizer(chainer, optimizer_name)
        optimizer.setup(model)
        x, t = make_data(kind, dtype)
        losses = []
        for _ in range(STEPS):
            optimizer.update(model, x, t)
            losses.append(model.loss.array)
    return numpy.stack(losses)
