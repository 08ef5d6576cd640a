"""FunctionTestCase, LinkTestCase and LinkInitializersTestCase: correct implementations pass, wrong
ones fail with FunctionTestError / LinkTestError."""

from __future__ import annotations

import unittest

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat import initializers, testing
from fnet.compat import links as L

CPU = [{}]


def uniform(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


# -- functions that pass ---------------------------------------------------------------------------
@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "dtype": [numpy.float32, numpy.float64]}))
@testing.inject_backend_tests(None, CPU + [{"use_cuda": True}])
class TestTanh(testing.FunctionTestCase):
    def generate_inputs(self):
        return (uniform(*self.shape, dtype=self.dtype),)

    def forward(self, inputs, device):
        return (F.tanh(inputs[0]),)

    def forward_expected(self, inputs):
        return (numpy.asarray(numpy.tanh(inputs[0])),)


@testing.inject_backend_tests(None, CPU)
class TestLinear(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        return uniform(4, 3), uniform(2, 3), uniform(2)

    def forward(self, inputs, device):
        return (F.linear(*inputs),)

    def forward_expected(self, inputs):
        x, W, b = inputs
        return (x.dot(W.T) + b,)


@testing.inject_backend_tests(None, CPU)
class TestRelu(testing.FunctionTestCase):
    """ReLU has a kink at 0: inputs are drawn again while they fall too close to it."""

    dodge_nondifferentiable = True

    def generate_inputs(self):
        return (uniform(3, 4),)

    def forward(self, inputs, device):
        return (F.relu(inputs[0]),)

    def forward_expected(self, inputs):
        return (numpy.maximum(inputs[0], 0),)


@testing.inject_backend_tests(None, CPU)
class TestTwoOutputsWithIntegers(testing.FunctionTestCase):
    """Integer inputs get no gradient; an omitted output gradient is None."""

    contiguous = "C"

    def generate_inputs(self):
        return uniform(5), numpy.array([0, 2, 4], numpy.int32)

    def forward(self, inputs, device):
        x, index = inputs
        return F.get_item(x, index.array) * 2, F.sum(x * x, axis=0, keepdims=True)

    def forward_expected(self, inputs):
        x, index = inputs
        return x[index] * 2, (x * x).sum(keepdims=True)

    def generate_grad_outputs(self, outputs_template):
        return None, uniform(1)


# -- the checks find wrong implementations ---------------------------------------------------------
class Scale(chainer.FunctionNode):
    """y = 2x, with a forward or a backward made wrong on request, or one that modifies its input."""

    def __init__(self, wrong: str = ""):
        self.wrong = wrong

    def forward(self, inputs):
        (x,) = inputs
        y = 2 * x
        if self.wrong == "forward":
            y = y + 1
        if self.wrong == "input":
            x *= 3
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (gy * (3 if self.wrong == "backward" else 2),)


def scale_case(wrong: str = "", **members):
    def generate_inputs(self):
        return (uniform(3),)

    def forward(self, inputs, device):
        return Scale(wrong).apply(inputs)

    def forward_expected(self, inputs):
        return (2 * inputs[0],)

    namespace = {"generate_inputs": generate_inputs, "forward": forward, "forward_expected": forward_expected}
    return type("ScaleTest", (testing.FunctionTestCase,), {**namespace, **members})


def run(case: type, method: str):
    """Run ``case.method`` on the CPU configuration."""
    getattr(case(method), method)(testing.BackendConfig({}))


def test_a_correct_function_passes():
    for method in ("test_forward", "test_backward", "test_double_backward"):
        run(scale_case(), method)


def test_a_wrong_forward_fails():
    with pytest.raises(
        testing.FunctionTestError,
        match=r"(?s)Outputs do not match the expected values.\nIndices of outputs that do not match: 0\n"
        r"Expected shapes and dtypes: \(3,\):float32\nActual shapes and dtypes:   \(3,\):float32\n.*"
        r"Error details of output \[0\]:.*assert_allclose failed",
    ):
        run(scale_case("forward"), "test_forward")


def test_a_wrong_backward_fails():
    with pytest.raises(
        testing.FunctionTestError, match=r"(?s)backward is not implemented correctly.*check_backward failed"
    ):
        run(scale_case("backward"), "test_backward")


def test_a_wrong_double_backward_fails():
    def forward(self, inputs, device):
        return (F.tanh(inputs[0]) * Scale("backward").apply(inputs)[0],)

    def forward_expected(self, inputs):
        return (numpy.tanh(inputs[0]) * 2 * inputs[0],)

    case = scale_case(forward=forward, forward_expected=forward_expected)
    with pytest.raises(testing.FunctionTestError, match="double backward is not implemented correctly"):
        run(case, "test_double_backward")


def test_modifying_an_input_fails():
    with pytest.raises(
        testing.FunctionTestError,
        match=r"(?s)Input arrays have been modified during forward.\nIndices of modified inputs: 0",
    ):
        run(scale_case("input"), "test_forward")


def test_wrong_output_kinds_are_named():
    def forward(self, inputs, device):
        return F.tanh(inputs[0])  # not a tuple

    with pytest.raises(testing.FunctionTestError, match=r"`forward\(\)` must return a tuple"):
        run(scale_case(forward=forward), "test_forward")

    def forward_expected(self, inputs):
        return ([0.0],)

    with pytest.raises(TypeError, match=r"forward_expected\(\) must return a tuple of arrays"):
        run(scale_case(forward_expected=forward_expected), "test_forward")


def test_wrong_shapes_and_output_counts():
    def forward_expected(self, inputs):
        return (2 * inputs[0][:2],)

    with pytest.raises(testing.FunctionTestError, match="Shapes and/or dtypes do not match"):
        run(scale_case(forward_expected=forward_expected), "test_forward")

    def two_expected(self, inputs):
        return 2 * inputs[0], 2 * inputs[0]

    with pytest.raises(testing.FunctionTestError, match=r"Number of outputs \(1, 2\) does not match"):
        run(scale_case(forward_expected=two_expected), "test_forward")


@pytest.mark.parametrize("test", ["test_forward", "test_backward", "test_double_backward"])
def test_skip_flags(test):
    flag = "skip" + test[len("test") :] + "_test"
    with pytest.raises(unittest.SkipTest, match=f"{flag} is set"):
        run(scale_case(**{flag: True}), test)


def test_before_test_sees_the_test_name_and_config():
    seen = []

    def before_test(self, test_name):
        seen.append((test_name, self.test_name, self.backend_config.use_cuda))
        if test_name == "test_backward":
            raise unittest.SkipTest("not this one")

    case = scale_case(before_test=before_test)
    run(case, "test_forward")
    with pytest.raises(unittest.SkipTest):
        run(case, "test_backward")
    assert seen == [("test_forward", "test_forward", False), ("test_backward", "test_backward", False)]


def test_inputs_are_non_contiguous_unless_asked():
    seen = []

    def forward(self, inputs, device):
        seen.append(inputs[0].array.flags.c_contiguous)
        return (2 * inputs[0],)

    run(scale_case(forward=forward), "test_forward")
    run(scale_case(forward=forward, contiguous="C"), "test_forward")
    assert seen == [False, True]
    with pytest.raises(ValueError, match="contiguous must be None or 'C', got 'F'"):
        run(scale_case(contiguous="F"), "test_forward")


def test_without_inject_backend_tests_the_error_says_so():
    with pytest.raises(
        TypeError,
        match=r"needs a backend_config\n  hint: decorate the class with testing.inject_backend_tests",
    ):
        scale_case()("test_forward").test_forward()


# -- links ------------------------------------------------------------------------------------------
class LinearSetup:
    """What the link test cases of L.Linear share."""

    param_names = ("W", "b")

    def generate_params(self):
        return uniform(3, 2), uniform(3)

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return L.Linear(2, 3, initialW=initialW, initial_bias=initial_bias)

    def generate_inputs(self):
        return (uniform(4, 2),)

    def forward_expected(self, link, inputs):
        return (inputs[0].dot(link.W.array.T) + link.b.array,)

    def get_initializers(self):
        return (
            [initializers.Constant(1), 2, numpy.full((3, 2), 0.5, numpy.float32)],
            [initializers.Constant(2), 3, testing.InitializerArgument(None, 0)],
        )


@testing.inject_backend_tests(None, CPU + [{"use_cuda": True}])
class TestLinearLink(LinearSetup, testing.LinkTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}


@testing.inject_backend_tests(None, CPU)
class TestLinearInitializers(LinearSetup, testing.LinkInitializersTestCase):
    pass


class LazyLinearSetup(LinearSetup):
    """L.Linear with in_size=None: its parameters exist after the first forward."""

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return L.Linear(None, 3, initialW=initialW, initial_bias=initial_bias)


@testing.inject_backend_tests(None, CPU)
class TestLazyLinear(LazyLinearSetup, testing.LinkTestCase):
    def generate_params(self):
        return initializers.Uniform(1.0), initializers.Uniform(1.0)


def test_lazy_link_with_array_initializers():
    run(type("LazyTest", (LazyLinearSetup, testing.LinkTestCase), {}), "test_forward")


class WrongLinear(L.Linear):
    """Linear with a wrong forward, a wrong backward (of the input or of W), or wrong init."""

    def __init__(self, wrong: str, *args, **kwargs):
        if wrong == "init":
            kwargs["initialW"] = initializers.Constant(0)
        super().__init__(*args, **kwargs)
        self.wrong = wrong

    def forward(self, x):
        if self.wrong == "forward":
            return super().forward(x) + 1
        if self.wrong == "grad_x":
            x = Scale("backward").apply((x,))[0] / 2
        if self.wrong == "grad_W":
            return F.linear(x, Scale("backward").apply((self.W,))[0] / 2, self.b)
        return super().forward(x)


def link_case(base: type, wrong: str):
    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return WrongLinear(wrong, 2, 3, initialW=initialW, initial_bias=initial_bias)

    return type("WrongLinearTest", (LinearSetup, base), {"create_link": create_link})


@pytest.mark.parametrize(
    ("base", "wrong", "test", "match"),
    [
        (testing.LinkTestCase, "forward", "test_forward", "Outputs do not match the expected values"),
        (testing.LinkTestCase, "grad_x", "test_backward", "backward is not implemented correctly"),
        (testing.LinkTestCase, "grad_W", "test_backward", "backward is not implemented correctly"),
        (
            testing.LinkInitializersTestCase,
            "init",
            "test_initializers",
            "Outputs do not match the expected values",
        ),
    ],
)
def test_wrong_links_fail(base, wrong, test, match):
    with pytest.raises(testing.LinkTestError, match=match):
        run(link_case(base, wrong), test)


def test_a_correct_link_case_built_the_same_way_passes():
    for test in ("test_forward", "test_backward"):
        run(link_case(testing.LinkTestCase, ""), test)


def test_link_cases_check_what_they_are_given():
    def create_link(self, initializers):
        return numpy.array([1])

    case = type("NotALink", (LinearSetup, testing.LinkTestCase), {"create_link": create_link})
    with pytest.raises(TypeError, match="`create_link` must return a chainer.Link object"):
        run(case, "test_forward")

    def generate_params(self):
        return (chainer.Variable(numpy.ones(1, numpy.float32)), None)

    case = type("BadParams", (LinearSetup, testing.LinkTestCase), {"generate_params": generate_params})
    with pytest.raises(TypeError, match="Initializer is of wrong type"):
        run(case, "test_forward")

    case = type("BadName", (LinearSetup, testing.LinkTestCase), {"param_names": ("W", "c")})
    with pytest.raises(testing.LinkTestError, match="Link does not have a parameter named 'c'"):
        run(case, "test_backward")


def test_initializer_argument_needs_an_expected_initializer():
    with pytest.raises(ValueError, match="the expected initializer cannot be None"):
        testing.InitializerArgument(None, None)
    with pytest.raises(TypeError, match="Initializer is of wrong type"):
        testing.InitializerArgument(None, object())


def test_function_test_base_is_the_mixin_of_function_test_case():
    import unittest

    from fnet.compat.testing import function_link

    assert issubclass(function_link.FunctionTestCase, function_link.FunctionTestBase)
    assert not issubclass(function_link.FunctionTestBase, unittest.TestCase)
    assert not any(name.startswith("test_") for name in vars(function_link.FunctionTestBase))

    class Exp(function_link.FunctionTestBase):  # a mixin, run by hand as ChainerX's OpTest does
        def generate_inputs(self):
            return (numpy.linspace(-1, 1, 6, dtype=numpy.float64).reshape(2, 3),)

        def forward(self, inputs, device):
            return (F.exp(inputs[0]),)

        def forward_expected(self, inputs):
            return (numpy.exp(inputs[0]),)

    case = Exp()
    case.run_test_forward(chainer.testing.BackendConfig({}))
    case.run_test_backward(chainer.testing.BackendConfig({}))
