"""The seeds' tutorials run unchanged as Chainer programs on fnet.compat (issue #6 acceptance).

Every code sample of the guides that needs no download is run, through the ``chainer`` alias,
after the guides' own import block (tests/compat/tutorials holds the samples). Doctest samples
must print what the seeds print; where a printed value is drawn at random (a new link's
weights), the test checks what the value must satisfy instead and says so. Code samples that
print nothing are followed by checks of what they compute, against the guides' formulas or
Chainer 7.8.1's own results (tests/golden/make_tutorials.py); where a guide's sample has a slip
that makes Chainer raise, the same exception type is expected.
"""

from __future__ import annotations

import builtins
import json
import pathlib
import sys
import unittest

import numpy
import pytest

import fnet.compat

from .tutorials import concepts, functions, models, namespace, reporting, run_code, run_doctest, type_checks

GOLDEN = json.loads((pathlib.Path(__file__).parents[1] / "golden" / "tutorials.json").read_text())


@pytest.fixture(scope="module", autouse=True)
def chainer_alias():
    """``import chainer`` gives fnet.compat while this module's tests run."""
    before = {name: mod for name, mod in sys.modules.items() if name.partition(".")[0] == "chainer"}
    fnet.compat.install_alias()
    yield
    for name in [n for n in sys.modules if n.partition(".")[0] == "chainer"]:
        del sys.modules[name]
    sys.modules.update(before)


@pytest.fixture
def ns() -> dict:
    """A fresh namespace holding the guides' import block."""
    return namespace()


def doctests(ns: dict, module, *names: str) -> None:
    """Run the doctest samples ``names`` of ``module`` in ``ns``, in order; each must print what
    the seed prints (but for the values drawn at random that ``module.RANDOM_OUTPUTS`` lists)."""
    random_outputs = getattr(module, "RANDOM_OUTPUTS", {})
    for name in names:
        report = run_doctest(
            getattr(module, name), ns, f"{module.__name__}.{name}", random_outputs.get(name, ())
        )
        assert not report, report


def code(ns: dict, module, *names: str) -> dict:
    """Run the code samples ``names`` of ``module`` in ``ns``, in order, and return ``ns``."""
    for name in names:
        run_code(getattr(module, name), ns, f"{module.__name__}.{name}")
    return ns


def golden_error(key: str) -> type[Exception]:
    """The exception type Chainer 7.8.1 raises for the sample slip ``key``."""
    return getattr(builtins, GOLDEN["raises"][key])


def uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def assert_close(actual, expected, rtol=1e-6, atol=1e-6):
    numpy.testing.assert_allclose(numpy.asarray(actual), numpy.asarray(expected), rtol=rtol, atol=atol)


# --- Concepts Walkthrough ---------------------------------------------------------------------


def test_variables_and_derivatives(ns):
    doctests(ns, concepts, "VARIABLES")


def test_gradients_of_intermediate_variables(ns):
    doctests(ns, concepts, "VARIABLES", "RETAIN_GRAD")


def test_multi_element_backward_needs_initial_error(ns):
    doctests(ns, concepts, "MULTI_ELEMENT")


def test_first_order_derivative_with_double_backprop(ns):
    doctests(ns, concepts, "FIRST_ORDER")


def test_second_order_derivative(ns):
    doctests(ns, concepts, "FIRST_ORDER", "SECOND_ORDER")


def test_linear_link_parameters(ns):
    # The seed's f.W.array is one random draw: W must be a float32 (2, 3) draw, b the zeros shown.
    doctests(ns, concepts, "LINEAR", "LINEAR_PARAMS")
    W = ns["f"].W.array
    assert W.shape == (2, 3) and W.dtype == numpy.float32 and numpy.all(W != 0)


def test_linear_link_acts_like_a_function(ns):
    # The seed's y.array follows from its random W: checked as x W^T + b.
    doctests(ns, concepts, "LINEAR", "LINEAR_PARAMS", "LINEAR_CALL")
    f, x, y = ns["f"], ns["x"], ns["y"]
    assert y.array.dtype == numpy.float32
    assert_close(y.array, x.array @ f.W.array.T + f.b.array)


def test_linear_link_with_inferred_input_size(ns):
    doctests(ns, concepts, "LINEAR_LAZY")
    f = ns["f"]
    assert f.W.array is None  # lazy: initialized at the first mini-batch
    f(numpy.ones((2, 5), numpy.float32))
    assert f.W.shape == (2, 5)


def test_parameter_gradients(ns):
    doctests(ns, concepts, "LINEAR", "LINEAR_PARAMS", "LINEAR_CALL", "LINEAR_CLEARGRADS", "LINEAR_GRADS")


# --- Define your own function: new style ------------------------------------------------------


@pytest.mark.parametrize(
    "sample, base",
    [
        ("NEW_SKELETON", "FunctionNode"),
        ("NEW_MULADD_GPU", "FunctionNode"),
        ("VARIADIC_KERNEL", "Function"),
        ("OLD_SKELETON", "Function"),
        ("OLD_MULADD_GPU", "Function"),
        ("OLD_ELEMENTWISE", "Function"),
    ],
)
def test_outline_and_gpu_only_samples_define_functions(ns, sample, base):
    # Skeletons return a placeholder; the GPU-only samples have ``...`` as CPU methods: on a CPU
    # they define the class (the GPU path is test_gpu_samples).
    code(ns, functions, sample)
    assert issubclass(ns["MulAdd"], ns[base])


def test_migration_outlines_define_functions(ns):
    code(ns, functions, "MY_OLD_FUNC", "MY_FUNC")
    assert issubclass(ns["MyOldFunc"], ns["Function"])
    assert issubclass(ns["MyFunc"], ns["FunctionNode"]) and issubclass(ns["MyFuncGrad"], ns["FunctionNode"])


def check_muladd(ns, w):
    x, y, z = ns["x"], ns["y"], ns["z"]
    assert_close(w.array, x.array * y.array + z.array)
    gw = uniform((3, 2), 7)
    w.grad = gw
    w.backward()
    assert_close(x.grad, y.array * gw)
    assert_close(y.grad, x.array * gw)
    assert_close(z.grad, gw)


def test_new_style_muladd(ns):
    code(ns, functions, "NEW_MULADD", "NEW_USAGE")
    check_muladd(ns, ns["w"])


def test_new_style_muladd_supports_double_backprop(ns):
    code(ns, functions, "NEW_MULADD", "NEW_USAGE")
    x, y, w = ns["x"], ns["y"], ns["w"]
    w.grad = numpy.ones((3, 2), numpy.float32)
    w.backward(enable_double_backprop=True)
    gx = x.grad_var  # = y * gw
    y.cleargrad()
    gx.grad = numpy.ones((3, 2), numpy.float32)
    gx.backward()
    assert_close(y.grad, numpy.ones((3, 2)))


def test_new_style_wrapper_returns_the_output_tuple(ns):
    code(ns, functions, "NEW_MULADD", "NEW_USAGE", "NEW_WRAPPER")
    (w,) = ns["w"]
    check_muladd(ns, w)


def test_new_style_backward_reading_target_input_indexes_as_inputs(ns):
    # The guide's unified MulAdd unpacks ``inputs`` in backward, which is target_input_indexes:
    # Chainer's gradients are then those of x, y, z = 0, 1, 2 (golden).
    code(ns, functions, "NEW_MULADD_UNIFIED", "NEW_USAGE")
    x, y, z, w = ns["x"], ns["y"], ns["z"], ns["w"]
    assert_close(w.array, x.array * y.array + z.array)
    w.grad = uniform((3, 2), 7)
    w.backward()
    for name, var in zip("xyz", (x, y, z)):
        assert_close(var.grad, GOLDEN["unified_muladd_grads"][name])
    (w,) = ns["MulAdd"]().apply((x, y.array, z))  # only two indexes to unpack into x, y, z
    w.grad = uniform((3, 2), 7)
    with pytest.raises(golden_error("NEW_MULADD_UNIFIED partial")):
        w.backward()


def run_expadd(ns, sample, **backward_options):
    code(ns, functions, sample)
    Variable = ns["Variable"]
    x, y = Variable(uniform((3, 2), 1)), Variable(uniform((3, 2), 2))
    z = ns["expadd"](x, y)
    assert_close(z.array, numpy.exp(x.array) + numpy.exp(y.array))
    gz = uniform((3, 2), 3)
    z.grad = gz
    z.backward(**backward_options)
    assert_close(x.grad, gz * numpy.exp(x.array))
    assert_close(y.grad, gz * numpy.exp(y.array))
    return x, gz


@pytest.mark.parametrize("sample", ["NEW_EXPADD", "NEW_EXPADD_XP", "OLD_EXPADD", "OLD_EXPADD_XP"])
def test_expadd(ns, sample):
    run_expadd(ns, sample)


@pytest.mark.parametrize("sample", ["NEW_EXPADD", "NEW_EXPADD_XP"])
def test_new_style_expadd_supports_double_backprop(ns, sample):
    x, gz = run_expadd(ns, sample, enable_double_backprop=True)
    gx = x.grad_var  # backward is made of F.exp: differentiable again
    x.cleargrad()
    gx.grad = numpy.ones((3, 2), numpy.float32)
    gx.backward()
    assert_close(x.grad, gz * numpy.exp(x.array), rtol=1e-5)


def test_new_style_elementwise_kernel_sample_on_numpy(ns):
    # forward_cpu and MulAddGrad.forward_cpu are the NumPy path of the kernels. The sample's
    # backward unpacks three retained inputs where forward retained two: Chainer raises there.
    code(ns, functions, "NEW_ELEMENTWISE", "NEW_USAGE")
    x, y, z, w = ns["x"], ns["y"], ns["z"], ns["w"]
    assert_close(w.array, x.array * y.array + z.array)
    gw = uniform((3, 2), 7)
    gx, gy, gz = ns["MulAddGrad"]().apply((x, y, z, gw))
    assert_close(gx.array, y.array * gw)
    assert_close(gy.array, x.array * gw)
    assert_close(gz.array, gw)
    w.grad = gw
    with pytest.raises(golden_error("NEW_ELEMENTWISE backward")):
        w.backward()


# --- Define your own function: old style ------------------------------------------------------


@pytest.mark.parametrize("sample", ["OLD_MULADD", "OLD_MULADD_UNIFIED"])
def test_old_style_muladd(ns, sample):
    code(ns, functions, sample, "OLD_USAGE")
    check_muladd(ns, ns["w"])


def test_old_style_wrapper(ns):
    code(ns, functions, "OLD_MULADD", "OLD_USAGE", "OLD_WRAPPER")
    assert isinstance(ns["w"], ns["Variable"])
    check_muladd(ns, ns["w"])


# --- Define your own function: advanced topics, testing, links --------------------------------


def test_dropout_applies_in_every_mode(ns):
    code(ns, functions, "DROPOUT")
    x = ns["Variable"](numpy.ones(1000, numpy.float32))
    for train in (True, False):
        with ns["chainer"].using_config("train", train):
            y = ns["dropout"](x)
        assert set(numpy.unique(y.array).tolist()) == {0.0, 2.0}


def test_dropout_with_test_mode(ns):
    code(ns, functions, "DROPOUT_TEST_MODE")
    x = ns["Variable"](numpy.ones(1000, numpy.float32))
    with ns["chainer"].using_config("train", False):
        assert ns["dropout"](x) is x
    y = ns["dropout"](x)
    assert y.dtype == numpy.float32 and set(numpy.unique(y.array).tolist()) == {0.0, 2.0}


def test_numerical_grad(ns):
    code(ns, functions, "NUMERICAL_GRAD")
    (gx,) = ns["gx"]
    numpy.testing.assert_allclose(gx, 2 * ns["x"], rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("sample", ["TEST_RELU_RETAIN_GRAD", "TEST_RELU_CHECK_BACKWARD"])
def test_gradient_checking_test_case_passes(ns, sample):
    code(ns, functions, sample)
    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(ns["TestReLU"]).run(result)
    assert result.testsRun == 1 and result.wasSuccessful(), result.errors + result.failures


def test_gradient_checking_test_case_without_retain_grad_fails_as_in_chainer(ns):
    # y.backward() uses up y.grad (Chainer 7 sets it to None), so the guide's test hands
    # numerical_grad no output gradient and compares zeros with x.grad: it fails in Chainer too
    code(ns, functions, "TEST_RELU")
    numpy.random.seed(0)  # x has positive entries, so x.grad is not all zeros
    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(ns["TestReLU"]).run(result)
    assert result.testsRun == 1 and len(result.failures) == 1 and not result.errors


def test_eltwise_param_product_link(ns):
    code(ns, functions, "ELTWISE_PARAM_PRODUCT")
    link = ns["EltwiseParamProduct"]((2, 3))
    assert [name for name, _ in link.namedparams()] == ["/W"]
    W = link.W.array
    assert W.shape == (2, 3) and W.dtype == numpy.float32
    x = uniform((2, 3), 1)
    y = link(x)
    assert_close(y.array, W * x)
    assert bool(numpy.isnan(link.W.grad).all()) == GOLDEN["new_parameter_grad_is_nan"]
    link.cleargrads()
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    assert_close(link.W.grad, x)


def test_linear_function_and_link(ns):
    # Forward is right; the sample's backward reads target_input_indexes as its inputs, so
    # backpropagation fails in Chainer (unpacking the indexes (1, 2) into three names, or
    # calling ``.dot`` on a Variable when x needs a gradient too): the same errors are expected.
    code(ns, functions, "LINEAR_FUNCTION", "LINEAR_WRAPPER_APPLY", "LINEAR_LINK")
    link = ns["Linear"](3, 2)
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]
    assert link.W.shape == (2, 3) and link.W.dtype == numpy.float32
    assert link.b.dtype == numpy.float32 and numpy.all(link.b.array == 0)
    x = uniform((4, 3), 1)
    (y,) = link(x)
    assert_close(y.array, x @ link.W.array.T + link.b.array)
    y.grad = numpy.ones((4, 2), numpy.float32)
    with pytest.raises(golden_error("LINEAR_LINK backward")):
        y.backward()
    (y,) = link(ns["Variable"](x))
    y.grad = numpy.ones((4, 2), numpy.float32)
    with pytest.raises(golden_error("LINEAR_LINK backward from a Variable")):
        y.backward()


def test_linear_wrapper_calling_the_node_raises(ns):
    # Seed 004 writes ``LinearFunction()(x, W, b)``: a FunctionNode is not callable.
    code(ns, functions, "LINEAR_FUNCTION", "LINEAR_WRAPPER_CALL", "LINEAR_LINK")
    with pytest.raises(golden_error("LINEAR_WRAPPER_CALL"), match="apply"):
        ns["Linear"](3, 2)(uniform((4, 3), 1))


# --- Creating Models --------------------------------------------------------------------------


def two_linears(x, first, second):
    return (x @ first.W.array.T + first.b.array) @ second.W.array.T + second.b.array


def test_procedure_with_parameters(ns):
    doctests(ns, models, "LINKS_AND_FUNCTION")
    x = uniform((5, 4), 1)
    assert_close(ns["my_forward"](x).array, two_linears(x, ns["l1"], ns["l2"]))


def test_procedure_class(ns):
    doctests(ns, models, "MY_PROC")
    proc, x = ns["MyProc"](), uniform((5, 4), 1)
    assert_close(proc.forward(x).array, two_linears(x, proc.l1, proc.l2))


def test_chain(ns):
    doctests(ns, models, "MY_CHAIN")
    model, x = ns["MyChain"](), uniform((5, 4), 1)
    assert isinstance(model, ns["Link"])
    assert sorted(name for name, _ in model.namedparams()) == ["/l1/W", "/l1/b", "/l2/W", "/l2/b"]
    assert_close(model(x).array, two_linears(x, model.l1, model.l2))


def test_chain_list(ns):
    doctests(ns, models, "MY_CHAIN2")
    model, x = ns["MyChain2"](), uniform((5, 4), 1)
    assert len(model) == 2
    assert sorted(name for name, _ in model.namedparams()) == ["/0/W", "/0/b", "/1/W", "/1/b"]
    assert_close(model(x).array, two_linears(x, model[0], model[1]))


# --- Optimizer --------------------------------------------------------------------------------

LR, DECAY = 0.01, 0.0005  # SGD's default learning rate; the guide's weight decay rate


def sgd_with_decay(x, before):
    """The parameters after one SGD step with weight decay on the guide's loss ``sum(model(x))``,
    from ``before`` (the parameters by name), by the formulas of the two-layer linear model."""
    W1, b1, W2 = before["/l1/W"], before["/l1/b"], before["/l2/W"]
    h = x @ W1.T + b1
    ones = numpy.ones((x.shape[0], 2), numpy.float32)
    grads = {
        "/l1/W": (ones @ W2).T @ x,
        "/l1/b": (ones @ W2).sum(axis=0),
        "/l2/W": ones.T @ h,
        "/l2/b": ones.sum(axis=0),
    }
    return {k: before[k] - LR * (grads[k] + DECAY * before[k]) for k in before}


def params(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


def assert_updated(model, expected):
    # Tight enough to see the weight decay term (LR * DECAY * W, a few 1e-6 here).
    for name, value in params(model).items():
        assert_close(value, expected[name], rtol=0, atol=5e-7)


def test_optimizer_setup(ns):
    doctests(ns, models, "MY_CHAIN", "SETUP", "WEIGHT_DECAY")
    assert ns["optimizer"].target is ns["model"] and ns["optimizer"].lr == LR


def test_update_after_computing_gradients(ns):
    doctests(ns, models, "MY_CHAIN", "SETUP", "WEIGHT_DECAY")
    before = params(ns["model"])
    doctests(ns, models, "UPDATE_MANUALLY")
    assert_updated(ns["model"], sgd_with_decay(ns["x"], before))
    assert ns["optimizer"].t == 1


def test_update_with_a_loss_function_clears_gradients_first(ns):
    doctests(ns, models, "MY_CHAIN", "SETUP", "WEIGHT_DECAY", "UPDATE_MANUALLY")
    before = params(ns["model"])
    doctests(ns, models, "UPDATE_WITH_LOSSFUN")
    assert_updated(ns["model"], sgd_with_decay(ns["arg1"] - ns["arg2"], before))
    assert ns["optimizer"].t == 2


# --- Serializers ------------------------------------------------------------------------------


@pytest.fixture
def trained(ns, tmp_path, monkeypatch):
    """The Optimizer guide's model and optimizer after its two updates, in a scratch folder."""
    monkeypatch.chdir(tmp_path)
    doctests(ns, models, "MY_CHAIN", "SETUP", "WEIGHT_DECAY", "UPDATE_MANUALLY", "UPDATE_WITH_LOSSFUN")
    return ns


def test_save_and_load_a_model(trained):
    ns = trained
    doctests(ns, models, "SAVE_MODEL")
    with numpy.load("my.model") as f:
        assert sorted(f.files) == GOLDEN["model_keys"]
    saved = params(ns["model"])
    for p in ns["model"].params():
        p.array[...] = 0
    doctests(ns, models, "LOAD_MODEL")
    for name, value in params(ns["model"]).items():
        numpy.testing.assert_array_equal(value, saved[name])


def test_save_and_load_an_optimizer(trained):
    ns = trained
    doctests(ns, models, "SAVE_LOAD_OPTIMIZER")
    with numpy.load("my.state") as f:
        assert sorted(f.files) == GOLDEN["optimizer"]["keys"]
        assert int(f["t"]) == GOLDEN["optimizer"]["t"] and int(f["epoch"]) == GOLDEN["optimizer"]["epoch"]
    ns["optimizer"].t = 0
    run_code("serializers.load_npz('my.state', optimizer)", ns)
    assert ns["optimizer"].t == GOLDEN["optimizer"]["t"]


def test_save_a_trainer(trained, tmp_path):
    ns = trained
    if "training" not in ns or "iterators" not in ns:
        pytest.skip("chainer.training / chainer.iterators (issue #7) are not there yet")
    train = [(numpy.ones(4, numpy.float32) * i, numpy.int32(i % 2)) for i in range(6)]
    it = ns["iterators"].SerialIterator(train, 3)
    model = ns["L"].Classifier(ns["MyChain"]())
    optimizer = ns["optimizers"].SGD().setup(model)
    updater = ns["training"].StandardUpdater(it, optimizer)
    ns["trainer"] = ns["training"].Trainer(updater, (1, "epoch"), out=str(tmp_path))
    ns["trainer"].run()
    doctests(ns, models, "SAVE_TRAINER")
    with numpy.load("my.state") as f:  # Chainer's keys, and the iterator's random state (fnet's)
        fnet_only = ["updater/iterator:main/order_sampler_state"]
        assert sorted(f.files) == sorted(GOLDEN["trainer_keys"] + fnet_only)


# --- Type Checks ------------------------------------------------------------------------------


@pytest.fixture
def type_ns(ns):
    """The guide's setting: in_types of a (3, 2, 2) and a (1, 2, 2) float32 array, x_type and
    y_type unpacked from them, ``self.in_size == 4``."""
    data = (numpy.empty((3, 2, 2), numpy.float32), numpy.empty((1, 2, 2), numpy.float32))
    ns["in_types"] = ns["utils"].type_check.get_types(data, "in_types", False)
    ns["self"] = type("Object", (), {"in_size": 4})()
    ns["more_complicated_condition"] = lambda shape: False
    run_code(type_checks.SAMPLES[0][0], ns)
    return ns


def test_check_type_forward_signature(ns):
    code(ns, type_checks, "SIGNATURE")
    assert ns["check_type_forward"](None, ()) is None


@pytest.mark.parametrize("sample, message", type_checks.SAMPLES, ids=range(len(type_checks.SAMPLES)))
def test_type_check_sample(type_ns, sample, message):
    if message is None:
        run_code(sample, type_ns)
    else:
        with pytest.raises(type_ns["utils"].type_check.InvalidType) as error:
            run_code(sample, type_ns)
        assert str(error.value) == message


def test_type_check_eval_gives_actual_values(type_ns):
    run_code("actual_type = x_type.eval()\n", type_ns)
    actual = type_ns["actual_type"]
    assert isinstance(actual, type_ns["utils"].type_check.TypeInfo)
    assert actual.shape == (3, 2, 2) and actual.dtype == numpy.float32 and actual.ndim == 3
    assert type_ns["x_type"].shape[0].eval() == 3


@pytest.mark.parametrize("condition", sorted(type_checks.IN_SIZE_MESSAGES))
def test_type_check_messages_with_and_without_a_named_value(type_ns, condition):
    with pytest.raises(type_ns["utils"].type_check.InvalidType) as error:
        run_code(f"utils.type_check.expect({condition})", type_ns)
    assert str(error.value) == type_checks.IN_SIZE_MESSAGES[condition]


def test_typical_type_check_runs_before_forward(ns):
    code(ns, type_checks, "TYPICAL_CHECK")
    good = ns["Typical"]()(numpy.ones((3, 2, 2), numpy.float32), numpy.ones((1, 2, 2), numpy.float32))
    assert good.shape == (3, 2, 2)
    with pytest.raises(ns["utils"].type_check.InvalidType) as error:
        ns["Typical"]()(numpy.ones((3, 2), numpy.float32), numpy.ones((3, 2, 2), numpy.float32))
    assert str(error.value) == GOLDEN["check_type_forward_message"]


# --- Customize your own logging ---------------------------------------------------------------


def test_reporter_with_an_observer(ns):
    doctests(ns, reporting, "REPORTER")


def test_global_report_uses_the_current_reporter(ns):
    doctests(ns, reporting, "REPORTER", "GLOBAL_REPORT")


def test_links_report_under_their_names_in_the_hierarchy(ns):
    doctests(ns, reporting, "CLASSIFIER", "MLP")
    # What the guide says the trainer then reports: register the links as StandardUpdater does.
    model = ns["model"]
    reporter = ns["chainer"].Reporter()
    reporter.add_observer("main", model)
    reporter.add_observers("main", model.namedlinks(skipself=True))
    x, t = uniform((4, 3), 1), numpy.array([0, 1, 2, 3], numpy.int32)
    observation = {}
    with reporter.scope(observation):
        loss = model(x, t)
    assert sorted(observation) == ["main/accuracy", "main/loss", "main/predictor/sum_y"]
    assert_close(observation["main/loss"].array, loss.array)


# --- GPU paths --------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize(
    "sample, backward",
    [
        ("NEW_MULADD_GPU", False),  # its backward is ``...``
        ("OLD_MULADD_GPU", True),
        ("OLD_ELEMENTWISE", True),
        ("VARIADIC_KERNEL", True),
    ],
)
def test_gpu_samples(ns, sample, backward):
    code(ns, functions, sample)
    cuda, Variable = ns["cuda"], ns["Variable"]
    x, y, z = (Variable(cuda.to_gpu(uniform((3, 2), seed))) for seed in (1, 2, 3))
    out = ns["MulAdd"]().apply((x, y, z))[0] if sample.startswith("NEW") else ns["MulAdd"]()(x, y, z)
    assert isinstance(out.array, cuda.cupy.ndarray)
    assert_close(cuda.to_cpu(out.array), uniform((3, 2), 1) * uniform((3, 2), 2) + uniform((3, 2), 3))
    if backward:
        gw = uniform((3, 2), 7)
        out.grad = cuda.to_gpu(gw)
        out.backward()
        assert_close(cuda.to_cpu(x.grad), uniform((3, 2), 2) * gw)
        assert_close(cuda.to_cpu(z.grad), gw)


@pytest.mark.gpu
@pytest.mark.parametrize("sample", ["NEW_EXPADD", "OLD_EXPADD"])
def test_gpu_expadd(ns, sample):
    code(ns, functions, sample)
    cuda, Variable = ns["cuda"], ns["Variable"]
    x, y = Variable(cuda.to_gpu(uniform((3, 2), 1))), Variable(cuda.to_gpu(uniform((3, 2), 2)))
    z = ns["expadd"](x, y)
    z.grad = cuda.cupy.ones((3, 2), numpy.float32)
    z.backward()
    assert_close(cuda.to_cpu(x.grad), numpy.exp(uniform((3, 2), 1)), rtol=1e-5)


@pytest.mark.gpu
def test_gpu_new_style_elementwise_sample_calls_a_missing_cupy_function(ns):
    # The sample's forward_gpu calls ``cuda.cupy.elementwise``: CuPy has no such function.
    code(ns, functions, "NEW_ELEMENTWISE")
    cuda, Variable = ns["cuda"], ns["Variable"]
    x, y, z = (Variable(cuda.to_gpu(uniform((3, 2), seed))) for seed in (1, 2, 3))
    with pytest.raises(AttributeError, match="elementwise"):
        ns["MulAdd"]().apply((x, y, z))
