"""testing.BackendConfig and testing.inject_backend_tests."""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet.compat import testing
from fnet.compat.testing import attr

pytest_plugins = ["pytester"]

CPU_NAME = (
    "use_chainerx_false__chainerx_device_None__use_cuda_false__cuda_device_None__use_cudnn_never__"
    "cudnn_deterministic_false__autotune_false__cudnn_fast_batch_normalization_false__use_ideep_never"
)


def test_defaults_and_text():
    config = testing.BackendConfig({})
    assert (config.use_cuda, config.cuda_device, config.use_cudnn, config.use_ideep) == (
        False,
        None,
        "never",
        "never",
    )
    assert config.get_func_str() == CPU_NAME
    assert repr(config) == (
        "<BackendConfig use_chainerx=False chainerx_device=None use_cuda=False cuda_device=None "
        "use_cudnn='never' cudnn_deterministic=False autotune=False cudnn_fast_batch_normalization=False "
        "use_ideep='never'>"
    )
    assert config.xp is numpy and config.device == chainer.backend.CpuDevice() == fnet.backend.CPU
    assert config.get_pytest_marks() == []


def test_cuda_defaults_to_device_0():
    config = testing.BackendConfig({"use_cuda": True, "use_cudnn": "always"})
    assert config.cuda_device == 0
    assert "use_cuda_true__cuda_device_0__use_cudnn_always" in config.get_func_str()
    if fnet.backend.cupy_available():
        assert config.device == chainer.backend.GpuDevice.from_device_id(0)
    else:
        with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
            _ = config.device
    assert config.get_pytest_marks() == [attr.gpu, attr.cudnn]
    assert len(testing.BackendConfig({"use_cuda": True, "cuda_device": 2}).get_pytest_marks()) == 2


def test_get_array_sends_arrays_and_keeps_containers():
    config = testing.BackendConfig({})
    x = numpy.ones(2, numpy.float32)
    sent = config.get_array((x, None))
    assert type(sent) is tuple and sent[1] is None
    numpy.testing.assert_array_equal(sent[0], x)
    assert type(config.get_array([x])) is list


def test_within_the_block_the_configuration_is_set():
    config = testing.BackendConfig({"use_cudnn": "auto", "autotune": True})
    with config:
        assert (chainer.config.use_cudnn, chainer.config.autotune) == ("auto", True)
        assert chainer.config.use_ideep == "never"
        with config:  # reentrant
            assert chainer.config.autotune is True
        assert fnet.backend.current_device() == fnet.backend.CPU
    assert chainer.config.autotune is False


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ([("use_cuda", True)], TypeError, "params must be a dict, got list"),
        ({"use_gpu": True}, ValueError, "Parameter use_gpu is not defined"),
        ({"use_chainerx": True}, AssertionError, "'chainerx_device' parameter is expected to be a string"),
    ],
)
def test_bad_configurations(params, error, match):
    with pytest.raises(error, match=match):
        testing.BackendConfig(params)


def test_ideep_has_no_device_here():
    config = testing.BackendConfig({"use_ideep": "always"})
    assert config.get_pytest_marks() == [attr.ideep]
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        _ = config.device


def test_a_chainerx_configuration_runs_on_fnets_chainerx():
    from fnet.compat import backend, chainerx

    config = testing.BackendConfig({"use_chainerx": True, "chainerx_device": "native:1"})
    assert config.get_pytest_marks() == [attr.chainerx]
    assert config.device == backend.get_device("native:1") and config.xp is chainerx
    x = config.get_array(numpy.ones(2, numpy.float32))
    assert isinstance(x, chainerx.ndarray) and x.device.name == "native:1"
    with config:
        assert chainerx.get_default_device().name == "native:1"
    gpu = testing.BackendConfig({"use_chainerx": True, "chainerx_device": "cuda:1"})
    assert gpu.get_pytest_marks()[:2] == [attr.chainerx, attr.gpu]  # skipped without a GPU


@pytest.mark.parametrize(
    ("method_names", "params", "match"),
    [
        ("test_a", [{}], "method_names must be either None or a list"),
        (None, {}, "params must be a list of dicts"),
        (None, [{}, 1], "params must be a list of dicts"),
    ],
)
def test_bad_injection(method_names, params, match):
    with pytest.raises(TypeError, match=match):
        testing.inject_backend_tests(method_names, params)


def test_unknown_keys_are_reported_at_decoration():
    with pytest.raises(ValueError, match="Parameter cuda is not defined"):
        testing.inject_backend_tests(None, [{"cuda": True}])


INNER = """
import unittest
import numpy
from fnet.compat import testing

CONFIGS = [
    {},
    {'use_cuda': True},
    {'use_chainerx': True, 'chainerx_device': 'native:0'},
    {'use_ideep': 'always'},
]

@testing.inject_backend_tests(None, CONFIGS)
class TestUnit(unittest.TestCase):
    def test_device(self, backend_config):
        x = backend_config.get_array(numpy.ones(2))
        assert isinstance(x, backend_config.xp.ndarray)

@testing.inject_backend_tests(['test_with'], [{}])
class TestPlain:
    def test_with(self, backend_config, tmp_path):
        assert backend_config.device is not None and tmp_path.exists()

    def test_without(self):
        pass
"""


def test_injected_tests_under_pytest(pytester, monkeypatch):
    monkeypatch.setattr(attr, "_gpu_count", lambda: 0)
    pytester.makeini("[pytest]\nmarkers =\n    gpu: g\n    chainerx: x\n    ideep: i\n")
    pytester.makepyfile(test_inner=INNER)
    ids = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--collect-only", "-q").stdout.lines
    cpu = CPU_NAME
    cuda = cpu.replace("use_cuda_false__cuda_device_None", "use_cuda_true__cuda_device_0")
    chainerx = cpu.replace(
        "use_chainerx_false__chainerx_device_None", "use_chainerx_true__chainerx_device_native:0"
    )
    ideep = cpu.replace("use_ideep_never", "use_ideep_always")
    expected = [f"test_inner.py::TestUnit_{name}::test_device" for name in (cpu, cuda, chainerx, ideep)]
    # Chainer drops test_without (the class keeping it is rebound to what the decorator returns)
    expected += ["test_inner.py::TestPlain::test_without", f"test_inner.py::TestPlain_{cpu}::test_with"]
    assert [line for line in ids if "::" in line] == expected
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=4, skipped=2)
    result.stdout.fnmatch_lines(
        ["*needs CuPy and a CUDA device*", "*iDeep is not available in fnet*"], consecutive=False
    )
