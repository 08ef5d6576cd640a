"""Chainer's side of the compat parity test, run once with Chainer 7.8.1's python::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_compat_parity.py

For every case of ``parity_script.CASES`` it builds the model with Chainer (seeded
initializers, in the case's dtype), runs the predictor once so that the lazy layer is
initialized, and saves the parameters under ``<case>/`` in ``compat_parity_init.npz``. Then it
runs ``parity_script.train`` with Chainer on that file and writes the losses of every step
under ``<case>`` in ``compat_parity_losses.npz``. The test runs the same ``train`` with
``fnet.compat`` and compares.
"""

from __future__ import annotations

import pathlib
import sys

import chainer
import numpy

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import parity_script  # noqa: E402

assert chainer.__version__ == "7.8.1", chainer.__version__

INIT = HERE / "compat_parity_init.npz"
LOSSES = HERE / "compat_parity_losses.npz"


def main() -> None:
    params: dict = {}
    for number, case in enumerate(parity_script.CASES):
        kind, _, dtype = case
        numpy.random.seed(100 + number)
        x, _ = parity_script.make_data(kind, dtype)
        with chainer.using_config("dtype", numpy.dtype(dtype)):
            model = parity_script.make_model(chainer, kind)
            with chainer.no_backprop_mode(), chainer.using_config("train", False):
                model.predictor(x)  # initializes the lazy Linear
        chainer.serializers.DictionarySerializer(params, parity_script.case_name(*case) + "/").save(model)
    chainer.serializers.save_npz(str(INIT), params)
    losses = {}
    for case in parity_script.CASES:
        name = parity_script.case_name(*case)
        losses[name] = parity_script.train(chainer, *case, str(INIT), name + "/")
        print(name, losses[name][[0, 1, -1]])
    numpy.savez_compressed(LOSSES, **losses)
    print(f"wrote {INIT.name} and {LOSSES.name}")


if __name__ == "__main__":
    main()
