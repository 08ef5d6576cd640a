"""Chainer's side of the npz tests of fnet.io, run with Chainer 7.8.1's python.

Without arguments it writes ``io_chainer.npz`` next to this file::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_io.py

That file is Chainer's ``serializers.save_npz`` of ``Classifier(Net())`` after one training-mode
pass (so the batch normalization's running statistics and its count ``N`` have moved), with
seeded parameters. ``Net`` also has a lazy ``Linear(None, 2)`` that never ran: Chainer writes its
``W`` as a pickled ``None``.

With ``--check FILE`` it loads FILE (written by fnet.io.save_npz) into a ``Classifier(Net())``
without the lazy layer using Chainer's ``serializers.load_npz``, and prints as JSON what Chainer
then holds: ``{key: [dtype, shape, flat values]}`` for every parameter and persistent value,
keyed as Chainer serializes them.
"""

from __future__ import annotations

import json
import pathlib
import sys

import chainer
import chainer.links as L
import numpy

assert chainer.__version__ == "7.8.1", chainer.__version__

OUT = pathlib.Path(__file__).with_name("io_chainer.npz")


class Net(chainer.Chain):
    """Linear -> BatchNormalization -> Linear without bias, and optionally a lazy Linear."""

    def __init__(self, lazy: bool):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.bn = L.BatchNormalization(4)
            self.l2 = L.Linear(4, 2, nobias=True)
            if lazy:
                self.lazy = L.Linear(None, 2)

    def forward(self, x):
        return self.l2(self.bn(self.l1(x)))


def write_golden() -> None:
    rng = numpy.random.RandomState(0)
    model = L.Classifier(Net(lazy=True))
    for _, param in sorted(model.namedparams()):
        if param.array is not None:
            param.array[...] = rng.standard_normal(param.shape)
    x = rng.standard_normal((5, 3)).astype(numpy.float32)
    t = numpy.array([0, 1, 1, 0, 1], numpy.int32)
    with chainer.using_config("train", True):
        model(x, t)
    chainer.serializers.save_npz(str(OUT), model)
    print(f"wrote {OUT}")


def check(path: str) -> None:
    model = L.Classifier(Net(lazy=False))
    chainer.serializers.load_npz(path, model)
    held = chainer.serializers.DictionarySerializer()
    held.save(model)
    report = {}
    for key, value in held.target.items():
        array = numpy.asarray(value)
        report[key] = [array.dtype.str, list(array.shape), array.ravel().tolist()]
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    else:
        write_golden()
