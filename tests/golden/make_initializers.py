"""Golden data for the tests of fnet.initializers, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``initializers.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_initializers.py

Every case builds a Chainer initializer from ``kwargs`` (random ones with
``rng=numpy.random.RandomState(seed)``), makes an array with
``chainer.initializers.generate_array(init, shape, numpy, dtype)`` and stores it under
``case/<i>``. The list of cases is stored as JSON in ``cases``, so that the test builds the same
fnet initializers (with an equally seeded RandomState) and compares. ``fans`` holds
``[shape, fan_in, fan_out]`` rows from ``chainer.initializer.get_fans``.
"""

from __future__ import annotations

import json
import pathlib

import chainer
import numpy
from chainer import initializer, initializers

assert chainer.__version__ == "7.8.1", chainer.__version__

OUT = pathlib.Path(__file__).with_name("initializers.npz")

RANDOM = [
    ("Normal", {}, (4, 3)),
    ("Normal", {"scale": 0.3}, (2, 3, 2)),
    ("Normal", {"scale": 2.0}, (5,)),
    ("Normal", {}, ()),
    ("LeCunNormal", {}, (6, 4)),
    ("LeCunNormal", {"scale": 0.5}, (4, 3, 3, 3)),
    ("GlorotNormal", {}, (6, 4)),
    ("GlorotNormal", {"scale": 2.0}, (4, 2, 3, 3)),
    ("HeNormal", {}, (6, 4)),
    ("HeNormal", {"fan_option": "fan_out"}, (4, 2, 3, 3)),
    ("HeNormal", {"scale": 0.7, "fan_option": "fan_in"}, (3, 5, 2)),
    ("Uniform", {}, (4, 3)),
    ("Uniform", {"scale": 1.5}, (7,)),
    ("LeCunUniform", {}, (6, 4)),
    ("LeCunUniform", {"scale": 3.0}, (4, 2, 3, 3)),
    ("GlorotUniform", {}, (6, 4)),
    ("GlorotUniform", {"scale": 0.5}, (4, 2, 3, 3)),
    ("HeUniform", {}, (6, 4)),
    ("HeUniform", {"scale": 2.0}, (4, 2, 3, 3)),
    ("Orthogonal", {}, (3, 5)),
    ("Orthogonal", {}, (5, 3)),
    ("Orthogonal", {"scale": 1.0}, (4, 4)),
    ("Orthogonal", {"scale": 2.0}, (3, 2, 2, 2)),
    ("Orthogonal", {"mode": "embedding"}, (6, 2)),
    ("Orthogonal", {"mode": "projection"}, (2, 6)),
    ("Orthogonal", {"mode": "basis"}, (3, 3)),
    ("Orthogonal", {}, (4,)),
    ("Orthogonal", {"scale": 0.5}, ()),
]
FIXED = [
    ("Identity", {}, (3, 3)),
    ("Identity", {"scale": 2.5}, (4, 4)),
    ("Constant", {"fill_value": 0.25}, (2, 3)),
    ("Constant", {"fill_value": [1.0, 2.0, 3.0]}, (2, 3)),
    ("Constant", {"fill_value": 7}, (2, 2)),
    ("Zero", {}, (2, 3)),
    ("One", {}, (3, 2)),
    ("NaN", {}, (2, 2)),
    ("UpsamplingDeconvFilter", {}, (2, 2, 4, 4)),
    ("UpsamplingDeconvFilter", {}, (3, 3, 3, 3)),
    ("UpsamplingDeconvFilter", {}, (2, 1, 5, 5)),
    ("UpsamplingDeconvFilter", {}, (2, 2, 4, 4, 4)),
    ("UpsamplingDeconvFilter", {}, (1, 1, 6)),
    ("DownsamplingConvFilter", {}, (2, 2, 4, 4)),
    ("DownsamplingConvFilter", {}, (3, 1, 3, 3)),
    ("DownsamplingConvFilter", {}, (2, 2, 3, 3, 3)),
]
DTYPES = ["float32", "float64", "float16"]
FAN_SHAPES = [(4, 3), (64, 3, 5, 5), (8, 2, 3, 3, 3), (3, 7, 1), (5, 0), (2, 4, 0, 3)]


def make(name: str, kwargs: dict, seed: int | None, dtype: str):
    args = dict(kwargs)
    if "fill_value" in args and isinstance(args["fill_value"], list):
        args["fill_value"] = numpy.asarray(args["fill_value"])
    if seed is not None:
        args["rng"] = numpy.random.RandomState(seed)
    return getattr(initializers, name)(dtype=numpy.dtype(dtype), **args)


def main() -> None:
    data: dict[str, numpy.ndarray] = {}
    cases = []
    for i, (name, kwargs, shape) in enumerate(RANDOM + FIXED):
        seed = i if i < len(RANDOM) else None
        dtype = DTYPES[i % len(DTYPES)] if name not in ("Constant",) else "float32"
        init = make(name, kwargs, seed, dtype)
        data[f"case/{i}"] = initializers.generate_array(init, shape, numpy, dtype)
        cases.append({"name": name, "kwargs": kwargs, "shape": list(shape), "seed": seed, "dtype": dtype})
    data["cases"] = numpy.asarray(json.dumps(cases))
    fans = [[list(s), *initializer.get_fans(s)] for s in FAN_SHAPES]
    data["fans"] = numpy.asarray(json.dumps(fans))
    numpy.savez_compressed(OUT, **data)
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
