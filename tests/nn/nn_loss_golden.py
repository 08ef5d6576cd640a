"""Access to ``tests/golden/nn_loss.npz``, written by ``tests/golden/make_nn_loss.py`` with Chainer 7.8.1.

A case ``c`` holds ``c.names`` (Chainer's ``namedparams`` names, without the leading ``/``),
``c.param.<name>`` (the parameters Chainer ran with), its inputs, outputs and gradients.
"""

from __future__ import annotations

import functools
import pathlib

import numpy
import toolz

import fnet

PATH = pathlib.Path(__file__).parents[1] / "golden" / "nn_loss.npz"
RTOL = {numpy.dtype(numpy.float32): 1e-4, numpy.dtype(numpy.float64): 1e-5}


@functools.cache
def _data() -> dict:
    with numpy.load(PATH) as data:
        return dict(data)


def case(name: str) -> dict:
    """The arrays of case ``name``, keyed without the ``name.`` prefix."""
    prefix = f"{name}."
    found = {key[len(prefix) :]: value for key, value in _data().items() if key.startswith(prefix)}
    assert found, f"no case {name!r} in {PATH.name}: rerun tests/golden/make_nn_loss.py"
    return found


def params(name: str) -> dict:
    """Chainer's parameters of case ``name`` as an fnet params tree (nested by ``/`` in the names)."""
    tree: dict = {}
    for key, value in case(name).items():
        if key.startswith("param."):
            tree = toolz.assoc_in(tree, key[len("param.") :].split("/"), value)
    return tree


def assert_params_like_chainer(name: str, tree: dict) -> None:
    """The leaves of ``tree`` have Chainer's names (``path_str``) and shapes, in case ``name``."""
    arrays = case(name)
    paths = {fnet.tree.path_str(path): numpy.shape(leaf) for path, leaf in fnet.tree.flatten_with_paths(tree)}
    expected = {str(n): arrays[f"param.{n}"].shape for n in arrays["names"]}
    assert paths == expected


def assert_close(actual, expected) -> None:
    """``actual`` equals Chainer's ``expected`` in value and dtype, to the tolerance of the dtype."""
    expected = numpy.asarray(expected)
    actual = numpy.asarray(fnet.backend.to_cpu(actual))
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    rtol = RTOL.get(expected.dtype, 0)
    numpy.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * 1e-2)
