"""``FunctionTestCase``, ``LinkTestCase`` and ``LinkInitializersTestCase``: Chainer's workflow
for testing a function or a link.

A test class says how to make inputs (``generate_inputs``), how to run the function or link on
Variables (``forward``) and what it should give (``forward_expected``, on NumPy arrays). The
base class then checks, for each backend configuration injected with
``testing.inject_backend_tests``, that the forward values match (and that the inputs were not
modified), that backward matches numerical gradients, and that double backward does too; the
gradient checks are ``fnet.compat.gradient_check``'s. Arrays reach the function
non-contiguous unless ``contiguous = 'C'``. A wrong implementation fails with
``FunctionTestError`` or ``LinkTestError``.
"""

from __future__ import annotations

import contextlib
import io
import unittest

import numpy

from .. import backend, gradient_check, initializers
from ..link import Link
from ..variable import Variable
from . import _util
from . import array as array_module

__all__ = [
    "FunctionTestError",
    "LinkTestError",
    "InitializerArgument",
    "FunctionTestBase",
    "FunctionTestCase",
    "LinkTestCase",
    "LinkInitializersTestCase",
]


class _TestError(AssertionError):
    """A test found the function or link under test implemented incorrectly."""

    @classmethod
    def check(cls, expr, message: str) -> None:
        """Fail with ``message`` unless ``expr`` holds."""
        if not expr:
            raise cls(message)

    @classmethod
    def fail(cls, message: str, exc: BaseException | None = None):
        """Raise this error with ``message`` (saying what ``exc`` was, when given)."""
        if exc is not None:
            _util.raise_wrapped(cls, message, exc)
        raise cls(message)

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(cls, message: str, error_types=AssertionError):
        """A context turning ``error_types`` raised within into this error, with ``message``."""
        try:
            yield
        except error_types as error:
            cls.fail(message, error)


class FunctionTestError(_TestError):
    """Raised by ``FunctionTestCase`` when the function under test is implemented incorrectly."""


class LinkTestError(_TestError):
    """Raised by ``LinkTestCase`` and ``LinkInitializersTestCase`` when the link under test is
    implemented incorrectly."""


_CPU = backend.CpuDevice()


def _is_initializer_like(init) -> bool:
    return (
        init is None or callable(init) or isinstance(init, backend.get_array_types()) or numpy.isscalar(init)
    )


def _check_initializer_like(init) -> None:
    if not _is_initializer_like(init):
        raise TypeError(
            f"Initializer is of wrong type: {type(init)}. Allowed types are Initializer, ndarray and scalar."
        )


class InitializerArgument:
    """An initializer argument given to a link's constructor (``argument_value``, e.g. None)
    together with the initializer the link should use for it (``expected_initializer``); for
    ``LinkInitializersTestCase.get_initializers``."""

    def __init__(self, argument_value, expected_initializer):
        if expected_initializer is None:
            raise ValueError(
                "InitializerArgument: the expected initializer cannot be None\n"
                "  hint: give the initializer the link falls back to, e.g. initializers.LeCunNormal()"
            )
        _check_initializer_like(expected_initializer)
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


def _format_array_props(arrays) -> str:
    return ", ".join("None" if a is None else f"{a.shape}:{a.dtype.name}" for a in arrays)


_TUPLE_HINT = "\n  hint: return a tuple, (y,) for a single output"


def _check_array_types(arrays, device, func_name: str) -> None:
    if not isinstance(arrays, tuple):
        raise TypeError(f"`{func_name}()` must return a tuple, not {type(arrays)}.{_TUPLE_HINT}")
    if not all(a is None or isinstance(a, device.supported_array_types) for a in arrays):
        raise TypeError(
            f"{func_name}() must return a tuple of arrays supported by device {device} or None.\n"
            f"Actual: {tuple(type(a) for a in arrays)}\n"
            "  hint: NumPy functions give scalars for 0-dimensional results: wrap them in numpy.asarray"
        )


def _check_variable_types(outputs, device, func_name: str, error: type[_TestError]) -> None:
    if not isinstance(outputs, tuple):
        error.fail(f"`{func_name}()` must return a tuple, not {type(outputs)}.{_TUPLE_HINT}")
    if not all(isinstance(v, Variable) for v in outputs):
        error.fail(
            f"{func_name}() must return a tuple of Variables.\n"
            f"Actual: {', '.join(str(type(v)) for v in outputs)}"
        )
    if not all(isinstance(v.array, device.supported_array_types) for v in outputs):
        error.fail(
            f"{func_name}() must return a tuple of Variables of arrays supported by device {device}.\n"
            f"Actual: {', '.join(str(type(v.array)) for v in outputs)}"
        )


def _mismatch(actual, expected, **options) -> tuple[str, str | None] | None:
    """What differs between the arrays ``actual`` and ``expected`` (a message and details), or None."""
    if len(actual) != len(expected):
        return f"Number of outputs ({len(actual)}, {len(expected)}) does not match", None
    if any(a.shape != e.shape or a.dtype != e.dtype for a, e in zip(actual, expected)):
        return "Shapes and/or dtypes do not match", None
    errors = []
    for i, (a, e) in enumerate(zip(actual, expected)):
        try:
            array_module.assert_allclose(a, e, **options)
        except AssertionError as error:
            errors.append((i, error))
    if not errors:
        return None
    message = (
        "Outputs do not match the expected values.\n"
        f"Indices of outputs that do not match: {', '.join(str(i) for i, _ in errors)}"
    )
    details = "".join(f"Error details of output [{i}]:\n{error}\n" for i, error in errors)
    return message, details


def _check_arrays_equal(actual, expected, error: type[_TestError], **options) -> None:
    found = _mismatch(actual, expected, **options)
    if found is None:
        return
    message, details = found
    text = (
        f"{message}\n"
        f"Expected shapes and dtypes: {_format_array_props(expected)}\n"
        f"Actual shapes and dtypes:   {_format_array_props(actual)}\n"
    )
    if details is not None:
        text += "\n\n" + details
    error.fail(text)


class _TestBase:
    """What the function and link test cases share: configuration, inputs, contiguity, and
    the forward check. ``_error`` is the error type a wrong implementation raises."""

    _error: type[_TestError] = FunctionTestError
    backend_config = None
    check_forward_options = None
    contiguous = None
    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64

    def before_test(self, test_name: str) -> None:
        """Called before each test (``test_name`` is ``'test_forward'``, ...); raise
        ``unittest.SkipTest`` here to skip some combinations."""

    def generate_inputs(self) -> tuple:
        """The inputs: a tuple of NumPy arrays. Every test case must define it."""
        raise TypeError(
            f"{type(self).__name__} must define generate_inputs(self), returning a tuple of arrays"
        )

    def check_forward_outputs(self, outputs: tuple, expected_outputs: tuple) -> None:
        """Check the forward outputs (arrays) against the expected ones (NumPy arrays); extend
        it for more checks."""
        for name, arrays in (("outputs", outputs), ("expected_outputs", expected_outputs)):
            if not isinstance(arrays, tuple) or not all(
                isinstance(a, backend.get_array_types()) for a in arrays
            ):
                raise TypeError(f"check_forward_outputs: {name} must be a tuple of arrays, got {arrays!r}")
        _check_arrays_equal(outputs, expected_outputs, self._error, **self.check_forward_options)

    def _start(self, test_name: str, backend_config) -> None:
        if backend_config is None:
            raise TypeError(
                f"{type(self).__name__}.{test_name} needs a backend_config\n"
                "  hint: decorate the class with testing.inject_backend_tests(None, [{}])"
            )
        self.backend_config = backend_config
        self.test_name = test_name
        self.before_test(test_name)

    def _to_noncontiguous_as_needed(self, arrays):
        if self.contiguous is None:
            return array_module._as_noncontiguous_array(arrays)
        if self.contiguous == "C":
            return arrays
        raise ValueError(f"{type(self).__name__}: contiguous must be None or 'C', got {self.contiguous!r}")

    def _generate_inputs(self) -> tuple:
        inputs = self.generate_inputs()
        _check_array_types(inputs, _CPU, "generate_inputs")
        return inputs

    def _generate_grads(self, method, templates, name: str) -> tuple:
        grads = method(templates)
        _check_array_types(grads, _CPU, name)
        return grads

    def _dodging(self, check) -> None:
        """Run ``check``; with ``dodge_nondifferentiable``, again with new data until it meets no
        non-differentiable point."""
        if not self.dodge_nondifferentiable:
            check()
            return
        nondifferentiable = gradient_check.NondifferentiableError
        while True:
            try:
                check()
                return
            except nondifferentiable:
                continue


def _random_like(templates) -> tuple:
    return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype) for a in templates)


class FunctionTestBase(_TestBase):
    """The checks of :class:`FunctionTestCase` without its test methods (Chainer's mixin, for
    test classes that call ``run_test_forward`` and the others themselves)."""

    _error = FunctionTestError
    check_backward_options = None
    check_double_backward_options = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}
        self.check_double_backward_options = {}

    def forward(self, inputs: tuple, device) -> tuple:
        """The function under test on ``inputs`` (Variables on ``device``): a tuple of Variables."""
        raise TypeError(f"{type(self).__name__} must define forward(self, inputs, device)")

    def forward_expected(self, inputs: tuple) -> tuple:
        """What ``forward`` should give on ``inputs`` (NumPy arrays): a tuple of NumPy arrays."""
        raise TypeError(f"{type(self).__name__} must define forward_expected(self, inputs)")

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Gradients of the outputs for the backward tests (uniform in [-1, 1] by default)."""
        return _random_like(outputs_template)

    def generate_grad_grad_inputs(self, inputs_template: tuple) -> tuple:
        """Second-order gradients of the inputs for the double backward test."""
        return _random_like(inputs_template)

    def _forward_expected(self, inputs) -> tuple:
        outputs = self.forward_expected(inputs)
        _check_array_types(outputs, _CPU, "forward_expected")
        return outputs

    def _forward(self, inputs, backend_config) -> tuple:
        with backend_config:
            outputs = self.forward(inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, "forward", FunctionTestError)
        return outputs

    def run_test_forward(self, backend_config) -> None:
        """Check ``forward`` against ``forward_expected``, and that it left its inputs alone."""
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        self._start("test_forward", backend_config)
        cpu_inputs = self._to_noncontiguous_as_needed(self._generate_inputs())
        originals = [None if a is None else a.copy() for a in cpu_inputs]
        expected = self._forward_expected(cpu_inputs)
        inputs = self._to_noncontiguous_as_needed(backend_config.get_array(cpu_inputs))
        outputs = self._forward(
            tuple(Variable(a, requires_grad=a.dtype.kind == "f") for a in inputs), backend_config
        )
        _check_inputs_unchanged(originals, inputs)
        self.check_forward_outputs(tuple(v.array for v in outputs), expected)

    def run_test_backward(self, backend_config) -> None:
        """Check the gradients of ``forward`` against numerical ones."""
        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self._start("test_backward", backend_config)

        def check():
            inputs = self._generate_inputs()
            grad_outputs = self._generate_grads(
                self.generate_grad_outputs, self._forward_expected(inputs), "generate_grad_outputs"
            )
            inputs = self._to_noncontiguous_as_needed(backend_config.get_array(inputs))
            grad_outputs = self._to_noncontiguous_as_needed(backend_config.get_array(grad_outputs))
            with FunctionTestError.raise_if_fail("backward is not implemented correctly"):
                gradient_check.check_backward(
                    lambda *xs: self._forward(xs, backend_config),
                    inputs,
                    grad_outputs,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options,
                )

        self._dodging(check)

    def run_test_double_backward(self, backend_config) -> None:
        """Check the second-order gradients of ``forward`` against numerical ones."""
        if self.skip_double_backward_test:
            raise unittest.SkipTest("skip_double_backward_test is set")
        self._start("test_double_backward", backend_config)

        def check():
            inputs = self._generate_inputs()
            grad_outputs = self._generate_grads(
                self.generate_grad_outputs, self._forward_expected(inputs), "generate_grad_outputs"
            )
            grad_grad_inputs = self._generate_grads(
                self.generate_grad_grad_inputs, inputs, "generate_grad_grad_inputs"
            )
            # integer inputs have no gradient: drop theirs (None stays, for an omitted one)
            grad_grad_inputs = tuple(g for g in grad_grad_inputs if g is None or g.dtype.kind == "f")
            inputs, grad_outputs, grad_grad_inputs = (
                self._to_noncontiguous_as_needed(backend_config.get_array(arrays))
                for arrays in (inputs, grad_outputs, grad_grad_inputs)
            )
            with (
                backend_config,
                FunctionTestError.raise_if_fail("double backward is not implemented correctly"),
            ):
                gradient_check.check_double_backward(
                    lambda *xs: self._forward(xs, backend_config),
                    inputs,
                    grad_outputs,
                    grad_grad_inputs,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_double_backward_options,
                )

        self._dodging(check)


class FunctionTestCase(FunctionTestBase, unittest.TestCase):
    """A base class testing a function's forward, backward and double backward.

    Define ``generate_inputs(self)`` (a tuple of NumPy arrays), ``forward(self, inputs,
    device)`` (``inputs`` a tuple of Variables; return a tuple of Variables) and
    ``forward_expected(self, inputs)`` (``inputs`` NumPy arrays; return a tuple of NumPy
    arrays), and decorate the class with ``testing.inject_backend_tests``.

    Optional: ``before_test(test_name)``, ``generate_grad_outputs(outputs_template)`` and
    ``generate_grad_grad_inputs(inputs_template)`` (tuples of arrays, None for an omitted
    gradient), ``check_forward_outputs(outputs, expected_outputs)``. Attributes:
    ``skip_forward_test``, ``skip_backward_test``, ``skip_double_backward_test``,
    ``dodge_nondifferentiable`` (draw new inputs while they fall on a non-differentiable
    point), ``numerical_grad_dtype`` (float64), ``contiguous`` (None: non-contiguous arrays,
    or ``'C'``), and the option dicts ``check_forward_options`` (for ``assert_allclose``),
    ``check_backward_options`` and ``check_double_backward_options`` (for
    ``gradient_check``). ``backend_config`` and ``test_name`` are set while a test runs.

    >>> import numpy
    >>> from fnet.compat import functions as F
    >>> class ReluTest(FunctionTestCase):
    ...     dodge_nondifferentiable = True
    ...     def generate_inputs(self):
    ...         return numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32),
    ...     def forward(self, inputs, device):
    ...         return F.relu(inputs[0]),
    ...     def forward_expected(self, inputs):
    ...         return numpy.maximum(inputs[0], 0),
    """

    def test_forward(self, backend_config=None) -> None:
        """Tests forward computation."""
        self.run_test_forward(backend_config)

    def test_backward(self, backend_config=None) -> None:
        """Tests backward computation."""
        self.run_test_backward(backend_config)

    def test_double_backward(self, backend_config=None) -> None:
        """Tests double-backward computation."""
        self.run_test_double_backward(backend_config)


def _check_inputs_unchanged(originals, inputs) -> None:
    changed = []
    for i, (original, now) in enumerate(zip(originals, inputs)):
        try:
            array_module.assert_allclose(original, now, atol=0, rtol=0)
        except AssertionError:
            changed.append(i)
    if not changed:
        return
    f = io.StringIO()
    f.write(
        "Input arrays have been modified during forward.\n"
        f"Indices of modified inputs: {', '.join(map(str, changed))}\n"
        f"Input array shapes and dtypes: {_format_array_props(inputs)}\n"
    )
    for i in changed:
        f.write(f"\nInput[{i}]:\nOriginal:\n{originals[i]}\nAfter forward:\n{inputs[i]}\n")
    FunctionTestError.fail(f.getvalue())


def _argument_value(init):
    """What to pass to the link's constructor for ``init``."""
    return init.argument_value if isinstance(init, InitializerArgument) else init


def _check_generated_initializer(init) -> None:
    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    elif init is None:
        raise ValueError(
            "A None initializer must be wrapped in a InitializerArgument along with the expected "
            "initializer fallen back to.\n  hint: InitializerArgument(None, initializers.LeCunNormal())"
        )
    _check_initializer_like(init)


def _link_params(link, param_names) -> list:
    params = []
    for name in param_names:
        param = getattr(link, name, None)
        if param is None:
            LinkTestError.fail(f"Link does not have a parameter named '{name}'.")
        params.append(param)
    return params


class _LinkTestBase(_TestBase):
    """What the link test cases share: making, initializing and running the link."""

    _error = LinkTestError
    param_names: tuple = ()

    def generate_params(self) -> tuple:
        """The initializer-likes to build the link with (one per initializer argument)."""
        raise TypeError(f"{type(self).__name__} must define generate_params(self)")

    def create_link(self, initializers) -> object:
        """The link under test, built with the initializer-likes ``initializers``."""
        raise TypeError(f"{type(self).__name__} must define create_link(self, initializers)")

    def forward(self, link, inputs: tuple, device) -> tuple:
        """The link on ``inputs`` (Variables): by default ``link(*inputs)``, as a tuple."""
        outputs = link(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def _generate_params(self):
        inits = self.generate_params()
        if not isinstance(inits, (tuple, list)):
            raise TypeError("`generate_params` must return a tuple or a list.")
        for init in inits:
            _check_generated_initializer(init)
        return inits

    def _create_link(self, inits, backend_config):
        link = self.create_link([_argument_value(i) for i in inits])
        if not isinstance(link, Link):
            raise TypeError(f"`create_link` must return a chainer.Link object, got {type(link).__name__}.")
        link.to_device(backend_config.device)
        return link

    def _forward(self, link, inputs, backend_config) -> tuple:
        with backend_config:
            outputs = self.forward(link, inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, "forward", LinkTestError)
        return outputs

    def _create_initialized_link(self, inits, backend_config):
        """A link made from ``inits`` that has run forward once (so that lazily shaped
        parameters exist), with its inputs and outputs on the device."""
        link = self._create_link(inits, backend_config)
        inputs = self._to_noncontiguous_as_needed(backend_config.get_array(self._generate_inputs()))
        outputs = self._forward(link, tuple(Variable(x) for x in inputs), backend_config)
        link.cleargrads()
        return link, inputs, [v.array for v in outputs]


class LinkTestCase(_LinkTestBase, unittest.TestCase):
    """A base class testing a link's forward and backward.

    Define ``generate_params(self)`` (a tuple of initializer-likes, one per initializer
    argument of the link), ``create_link(self, initializers)``, ``generate_inputs(self)`` (a
    tuple of NumPy arrays) and ``forward_expected(self, link, inputs)`` (on the link moved to
    the CPU and NumPy inputs: a tuple of NumPy arrays), list the parameters to check in
    ``param_names`` (e.g. ``('W', 'b')``), and decorate the class with
    ``testing.inject_backend_tests``. ``forward(self, link, inputs, device)`` defaults to
    ``link(*inputs)``.

    Optional: ``before_test(test_name)``, ``generate_grad_outputs(outputs_template)``,
    ``check_forward_outputs(outputs, expected_outputs)``; attributes ``skip_forward_test``,
    ``skip_backward_test``, ``dodge_nondifferentiable``, ``numerical_grad_dtype``,
    ``contiguous``, ``check_forward_options`` and ``check_backward_options``.

    >>> import numpy
    >>> import fnet.compat.links as L
    >>> class LinearTest(LinkTestCase):
    ...     param_names = ('W', 'b')
    ...     def generate_params(self):
    ...         return (numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32),
    ...                 numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32))
    ...     def create_link(self, initializers):
    ...         initialW, initial_bias = initializers
    ...         return L.Linear(2, 3, initialW=initialW, initial_bias=initial_bias)
    ...     def generate_inputs(self):
    ...         return numpy.random.uniform(-1, 1, (1, 2)).astype(numpy.float32),
    ...     def forward_expected(self, link, inputs):
    ...         return inputs[0].dot(link.W.array.T) + link.b.array,
    """

    check_backward_options = None
    skip_forward_test = False
    skip_backward_test = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}

    def forward_expected(self, link, inputs: tuple) -> tuple:
        """What the link (on the CPU) should give on ``inputs`` (NumPy arrays)."""
        raise TypeError(f"{type(self).__name__} must define forward_expected(self, link, inputs)")

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Gradients of the outputs for the backward test (uniform in [-1, 1] by default)."""
        return _random_like(outputs_template)

    def test_forward(self, backend_config=None) -> None:
        """Tests forward computation."""
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        self._start("test_forward", backend_config)
        link = self._create_link(self._generate_params(), backend_config)
        cpu_inputs = self._generate_inputs()
        inputs = self._to_noncontiguous_as_needed(backend_config.get_array(cpu_inputs))
        outputs = self._forward(link, tuple(Variable(x) for x in inputs), backend_config)
        link.to_device(_CPU)  # the expected values are computed on the CPU
        expected = self.forward_expected(link, cpu_inputs)
        _check_array_types(expected, _CPU, "forward_expected")
        self.check_forward_outputs(tuple(v.array for v in outputs), expected)

    def test_backward(self, backend_config=None) -> None:
        """Tests backward computation (of the inputs and of the parameters in ``param_names``)."""
        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self._start("test_backward", backend_config)

        def check():
            link, inputs, outputs = self._create_initialized_link(self._generate_params(), backend_config)
            params = _link_params(link, self.param_names)
            for param in params:
                param.array = self._to_noncontiguous_as_needed(param.array)
            grad_outputs = self._generate_grads(
                self.generate_grad_outputs,
                tuple(_CPU.send(y) for y in outputs),
                "generate_grad_outputs",
            )
            grad_outputs = self._to_noncontiguous_as_needed(backend_config.get_array(grad_outputs))
            with LinkTestError.raise_if_fail("backward is not implemented correctly"):
                gradient_check.check_backward(
                    lambda *xs: self._forward(link, xs, backend_config),
                    inputs,
                    grad_outputs,
                    params=params,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options,
                )

        self._dodging(check)


class LinkInitializersTestCase(_LinkTestBase, unittest.TestCase):
    """A base class testing that a link initializes its parameters from the initializers given.

    Define ``generate_params``, ``create_link``, ``generate_inputs`` and ``param_names`` as for
    ``LinkTestCase``, and ``get_initializers(self)``: for each initializer argument, a list of
    the initializer-likes to try (each tried in turn while the others come from
    ``generate_params``; deterministic ones, as the expected values are drawn again). Give an
    argument the link replaces (such as None) as ``InitializerArgument(None, expected)``.
    ``check_initializers_options`` holds options for ``assert_allclose``.
    """

    check_initializers_options = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.check_initializers_options = {}

    def get_initializers(self) -> tuple:
        """Per initializer argument, the initializer-likes to test."""
        raise TypeError(f"{type(self).__name__} must define get_initializers(self)")

    def _get_initializers(self):
        candidates = self.get_initializers()
        if not isinstance(candidates, (tuple, list)) or not all(
            isinstance(c, (tuple, list)) for c in candidates
        ):
            raise TypeError("`get_initializers` must return a tuple or a list of tuples or lists.")
        for group in candidates:
            for init in group:
                _check_generated_initializer(init)
        return candidates

    def test_initializers(self, backend_config=None) -> None:
        """Tests that the parameters of a links are correctly initialized."""
        self._start("test_initializers", backend_config)
        for index, candidates in enumerate(self._get_initializers()):
            for init in candidates:
                inits = list(self._generate_params())
                inits[index] = init
                self._check_initializer(index, inits, backend_config)

    def _check_initializer(self, index: int, inits: list, backend_config) -> None:
        link, _, _ = self._create_initialized_link(inits, backend_config)
        actual = _CPU.send(_link_params(link, self.param_names)[index].array)
        expected_init = inits[index]
        if isinstance(expected_init, InitializerArgument):
            expected_init = expected_init.expected_initializer
        expected = initializers.generate_array(expected_init, actual.shape, numpy, dtype=actual.dtype)
        _check_arrays_equal((expected,), (actual,), LinkTestError, **self.check_initializers_options)
