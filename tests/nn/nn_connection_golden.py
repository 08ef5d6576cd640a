"""Access to ``tests/golden/nn_connection.npz``, written by ``tests/golden/make_nn_connection.py``
with Chainer 7.8.1, and the checks the connection-layer tests share.

A case ``c`` holds ``c/param/<name>`` (Chainer's ``namedparams`` names without the leading ``/``,
with the values it ran with), ``c/in/<i>``, ``c/out``, and for batch-normalized links
``c/state/<link>/<name>`` and ``c/out_test``; ``stats/<c>/<name>`` summarizes Chainer's default
initial values as ``(mean, std, min, max)``.
"""

from __future__ import annotations

import functools
import math
import pathlib

import numpy
import toolz

import fnet

PATH = pathlib.Path(__file__).parents[1] / "golden" / "nn_connection.npz"
RTOL = {numpy.dtype(numpy.float32): 1e-4, numpy.dtype(numpy.float64): 1e-5}


@functools.cache
def _data() -> dict:
    with numpy.load(PATH) as data:
        return dict(data)


def case(name: str) -> dict:
    """The arrays of case ``name``, keyed without the ``name/`` prefix."""
    prefix = f"{name}/"
    found = {key[len(prefix) :]: value for key, value in _data().items() if key.startswith(prefix)}
    assert found, f"no case {name!r} in {PATH.name}: rerun tests/golden/make_nn_connection.py"
    return found


def _tree(arrays: dict, prefix: str) -> dict:
    """The arrays whose keys start with ``prefix``, nested by the ``/`` of the rest of the key."""
    tree: dict = {}
    for key, value in arrays.items():
        if key.startswith(prefix):
            tree = toolz.assoc_in(tree, key[len(prefix) :].split("/"), value)
    return tree


def params(name: str) -> dict:
    """Chainer's parameters of case ``name`` as an fnet params tree."""
    return _tree(case(name), "param/")


def state(name: str) -> dict:
    """Chainer's persistent values of case ``name`` after its forward pass, as a state tree."""
    return _tree(case(name), "state/")


def inputs(name: str) -> list:
    """The inputs of case ``name``, in order."""
    arrays = case(name)
    return [arrays[f"in/{i}"] for i in range(sum(key.startswith("in/") for key in arrays))]


def shapes(tree) -> dict:
    """``{path_str: shape}`` of the leaves of a tree."""
    return {fnet.tree.path_str(path): numpy.shape(leaf) for path, leaf in fnet.tree.flatten_with_paths(tree)}


def assert_close(actual, expected) -> None:
    """``actual`` equals Chainer's ``expected`` in value and dtype, to the tolerance of the dtype."""
    expected = numpy.asarray(expected)
    actual = numpy.asarray(fnet.backend.to_cpu(actual))
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    rtol = RTOL.get(expected.dtype, 0)
    numpy.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * 1e-2)


def assert_tree_close(actual, expected) -> None:
    """Two trees with the same paths, whose leaves are ``assert_close``."""
    assert shapes(actual) == shapes(expected)
    fnet.tree.map(assert_close, actual, expected)


def assert_forward_is_chainers(name: str, layer, **kwargs) -> None:
    """``layer`` with Chainer's params of case ``name`` gives Chainer's output on its inputs."""
    assert_close(layer(params(name), *inputs(name), **kwargs), case(name)["out"])


def assert_init_like_chainer(name: str, layer, x=None) -> None:
    """``layer.init`` (given the example input ``x``) makes Chainer's parameter names and shapes."""
    made = layer.init(fnet.random.key(0)) if x is None else layer.init(fnet.random.key(0), x)
    assert shapes(made) == shapes(params(name))


def assert_defaults_like_chainer(name: str, layer, x=None) -> None:
    """The default initial params of ``layer`` are distributed as Chainer's in case ``stats/name``:
    constants equal, random ones with the same mean and standard deviation (up to sampling error)."""
    golden = _tree(_data(), f"stats/{name}/")
    made = layer.init(fnet.random.key(7)) if x is None else layer.init(fnet.random.key(7), x)
    assert set(shapes(made)) == set(shapes(golden))
    for path, value in fnet.tree.flatten_with_paths(made):
        mean, std, low, _ = toolz.get_in(path, golden)
        value = numpy.asarray(value, numpy.float64)
        where = fnet.tree.path_str(path)
        if std == 0:
            assert value.min() == value.max() == low, (where, value.min(), value.max(), low)
            continue
        n = value.size
        # Both summaries are estimates from n samples: allow 5 standard errors of their difference.
        assert abs(value.mean() - mean) <= 5 * std * math.sqrt(2 / n), (where, value.mean(), mean)
        assert abs(value.std() / std - 1) <= 5 / math.sqrt(n), (where, value.std(), std)
