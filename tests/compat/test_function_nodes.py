"""The FunctionNode classes of the built-in functions and Chainer's module tree under functions."""

import importlib
import io
import re
import subprocess

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet.compat import _modules
from fnet.compat.function_hooks import FunctionHook, PrintHook, TimerHook
from fnet.compat.functions import _tree
from fnet.compat.functions._nodes import BuiltinNode, parse


def variable(*shape, seed=0):
    rng = numpy.random.default_rng(seed)
    return chainer.Variable(rng.uniform(-1, 1, shape).astype(numpy.float32))


def test_every_module_of_chainer_functions_imports():
    # The 175 modules of Chainer 7.8.1's chainer/functions (its 12 __init__ files aside).
    assert len(_tree.TREE) == 175
    for module in _tree.TREE:
        importlib.import_module(f"fnet.compat.functions.{module}")
    assert F.activation.relu.relu is F.relu
    assert F.math.exponential.Exp is _tree.CLASSES["math.exponential.Exp"]
    from fnet.compat.functions.connection.linear import LinearFunction, linear

    assert linear is F.linear and issubclass(LinearFunction, chainer.FunctionNode)
    assert set(_modules.declared("fnet.compat.functions.")) >= {
        f"fnet.compat.functions.{m}" for m in _tree.TREE
    }


def test_the_table_matches_chainer_sources_where_they_are_here():
    repo = "/work/.mirror/chainer+chainer/repo"
    try:
        listing = subprocess.run(
            ["git", "-C", repo, "ls-tree", "-r", "--name-only", "v7.8.1", "chainer/functions"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("Chainer's sources are not on this machine")
    modules = {
        p[len("chainer/functions/") : -3].replace("/", ".")
        for p in listing
        if p.endswith(".py") and not p.endswith("__init__.py")
    }
    assert modules == set(_tree.TREE)


def test_a_builtin_function_output_is_made_by_its_chainer_class():
    x = variable(2, 3)
    y = F.relu(x)
    node = y.creator
    assert type(node).__name__ == "ReLU" and isinstance(node, F.activation.relu.ReLU)
    assert isinstance(node, chainer.FunctionNode)
    assert node.label == "ReLU"
    assert [n.data is x.array for n in node.inputs] == [True]
    assert node.rank == 0 and y.rank == 1
    assert isinstance(node.outputs, tuple) and len(node.outputs) == 1
    z = F.exp(y)
    assert z.creator.label == "exp" and z.creator.rank == 1 and z.creator.inputs[0].creator is node


def test_the_nodes_of_several_inputs_and_no_gradient():
    x, W, b = variable(2, 3), variable(4, 3, seed=1), variable(4, seed=2)
    y = F.linear(x, W, b)
    assert y.creator.label == "LinearFunction"
    assert [n.data is v.array for n, v in zip(y.creator.inputs, (x, W, b))] == [True] * 3
    with chainer.no_backprop_mode():
        assert F.relu(x).creator is None


def test_apply_runs_the_function_with_the_constructor_arguments():
    x = variable(3, 4)
    (y,) = F.activation.leaky_relu.LeakyReLU(0.3).apply((x,))
    numpy.testing.assert_array_equal(y.array, F.leaky_relu(x, slope=0.3).array)
    assert type(y.creator).__name__ == "LeakyReLU" and y.creator.slope == 0.3
    (s,) = F.array.concat.Concat(axis=0).apply((x, x))  # a function of a list of inputs
    assert s.shape == (6, 4) and len(s.creator.inputs) == 2
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad is not None
    with pytest.raises(TypeError, match="unexpected keyword argument 'slop'"):
        F.activation.leaky_relu.LeakyReLU(slop=0.3)


def test_a_class_instance_is_the_creator_of_what_its_apply_made():
    node = F.math.exponential.Exp()
    (y,) = node.apply((variable(2),))
    assert y.creator is node


def test_dropout_keeps_its_mask_and_reuses_it_when_applied_again():
    x = variable(4, 5)
    with chainer.using_config("train", True):
        y = F.dropout(x, 0.5)
        numpy.testing.assert_array_equal(y.array, x.array * y.creator.mask)
        dropout = F.noise.dropout.Dropout(0.5)
        (y1,) = dropout.apply((x,))
        (y2,) = dropout.apply((x,))
    numpy.testing.assert_array_equal(y1.array, y2.array)
    y3, mask = F.dropout(x, 0.5, return_mask=True)  # the caller's own flag still works
    numpy.testing.assert_array_equal(y3.array, x.array * mask)


def test_operators_make_basic_math_nodes_with_chainer_labels():
    x, y = variable(2, 3), variable(2, 3, seed=1)
    basic = F.math.basic_math
    cases = [
        (x * y, basic.Mul, "_ * _"),
        (x * 2, basic.MulConstant, "_ * 2"),
        (x - 1.5, basic.AddConstant, "_ + (-1.5)"),
        (1 - x, basic.SubFromConstant, "1 - _"),
        (2**x, basic.PowConstVar, "2 ** _"),
        (-x, basic.Neg, "__neg__"),
        (abs(x), basic.Absolute, "|_|"),
        (x[0], F.array.get_item.GetItem, "GetItem"),
    ]
    for out, cls, label in cases:
        assert type(out.creator) is cls and out.creator.label == label
    assert basic._convert_value_to_string(numpy.ones(2)) == "constant array"
    assert basic.DivFromConstant(2.0).label == "2.0 / _"


def test_hooks_see_the_nodes_and_file_them_under_chainer_class_names():
    labels = []

    class Labels(FunctionHook):
        def forward_preprocess(self, function, in_data):
            labels.append((type(function).__name__, function.label))

    x = variable(2, 3)
    with Labels(), TimerHook() as timer:
        F.sum(F.exp(F.relu(x)) * 2).backward()
    # the forward's functions; then, as in Chainer, what the backward applies for the gradients
    assert labels[:4] == [("ReLU", "ReLU"), ("Exp", "exp"), ("MulConstant", "_ * 2"), ("Sum", "Sum")]
    assert len(labels) > 4
    assert [name for name, _ in timer.call_history[:4]] == ["ReLU", "Exp", "MulConstant", "Sum"]
    out = io.StringIO()
    with PrintHook(file=out):
        F.relu(x)
    assert out.getvalue().startswith("function\tReLU")


def test_a_hook_added_to_a_node_sees_its_forward_and_backward():
    timer = TimerHook()
    node = F.math.exponential.Exp()
    node.add_hook(timer)
    x = variable(3)
    (y,) = node.apply((x,))
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    assert [name for name, _ in timer.call_history] == ["Exp", "Exp"]


def test_mnist_mlp_graph_dump_shows_chainer_labels():
    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(784, 100)
                self.l2 = L.Linear(100, 10)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    x = numpy.zeros((5, 784), numpy.float32)
    t = numpy.zeros(5, numpy.int32)
    model = MLP()  # alive: the parameters' names show while their Variables are
    loss = F.softmax_cross_entropy(model(x), t)
    dot = chainer.computational_graph.build_computational_graph([loss]).dump()
    functions = sorted(label for label in re.findall(r'label="([^"]*)",shape="record"', dot))
    assert functions == ["LinearFunction", "LinearFunction", "ReLU", "SoftmaxCrossEntropy"]
    assert '"W: (100, 784), float32"' in dot and '"(5, 784), float32"' in dot  # inputs, as Chainer draws


def test_the_table_notation():
    assert parse("Dropout(dropout_ratio=ratio, mask, return_mask) -> mask: dropout") == (
        "Dropout",
        (("dropout_ratio", "ratio"), ("mask", "mask"), ("return_mask", "return_mask")),
        ("mask",),
        "dropout",
        False,
    )
    assert parse("Concat(axis): concat[]")[-1] is True
    assert parse("AddConstant(value=*): add")[1] == (("value", "*"),)
    assert parse("Copy(in_device=, out_device=dst): copy")[1] == (("in_device", None), ("out_device", "dst"))
    assert all(issubclass(cls, BuiltinNode) for cls in _tree.CLASSES.values())


def test_softmax_cross_entropy_keeps_its_scores_when_told():
    x, t = variable(2, 3), numpy.array([0, 2], numpy.int32)
    y = F.softmax_cross_entropy(x, t).creator.y
    numpy.testing.assert_array_max_ulp(y, F.softmax(x).array, maxulp=4)
    assert F.softmax_cross_entropy(x, t, cache_score=False).creator.y is None


def test_apply_checks_the_number_of_inputs_as_chainer_does():
    x = variable(2, 3, 4)
    with pytest.raises(chainer.utils.type_check.InvalidType, match=r"2 <= len\(inputs\) <= 3"):
        F.connection.deconvolution_nd.DeconvolutionND(1).apply((x,))
    with pytest.raises(chainer.utils.type_check.InvalidType, match=r"len\(inputs\) == 4"):
        F.connection.deconvolution_nd.DeconvolutionND(1).apply((x, x, x, x))


def test_a_function_of_arrays_only_still_has_a_creator_while_backprop_is_enabled():
    x = numpy.ones((2, 3), numpy.float32)
    with chainer.using_config("train", True):
        y = F.dropout(x, 0.5)
    assert type(y.creator).__name__ == "Dropout" and y.rank == 1
    numpy.testing.assert_array_equal(y.array, x * y.creator.mask)
    assert (chainer.Variable(x, requires_grad=False) * 2).creator.label == "_ * 2"
    with chainer.no_backprop_mode():
        assert F.relu(x).creator is None


def test_coo_matmul_multiplies_the_sparse_data_and_promotes_dtypes():
    a = numpy.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]], numpy.float16)
    b = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    sp = chainer.utils.to_coo(a)
    data = chainer.Variable(sp.data.array)
    node = F.math.sparse_matmul.CooMatMul(sp.row, sp.col, sp.shape, sp.order, transc=True)
    (c,) = node.apply((data, b))
    assert c.dtype == numpy.float32 and c.creator is node
    numpy.testing.assert_array_max_ulp(c.array, (a.astype(numpy.float32) @ b).T, maxulp=1)
    c.grad = numpy.ones_like(c.array)
    c.backward()
    # d(sum of c)/d(a[i, j]) = sum of row j of b
    numpy.testing.assert_array_max_ulp(data.grad, b.sum(axis=1)[sp.col].astype(numpy.float16), maxulp=1)
    mixed = F.sparse_matmul(chainer.utils.to_coo(a), b)  # float16 sparse, float32 dense: as Chainer, float32
    assert mixed.dtype == numpy.float32


def test_noise_nodes_show_the_pattern_their_call_drew():
    x, W = variable(4, 3), variable(5, 3, seed=1)
    with chainer.using_config("train", True):
        y = F.simplified_dropconnect(x, W, ratio=0.5)
        mask = y.creator.mask
        assert mask.shape == (4, 5, 3)
        expected = numpy.einsum("ijk,ik->ij", W.array * mask * 2, x.array)
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)  # float32 sums in another order
        h = variable(4, 3, seed=2)
        z = F.zoneout(h, x, 0.5)
        numpy.testing.assert_array_equal(z.array, h.array * z.creator.flag_h + x.array * z.creator.flag_x)
    with chainer.using_config("train", False):
        assert F.simplified_dropconnect(x, W, train=False).creator.mask.all()


def test_a_dropout_node_applied_again_in_another_dtype_uses_its_mask():
    dropout = F.noise.dropout.Dropout(0.5)
    x = variable(3, 4)
    with chainer.using_config("train", True):
        (y,) = dropout.apply((x,))
        (y64,) = dropout.apply((x.array.astype(numpy.float64),))
    assert y64.dtype == numpy.float64
    numpy.testing.assert_array_max_ulp(y64.array.astype(numpy.float32), y.array, maxulp=1)


def test_deprecated_functions_warn_as_in_chainer():
    x = variable(2, 3)
    ones, zeros = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    with pytest.warns(DeprecationWarning, match="use fixed_batch_normalization instead"):
        y = F.fixed_batch_renormalization(x, ones, zeros, zeros, ones)
    numpy.testing.assert_array_equal(y.array, F.fixed_batch_normalization(x, ones, zeros, zeros, ones).array)
    assert F.normalization.batch_renormalization.fixed_batch_renormalization is F.fixed_batch_renormalization


def test_a_link_call_makes_its_chainer_node_with_the_link_arguments():
    link = L.SimplifiedDropconnect(3, 2, ratio=0.5)
    x = variable(4, 3)
    y = link(x, train=True, use_batchwise_mask=False)
    node = y.creator
    assert type(node).__name__ == "SimplifiedDropconnect" and node.mask.shape == (2, 3)
    numpy.testing.assert_allclose(
        y.array, x.array @ (link.W.array * node.mask * 2).T + link.b.array, rtol=1e-6
    )
    assert [n.data is a for n, a in zip(node.inputs, (x.array, link.W.array, link.b.array))] == [True] * 3


def test_batch_renormalization_leaves_running_statistics_alone_unless_told():
    x = variable(5, 3)
    ones, zeros = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    mean, var = zeros.copy(), ones.copy()
    y = F.batch_renormalization(x, ones, zeros, 3.0, 5.0, running_mean=mean, running_var=var)
    assert y.shape == (5, 3) and type(y.creator).__name__ == "BatchRenormalizationFunction"
    assert (mean == 0).all() and (var == 1).all()
    F.batch_renormalization(
        x, ones, zeros, 3.0, 5.0, running_mean=mean, running_var=var, update_statistics=True
    )
    assert not (mean == 0).all()


def test_nodes_do_not_keep_their_outputs_alive():
    import gc
    import weakref

    x = variable(2, 3)
    y = F.relu(x)
    assert y.creator.label == "ReLU"  # the node is made, and refers to its output
    record = weakref.ref(y._data.record)
    del y
    gc.collect()
    assert record() is None


def test_basic_math_is_also_chainer_basic_math():
    assert chainer.basic_math is F.math.basic_math
    assert chainer.basic_math.Mul().label == "_ * _"


def test_stride_array_views_the_memory_of_the_base_array_in_elements():
    from fnet.compat.functions.array.as_strided import _stride_array

    x = numpy.arange(12, dtype=numpy.int16).reshape((3, 4))[::-1]
    flat = _stride_array(x, (12,), (1,), 0)  # the base's memory, not x's (reversed) order
    assert flat.tolist() == list(range(12))
    assert numpy.shares_memory(flat, x)
    assert _stride_array(x, (2, 3), (0, 4), 1).tolist() == [[1, 5, 9], [1, 5, 9]]
    assert _stride_array(numpy.arange(4.0)[1:], (4,), (-1,), 3).tolist() == [3.0, 2.0, 1.0, 0.0]
    for shape, strides, offset in (((5,), (1,), 0), ((2,), (-1,), 0)):
        with pytest.raises(ValueError, match="_stride_array"):
            _stride_array(numpy.arange(4.0), shape, strides, offset)


def test_rank_of_a_deep_graph_does_not_recurse():
    x = chainer.Variable(numpy.ones(3, dtype=numpy.float32))
    y = z = w = x
    for _ in range(5000):
        y = F.sin(y)  # a built-in function's class
        z = z * 1  # an operator's node
        w = F.exp(w - 1) + (w - 1)  # two paths into each node
    assert (y.rank, y.creator.rank, z.rank) == (5000, 4999, 5000)
    assert w.rank == 3 * 5000
    assert F.sin(y).rank == 5001  # a node applied on top of a walked graph


# Chainer's shorthand functions whose call makes the node of their general form (Chainer 7.8.1:
# F.max_pooling_2d(x, 2).creator is a MaxPoolingND, shown as such by DumpGraph and to hooks).
SHORTHANDS = [
    (lambda: F.relu6(variable(2, 3)), "ClippedReLU"),
    (lambda: F.convolution_1d(variable(1, 2, 5), variable(3, 2, 2)), "ConvolutionND"),
    (lambda: F.convolution_3d(variable(1, 2, 4, 4, 4), variable(3, 2, 2, 2, 2)), "ConvolutionND"),
    (lambda: F.deconvolution_1d(variable(1, 2, 5), variable(2, 3, 2)), "DeconvolutionND"),
    (lambda: F.deconvolution_3d(variable(1, 2, 3, 3, 3), variable(2, 3, 2, 2, 2)), "DeconvolutionND"),
    (lambda: F.squared_difference(variable(2, 3), variable(2, 3, seed=1)), "SquaredError"),
    (lambda: F.average_pooling_1d(variable(1, 2, 6), 2), "AveragePoolingND"),
    (lambda: F.average_pooling_3d(variable(1, 2, 4, 4, 4), 2), "AveragePoolingND"),
    (lambda: F.max_pooling_1d(variable(1, 2, 6), 2), "MaxPoolingND"),
    (lambda: F.max_pooling_2d(variable(1, 2, 6, 6), 3, stride=2), "MaxPoolingND"),
    (lambda: F.max_pooling_3d(variable(1, 2, 4, 4, 4), 2), "MaxPoolingND"),
    (lambda: F.unpooling_1d(variable(1, 2, 3), 2), "UnpoolingND"),
    (lambda: F.unpooling_3d(variable(1, 2, 2, 2, 2), 2), "UnpoolingND"),
]


@pytest.mark.parametrize(
    ("call", "node"), SHORTHANDS, ids=[row[1] + str(i) for i, row in enumerate(SHORTHANDS)]
)
def test_a_shorthand_function_makes_the_node_of_its_general_form_as_in_chainer(call, node):
    y = call()
    assert type(y.creator).__name__ == node and y.creator.label == node
    assert isinstance(y.creator, _tree.CLASSES[next(k for k in _tree.CLASSES if k.endswith("." + node))])
    y.grad = numpy.ones_like(y.array)
    y.backward()  # the node made by the shorthand runs its gradient as before
    assert all(x.grad is not None for x in (n.get_variable() for n in y.creator.inputs) if x is not None)


def test_dump_graph_labels_a_max_pooling_2d_as_chainer_does():
    # Chainer's ImageNet example draws its graph (DumpGraph) through F.max_pooling_2d
    from fnet.compat import computational_graph

    y = F.max_pooling_2d(F.relu(variable(1, 2, 6, 6)), 3, stride=2)
    dot = computational_graph.build_computational_graph([y]).dump()
    assert 'label="MaxPoolingND"' in dot and "pooling_window_max" not in dot


def test_a_node_keeps_its_creator_after_its_variable_is_gone_as_in_chainer():
    # Chainer's VariableNode holds its creator: the graph of F.exp(F.relu(x)) can be walked
    # back from exp's inputs although the relu output (a temporary) is gone
    x = variable(2, 3)
    y = F.exp(F.relu(x))
    (node,) = y.creator.inputs
    assert node.get_variable_or_none() is None
    assert type(node.creator).__name__ == "ReLU" and node.creator is node.creator_node
    assert node.rank == 1 and node.creator.inputs[0].get_variable_or_none() is x
    z = L.Linear(3, 4)(F.relu(x))
    assert type(z.creator.inputs[0].creator).__name__ == "ReLU"
    h = F.relu(x)
    y = F.exp(h)
    h.unchain()
    del h
    assert y.creator.inputs[0].creator is None  # cut from its creator before it went
