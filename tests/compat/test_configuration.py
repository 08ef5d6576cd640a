"""Tests of fnet.compat.configuration: get_dtype, mixed16 and the dtype read from CHAINER_DTYPE."""

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.links as L
from fnet.compat import configuration


def test_get_dtype_resolves_config_dtype_and_mixed16():
    assert chainer.get_dtype() == numpy.float32
    assert chainer.get_dtype(numpy.float64) == numpy.float64
    assert repr(chainer.mixed16) == "dtype('mixed16')" and numpy.dtype(chainer.mixed16) == numpy.float16
    with chainer.using_config("dtype", chainer.mixed16):
        assert chainer.get_dtype() == numpy.float16
        assert chainer.get_dtype(map_mixed16=numpy.float32) == numpy.float32
        assert chainer.get_dtype(numpy.float64, map_mixed16=numpy.float32) == numpy.float64


@pytest.mark.parametrize("name", ["float16", "float64", "mixed16"])
def test_chainer_dtype_environment_variable(monkeypatch, name):
    monkeypatch.setenv("CHAINER_DTYPE", name)
    dtype = configuration._env_dtype()
    assert dtype is chainer.mixed16 if name == "mixed16" else dtype == numpy.dtype(name)


def test_a_bad_chainer_dtype_is_refused(monkeypatch):
    monkeypatch.setenv("CHAINER_DTYPE", "int32")
    with pytest.raises(TypeError, match="incorrect dtype name in CHAINER_DTYPE"):
        configuration._env_dtype()


def test_mixed16_links_keep_normalization_parameters_in_float32():
    with chainer.using_config("dtype", chainer.mixed16):
        linear = L.Linear(3, 2)
        bn = L.BatchNormalization(3)
        gn = L.GroupNormalization(1, 3)
    assert linear.W.dtype == numpy.float16
    assert bn.gamma.dtype == bn.avg_mean.dtype == gn.gamma.dtype == numpy.float32
    y = bn(numpy.ones((2, 3), numpy.float16))
    assert y.dtype == numpy.float16


def test_a_lazy_link_keeps_the_dtype_of_its_construction():
    with chainer.using_config("dtype", numpy.float16):
        link = L.Linear(3)
    assert link.W.dtype == numpy.float16  # not drawn yet: the dtype it will have
    link(numpy.ones((1, 2), numpy.float16))  # sized outside the block: still float16, as in Chainer
    assert link.W.array.dtype == numpy.float16
