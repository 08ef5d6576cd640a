"""Backend-parameterized tests: ``BackendConfig`` and ``inject_backend_tests``.

``@inject_backend_tests(None, [{}, {'use_cuda': True}])`` makes one class per configuration,
named as Chainer names them (``TestFoo_use_chainerx_false__..._use_ideep_never``), whose test
methods receive the ``BackendConfig`` as their argument. Here the CPU runs NumPy, and
``{'use_cuda': True}`` runs CuPy on a GPU (marked ``gpu``, skipped without one),
``{'use_chainerx': True, 'chainerx_device': 'native:0'}`` runs on fnet's ChainerX (marked
``chainerx``; a ``cuda:N`` ChainerX device also ``gpu``), and iDeep configurations are marked and
skipped, as fnet has no iDeep. The devices are ``chainer.backend``'s.
"""

from __future__ import annotations

import functools
import inspect

from .. import backend, chainerx, configuration
from . import _bundle, attr

__all__ = ["BackendConfig", "inject_backend_tests"]

# The keys of a configuration and their defaults, in Chainer's order (the order of the names).
_PROPS = (
    ("use_chainerx", False),
    ("chainerx_device", None),
    ("use_cuda", False),
    ("cuda_device", None),
    ("use_cudnn", "never"),
    ("cudnn_deterministic", False),
    ("autotune", False),
    ("cudnn_fast_batch_normalization", False),
    ("use_ideep", "never"),
)

# The configuration keys that ``with backend_config:`` sets.
_CONFIG_KEYS = ("use_cudnn", "cudnn_deterministic", "autotune", "use_ideep")


class BackendConfig:
    """A backend to run a test on: the device (``device``, ``xp``), and the configuration set
    within ``with backend_config:`` (cuDNN use, autotuning, iDeep use), which also makes the
    device current.

    >>> config = BackendConfig({})
    >>> config.xp.__name__, config.device
    ('numpy', <CpuDevice (numpy)>)
    """

    def __init__(self, params: dict):
        if not isinstance(params, dict):
            raise TypeError(
                f"BackendConfig: params must be a dict, got {type(params).__name__}\n"
                "  hint: BackendConfig({'use_cuda': True})"
            )
        for key, default in _PROPS:
            setattr(self, key, default)
        for key, value in params.items():
            if key not in dict(_PROPS):
                raise ValueError(
                    f"BackendConfig: Parameter {key} is not defined; the parameters are "
                    f"{', '.join(k for k, _ in _PROPS)}"
                )
            setattr(self, key, value)
        if self.use_chainerx and not isinstance(self.chainerx_device, str):
            raise AssertionError(
                "BackendConfig: 'chainerx_device' parameter is expected to be a string representing a "
                f"ChainerX device specifier (like 'native:0'), got {self.chainerx_device!r}"
            )
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0
        self._device = None
        self._contexts: list = []

    @property
    def device(self) -> backend.Device:
        """The device the test's arrays live on (a ``chainer.backend`` device; making a GPU or
        iDeep device where there is none raises ``RuntimeError``)."""
        if self._device is None:
            if self.use_cuda:
                self._device = backend.GpuDevice.from_device_id(self.cuda_device)
            elif self.use_chainerx:
                self._device = backend.ChainerxDevice(chainerx.get_device(self.chainerx_device))
            elif self.use_ideep != "never":
                self._device = backend.Intel64Device()
            else:
                self._device = backend.CpuDevice()
        return self._device

    @property
    def xp(self):
        """The array module of the device (``numpy``, ``cupy`` or ``chainerx``)."""
        return self.device.xp

    def get_array(self, np_array):
        """``np_array`` (or each array in a list or tuple of them) sent to the device."""
        return self.device.send(np_array)

    def __enter__(self):
        contexts = [configuration.using_config(key, getattr(self, key)) for key in _CONFIG_KEYS]
        contexts.append(backend.using_device(self.device))
        for context in contexts:
            context.__enter__()
        self._contexts.append(contexts)
        return self

    def __exit__(self, *exc) -> None:
        for context in reversed(self._contexts.pop()):
            context.__exit__(*exc)

    def __repr__(self) -> str:
        return "<BackendConfig {}>".format(" ".join(f"{k}={getattr(self, k)!r}" for k, _ in _PROPS))

    def get_func_str(self) -> str:
        """The configuration as text for a test name: ``use_chainerx_false__..._use_ideep_never``."""

        def text(value) -> str:
            return "true" if value is True else "false" if value is False else str(value)

        return "__".join(f"{k}_{text(getattr(self, k))}" for k, _ in _PROPS)

    def get_pytest_marks(self) -> list:
        """The annotations (from ``testing.attr``) of the tests of this configuration."""
        if self.use_chainerx:
            marks = [attr.chainerx]
            kind, index = self.chainerx_device.split(":")
            if kind == "cuda":
                marks.append(attr.gpu)
                if int(index) >= 1:
                    marks.append(attr.multi_gpu(int(index) + 1))
            return marks
        if self.use_cuda:
            marks = [attr.gpu]
            if self.use_cudnn != "never":
                marks.append(attr.cudnn)
            if self.cuda_device >= 1:
                marks.append(attr.multi_gpu(self.cuda_device + 1))
            return marks
        return [attr.ideep] if self.use_ideep != "never" else []


def _without_first_argument(method, injected):
    """``injected``, showing ``method``'s signature less the argument it fills (so that pytest
    does not look for a fixture called ``backend_config``)."""
    signature = inspect.signature(method)
    parameters = list(signature.parameters.values())
    injected.__signature__ = signature.replace(parameters=parameters[:1] + parameters[2:])
    return injected


def _generate(base: type, method_names, params):
    if method_names is not None:
        # the base class keeps the tests that take no configuration
        yield base.__name__, {}, lambda method: None if method.__name__ in method_names else method

    for param in params:
        config = BackendConfig(param)
        marks = config.get_pytest_marks()

        def method_for(method, config=config, marks=marks):
            if method_names is not None and method.__name__ not in method_names:
                return None

            @functools.wraps(method)
            def with_config(self, *args, **kwargs):
                return method(self, config, *args, **kwargs)

            with_config = _without_first_argument(method, with_config)
            for mark in marks:
                with_config = mark(with_config)
            return with_config

        yield f"{base.__name__}_{config.get_func_str()}", {}, method_for


def inject_backend_tests(method_names: list | None, params: list):
    """A class decorator: one test class per backend configuration in ``params`` (dicts of
    ``BackendConfig`` keys); the test methods named in ``method_names`` (all ``test_*`` methods
    when None) receive the ``BackendConfig`` as their first argument.

    >>> import numpy, unittest
    >>> @inject_backend_tests(None, [{}, {'use_cuda': True}])
    ... class TestSum(unittest.TestCase):
    ...     def test_sum(self, backend_config):
    ...         x = backend_config.get_array(numpy.ones(3))
    ...         assert float(x.sum()) == 3
    """
    if not (method_names is None or isinstance(method_names, list)):
        raise TypeError(
            "inject_backend_tests: method_names must be either None or a list, "
            f"got {type(method_names).__name__}"
        )
    if not isinstance(params, list) or not all(isinstance(p, dict) for p in params):
        raise TypeError(
            "inject_backend_tests: params must be a list of dicts, like [{}, {'use_cuda': True}]; "
            f"got {params!r}"
        )
    for param in params:
        BackendConfig(param)  # bad keys are reported here, at decoration
    return _bundle.make_decorator(lambda base: _generate(base, method_names, params))
