"""Chainer's side of the tests of fnet.compat's Link, Sequential and link hooks.

Run with Chainer 7.8.1's python; it writes ``compat_link.npz`` next to this file::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_compat_link.py

Contents (all weights are fixed arrays; the hooks' random vector ``u`` is drawn from NumPy's
global state after ``numpy.random.seed(SEED)``, as Chainer does):

- ``seq/<key>``: ``serializers.save_npz``-style keys (``DictionarySerializer``) of
  ``Sequential(Linear(2, 3), relu, Linear(3, 4), relu, Linear(4, 5), Linear(5, 6))``, each
  ``W`` filled with its layer number: Chainer's order of a Sequential's children.
- ``sn_<case>/...``: a Linear (or a Deconvolution2D for ``deconv``) with a
  ``SpectralNormalization`` hook: input ``x``, initial ``W``, output ``y`` of one training
  forward, gradient ``gW`` of ``sum(y * y)`` (and ``ggamma`` with ``use_gamma``; no gradient
  for ``deconv``, whose backward fails in Chainer 7.8.1), the vector
  ``u`` after it, then ``y_eval`` of a test-mode forward and ``u_eval`` after that one.
- ``ws/...``: a Convolution2D with ``WeightStandardization``: ``x``, ``W``, ``y``, ``gW``.
"""

from __future__ import annotations

import pathlib

import chainer
import chainer.functions as F
import chainer.link_hooks
import chainer.links as L
import numpy

assert chainer.__version__ == "7.8.1", chainer.__version__

OUT = pathlib.Path(__file__).with_name("compat_link.npz")
SEED = 7

SN_CASES = {
    "default": {},
    "iter2_factor": {"n_power_iteration": 2, "factor": 2.0},
    "gamma": {"use_gamma": True},
    "deconv": {},
}


def sequential_keys(out: dict) -> None:
    sizes = [(2, 3), (3, 4), (4, 5), (5, 6)]
    linears = [
        L.Linear(i, o, initialW=numpy.full((o, i), k, numpy.float32)) for k, (i, o) in enumerate(sizes)
    ]
    model = chainer.Sequential(linears[0], F.relu, linears[1], F.relu, linears[2], linears[3])
    target = {}
    chainer.serializers.DictionarySerializer(target).save(model)
    for key, value in target.items():
        out[f"seq/{key}"] = numpy.asarray(value)


def spectral_normalization(out: dict, case: str, options: dict) -> None:
    rng = numpy.random.RandomState(1)
    if case == "deconv":
        W = rng.uniform(-1, 1, (3, 2, 2, 2)).astype(numpy.float32)  # (in, out, kh, kw)
        link = L.Deconvolution2D(3, 2, 2, initialW=W, initial_bias=0.5)
        x = rng.uniform(-1, 1, (2, 3, 3, 3)).astype(numpy.float32)
    else:
        W = rng.uniform(-1, 1, (3, 4)).astype(numpy.float32)
        link = L.Linear(4, 3, initialW=W, initial_bias=0.5)
        x = rng.uniform(-1, 1, (2, 4)).astype(numpy.float32)
    numpy.random.seed(SEED)
    link.add_hook(chainer.link_hooks.SpectralNormalization(**options))
    prefix = f"sn_{case}/"
    out[prefix + "x"], out[prefix + "W"], out[prefix + "u0"] = x, W, link.W_u.copy()
    y = link(x)
    if case != "deconv":  # Chainer 7.8.1 fails in the backward of a spectrally normalized deconvolution
        link.cleargrads()  # Chainer's parameters start with NaN gradients
        F.sum(y * y).backward()
        out[prefix + "gW"] = link.W.grad
    out[prefix + "y"], out[prefix + "u"] = y.array, link.W_u.copy()
    if options.get("use_gamma"):
        out[prefix + "gamma0"] = numpy.asarray(link.gamma.array)
        out[prefix + "ggamma"] = numpy.asarray(link.gamma.grad)
    with chainer.using_config("train", False):
        out[prefix + "y_eval"] = link(x).array
    out[prefix + "u_eval"] = link.W_u.copy()


def weight_standardization(out: dict) -> None:
    rng = numpy.random.RandomState(2)
    W = rng.uniform(-1, 1, (3, 2, 2, 2)).astype(numpy.float32)
    x = rng.uniform(-1, 1, (2, 2, 4, 4)).astype(numpy.float32)
    link = L.Convolution2D(2, 3, 2, initialW=W, initial_bias=0.5)
    link.add_hook(chainer.link_hooks.WeightStandardization())
    y = link(x)
    link.cleargrads()
    F.sum(y * y).backward()
    out.update({"ws/x": x, "ws/W": W, "ws/y": y.array, "ws/gW": link.W.grad})


def main() -> None:
    out: dict = {}
    sequential_keys(out)
    for case, options in SN_CASES.items():
        spectral_normalization(out, case, options)
    weight_standardization(out)
    numpy.savez(OUT, **out)
    print(f"wrote {OUT} ({len(out)} arrays)")


if __name__ == "__main__":
    main()
