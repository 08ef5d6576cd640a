"""chainer.utils.type_check: the guide's "Type Checks" examples and messages compared with Chainer 7.8.1's."""

import json
import pathlib
import pickle
import threading

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat.utils import type_check as T
from fnet.errors import FnetError, InvalidInputError

GOLDEN = json.loads((pathlib.Path(__file__).parents[2] / "golden" / "compat_utils.json").read_text())


class Check(chainer.FunctionNode):
    """A node whose ``check_type_forward`` runs ``source`` (``T``, ``np`` and ``t`` = in_types)."""

    def __init__(self, source):
        self.source = source

    def check_type_forward(self, in_types):
        exec(self.source, {"T": T, "np": numpy, "t": in_types})

    def forward(self, inputs):
        return (inputs[0],)


def message_of(call):
    try:
        call()
    except T.InvalidType as error:
        return str(error)
    return None


@pytest.mark.parametrize("source, inputs, expected", GOLDEN["checks"], ids=[c[0] for c in GOLDEN["checks"]])
def test_messages_match_chainer(source, inputs, expected):
    arrays = [numpy.zeros(shape, dtype) for shape, dtype in inputs]
    assert message_of(lambda: Check(source).apply(arrays)) == expected
    check = Check(source).check_type_forward
    assert message_of(lambda: T.check_forward_types(check, arrays, "Check")) == expected


@pytest.mark.parametrize(
    "source, text, value", GOLDEN["expressions"], ids=[e[0] for e in GOLDEN["expressions"]]
)
def test_expression_text_and_value_match_chainer(source, text, value):
    names = {"x": T.Variable(5, "x"), "y": T.Variable(2, "y"), "s": T.Variable((3, 4), "s")}
    expr = eval(source, {}, names)
    shown = str(T.Constant(expr)) if isinstance(expr, (tuple, list)) else str(expr)
    assert shown == text
    if value is not None:
        assert repr(T.eval(expr)) == value


def test_power_and_slices_evaluate_correctly():
    # Chainer 7.8.1 computes ``**`` with ``%`` and leaves expressions in slices unevaluated.
    x, y, s = T.Variable(5, "x"), T.Variable(2, "y"), T.Variable((3, 4, 5), "s")
    assert T.eval(x**y) == 25 and T.eval(2**y) == 4
    assert T.eval(s[:y]) == (3, 4)


def guide_types():
    """The guide's setting: two float32 inputs of shapes (3, 2, 2) and (1, 2, 2)."""
    arrays = (numpy.zeros((3, 2, 2), numpy.float32), numpy.zeros((1, 2, 2), numpy.float32))
    return T.get_types(arrays, "in_types", False)


def test_guide_messages_of_named_values_and_calls():
    # The guide's texts; Chainer 7.8.1 itself raises RuntimeError for these in its light mode.
    x_type, _ = guide_types()
    in_size = 4
    assert message_of(lambda: T.expect(x_type.shape[0] == T.Variable(in_size, "in_size"))) == (
        "Expect: in_types[0].shape[0] == in_size\nActual: 3 != 4"
    )
    assert message_of(lambda: T.expect(x_type.shape[0] == in_size)) == (
        "Expect: in_types[0].shape[0] == 4\nActual: 3 != 4"
    )
    total = T.Variable(numpy.sum, "sum")
    assert message_of(lambda: T.expect(total(x_type.shape) == 10)) == (
        "Expect: sum(in_types[0].shape) == 10\nActual: 7 != 10"
    )


def test_guide_check_in_a_function_passes_in_both_modes():
    class MulOfThree(chainer.FunctionNode):
        calls = 0

        def check_type_forward(self, in_types):
            MulOfThree.calls += 1
            T.expect(in_types.size() == 2)
            x_type, y_type = in_types
            T.expect(
                x_type.dtype == numpy.float32,
                x_type.ndim == 3,
                x_type.shape[1] == 2,
                x_type.shape[0] == T.make_variable(3, "n"),
            )

        def forward(self, inputs):
            return (inputs[0] * 3,)

    types = guide_types()
    arrays = [numpy.zeros(t.eval().shape, numpy.float32) for t in types]
    T.check_forward_types(MulOfThree().check_type_forward, arrays, "MulOfThree")
    assert MulOfThree.calls == 1  # passing in light mode, it is not run again on expressions
    (y,) = MulOfThree().apply(arrays)
    assert y.shape == (3, 2, 2)


def test_eval_gives_type_info_and_values():
    x_type, y_type = guide_types()
    info = x_type.eval()
    assert isinstance(info, T.TypeInfo)
    assert (info.shape, info.dtype, info.ndim, info.size) == ((3, 2, 2), numpy.float32, 3, 12)
    assert x_type.shape[0].eval() == 3 and T.eval(x_type.size) == 12
    assert T.eval(guide_types().size()) == 2
    assert str(guide_types().size()) == "in_types.size"


def test_invalid_type_is_an_fnet_input_error_with_chainer_message():
    error = T.InvalidType("x.ndim == 2", "3 != 2")
    assert (
        isinstance(error, InvalidInputError)
        and isinstance(error, FnetError)
        and isinstance(error, ValueError)
    )
    assert (error.expect, error.actual, error.msg) == ("x.ndim == 2", "3 != 2", None)
    assert str(error) == "Expect: x.ndim == 2\nActual: 3 != 2"
    labelled = T.InvalidType("a", "b", function="Linear")
    assert str(labelled) == "\nInvalid operation is performed in: Linear (Forward)\n\nExpect: a\nActual: b"
    assert str(T.InvalidType("a", "b", "custom", function="Linear")) == "custom"


def test_invalid_type_pickles_with_its_label():
    error = pickle.loads(pickle.dumps(T.InvalidType("a", "b", function="Linear")))
    assert str(error) == "\nInvalid operation is performed in: Linear (Forward)\n\nExpect: a\nActual: b"
    assert (error.expect, error.actual, error.function) == ("a", "b", "Linear")


def test_from_error_keeps_fnet_message():
    with pytest.raises(T.InvalidType) as info:
        F.relu(numpy.arange(10) - 5)
    error = info.value
    assert "relu" in str(error) and "float" in str(error)
    assert str(error) == error.msg and error.expect and error.actual == "int64"
    plain = T.InvalidType.from_error(ValueError("something odd"))
    assert (plain.expect, plain.actual, str(plain)) == ("", "", "something odd")


def test_expressions_have_no_truth_value_and_cannot_be_unpacked():
    x_type, _ = guide_types()
    with pytest.raises(RuntimeError, match="cannot be evaluated as bool"):
        bool(x_type.ndim == 3)
    with pytest.raises(RuntimeError):
        T.expect(x_type.ndim == 3 and x_type.ndim == 2)
    with pytest.raises(TypeError, match="cannot be iterated"):
        _, _, _ = x_type.shape


def test_expect_rejects_plain_values_outside_light_mode():
    with pytest.raises(TypeError, match="expected comparisons of type-check expressions, got bool"):
        T.expect(True)


def test_light_mode_works_on_plain_values():
    arrays = (numpy.zeros((2, 3), numpy.float32),)
    with T.light_mode:
        assert T.in_light_mode()
        types = T.get_light_types(arrays)
        assert types[0] is arrays[0] and types.size() == 1
        T.expect(types[0].ndim == 2, types.size() == 1)
        assert T.eval(types[0].shape) == (2, 3)
        assert T.make_variable(3, "n") == 3 and T.prod((2, 3)) == 6
        T.expect(T.Variable(2, "two") == types[0].ndim)  # expressions are evaluated here too
        with pytest.raises(T.InvalidType) as info:
            T.expect(types[0].ndim == 3)
        assert str(info.value) == "Expect: \nActual: "
        with T.light_mode:
            pass
        assert T.in_light_mode()  # nesting restores the outer mode
    assert not T.in_light_mode()
    shaped = T.get_light_types(arrays, shapes=[(3, 2)])
    assert shaped[0].shape == (3, 2) and shaped[0].dtype == numpy.float32


def test_light_mode_is_per_thread():
    seen = []
    with T.light_mode:
        thread = threading.Thread(target=lambda: seen.append(T.in_light_mode()))
        thread.start()
        thread.join()
    assert seen == [False]


def test_get_types_checks_arrays_and_accepts_missing_gradients():
    types = T.get_types((numpy.zeros(2), None), "grads", True)
    assert str(types[1]) == "grads[1]" and types[1].eval().shape == () and types[1].eval().dtype is None
    with pytest.raises(T.InvalidType) as info:
        T.get_types((numpy.zeros(2), [1]), "in_types", False)
    assert (
        str(info.value)
        == "Expect: isinstance(in_types[1], ndarray)\nActual: type(in_types[1]) == <class 'list'>"
    )
    assert T.get_types([numpy.zeros((2, 3))], "x", False, shapes=[(3, 2)])[0].eval().shape == (3, 2)


def test_argname_names_inputs_and_checks_their_number():
    types = T.get_types((numpy.zeros(3), numpy.zeros(3)), "in_types", False)
    T.argname(types, ("x", "W"))
    assert str(types[0].shape[0] == types[1].ndim) == "x.shape[0] == W.ndim"
    with pytest.raises(T.InvalidType) as info:
        T.argname(types, ("x",))
    assert str(info.value) == "Expect: 1 argument(s) (x)\nActual: 2 argument(s)"


def test_same_types():
    assert T.same_types(numpy.zeros(2), numpy.zeros(3))
    assert T.same_types()
    assert not T.same_types(numpy.zeros(2), [1.0])


def test_expect_broadcast_shapes_passes_for_broadcastable_shapes():
    a, b = T.get_types((numpy.zeros((3, 1)), numpy.zeros((2, 3, 4))), "in_types", False)
    T.expect_broadcast_shapes(a.shape, b.shape)
    with T.light_mode:
        T.expect_broadcast_shapes((3, 1), (2, 3, 4))


def test_type_check_can_be_turned_off():
    arrays = [numpy.zeros((3, 2), numpy.float32)]
    with chainer.using_config("type_check", False):
        Check("T.expect(t[0].ndim == 5)").apply(arrays)


def test_get_types_refuses_what_is_not_a_tuple_of_arrays_with_chainers_assertion():
    with pytest.raises(AssertionError, match="expected the tuple of input"):
        T.get_types(1, "in_types", False)
    assert T._repr((T.Constant(0),)) == "(0,)"
    assert T._repr([[T.Constant(0)]]) == "[[0]]"


def test_function_check_context_names_the_function_and_light_mode_class():
    import fnet.compat as chainer
    from fnet.compat.utils import type_check as tc

    class Node:
        label = "MyFunction"

    with tc.get_function_check_context(Node()):
        error = tc.InvalidType("x.ndim == 2", "3 != 2")
        inner = tc.InvalidType("a", "b", function="Other")
    assert "Invalid operation is performed in: MyFunction (Forward)" in str(error)
    assert "Other (Forward)" in str(inner)
    assert "performed in" not in str(tc.InvalidType("a", "b"))  # outside the block: no function
    assert isinstance(tc.light_mode, tc.LightMode) and chainer.utils.type_check.LightMode is tc.LightMode
