"""Tests of fnet.compat.configuration: get_dtype, mixed16 and the dtype read from CHAINER_DTYPE."""

import contextlib
import io
import threading

import numpy
import pytest

import fnet
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


# -- enable_backprop: one switch, the tape's ---------------------------------------------------
def _recorded() -> bool:
    x = chainer.Variable(numpy.array([1.0], numpy.float32))
    return (x * 2).creator_node is not None


def _off_by_using_config():
    return chainer.using_config("enable_backprop", False)


@contextlib.contextmanager
def _off_by_assignment():
    chainer.config.enable_backprop = False
    try:
        yield
    finally:
        del chainer.config.enable_backprop


@pytest.mark.parametrize("off", [chainer.no_backprop_mode, _off_by_using_config, _off_by_assignment])
def test_every_way_of_turning_backprop_off_records_nothing(off):
    assert _recorded() and chainer.config.enable_backprop
    with off():
        assert not chainer.config.enable_backprop
        assert not _recorded()
        assert not fnet.autodiff.grad_enabled()  # the core's switch (fnet.no_grad) is the same
        with chainer.force_backprop_mode():
            assert chainer.config.enable_backprop and _recorded()
        with chainer.using_config("enable_backprop", True):
            assert _recorded()
        assert not _recorded()
    assert _recorded() and chainer.config.enable_backprop


def test_the_core_no_grad_turns_enable_backprop_off_too():
    with fnet.no_grad():
        assert not chainer.config.enable_backprop and not _recorded()
        with chainer.using_config("enable_backprop", True):
            assert _recorded()
        assert not _recorded()  # using_config restored the state of the no_grad block
    assert _recorded()


def test_a_grad_opened_inside_no_backprop_mode_still_differentiates():
    with chainer.no_backprop_mode():
        assert float(fnet.grad(lambda x: x * x)(3.0)) == 6.0


def test_global_enable_backprop_is_the_default_of_every_thread():
    seen = {}

    def work():
        seen["recorded"] = _recorded()
        with chainer.force_backprop_mode():
            seen["forced"] = _recorded()

    chainer.global_config.enable_backprop = False
    try:
        assert chainer.global_config.enable_backprop is False
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    finally:
        chainer.global_config.enable_backprop = True
    assert seen == {"recorded": False, "forced": True}
    assert _recorded() and chainer.global_config.enable_backprop is True


def test_show_lists_enable_backprop():
    out = io.StringIO()
    with chainer.no_backprop_mode():
        chainer.config.show(out)
    assert "enable_backprop" in out.getvalue() and "False" in out.getvalue().split("enable_backprop")[1]
