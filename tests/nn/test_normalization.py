"""Normalization layers against Chainer 7.8.1 (golden data from tests/golden/make_nn_rnn_norm.py):
parameter names and shapes, initial values, train / test / finetune steps, purity, gradients, errors."""

from __future__ import annotations

import functools
import pathlib

import numpy
import pytest
import toolz

import fnet
from fnet import errors, nn
from fnet.testing import check_grads

from .._device_double import DeviceArray, installed

KEY = fnet.random.key(0)


class Golden:
    """The arrays of one npz written by ``tests/golden/make_nn_rnn_norm.py``, keyed ``<case>.<name>``."""

    def __init__(self, filename: str) -> None:
        self.path = pathlib.Path(__file__).parents[1] / "golden" / filename

    @functools.cached_property
    def data(self) -> dict:
        with numpy.load(self.path) as data:
            return dict(data)

    def case(self, name: str) -> dict:
        """The arrays of case ``name``, keyed without the ``name.`` prefix."""
        prefix = f"{name}."
        found = {key[len(prefix) :]: value for key, value in self.data.items() if key.startswith(prefix)}
        assert found, f"no case {name!r} in {self.path.name}: rerun tests/golden/make_nn_rnn_norm.py"
        return found

    def params(self, name: str) -> dict:
        """Chainer's parameter values of case ``name`` as an fnet params tree (nested by ``/``)."""
        tree: dict = {}
        for key, value in self.case(name).items():
            if key.startswith("param."):
                tree = toolz.assoc_in(tree, key[len("param.") :].split("/"), value)
        return tree

    def assert_names(self, name: str, params: dict) -> None:
        """``params`` has the paths of Chainer's ``namedparams`` and their shapes."""
        arrays = self.case(name)
        got = {fnet.tree.path_str(p): numpy.shape(leaf) for p, leaf in fnet.tree.flatten_with_paths(params)}
        expected = {str(n): tuple(arrays[f"shape.{n}"].tolist()) for n in arrays["names"]}
        assert got == expected


def assert_close(actual, expected) -> None:
    """Equal to Chainer's float64 result (or exact for integers), dtype included."""
    actual, expected = numpy.asarray(fnet.backend.to_cpu(actual)), numpy.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-8)


GOLDEN = Golden("nn_norm.npz")


def float64_state(state: dict) -> dict:
    return {k: v if k == "N" else v.astype(numpy.float64) for k, v in state.items()}


# -- parameter names and shapes ----------------------------------------------------------------
def make(case: str):
    """The fnet layer of golden case ``case`` and an example input (for lazy sizes)."""
    arrays = GOLDEN.case(case)
    example = arrays.get("x", arrays.get("x1"))
    layers = {
        "bn": nn.BatchNormalization(3, decay=0.8, eps=1e-3),
        "bn_finetune": nn.BatchNormalization(3, decay=0.8, eps=1e-3),
        "bn_2d": nn.BatchNormalization((3, 5)),
        "bn_axis": nn.BatchNormalization(axis=(0, 2)),
        "bn_plain": nn.BatchNormalization(
            3, use_gamma=False, use_beta=False, initial_avg_mean=0.5, initial_avg_var=2.0
        ),
        "brn": nn.BatchRenormalization(3, rmax=1.2, dmax=0.3, decay=0.7),
        "brn_finetune": nn.BatchRenormalization(3, rmax=1.2, dmax=0.3, decay=0.7),
        "dbn": nn.DecorrelatedBatchNormalization(4, groups=2, decay=0.6, dtype=numpy.float64),
        "dbn_finetune": nn.DecorrelatedBatchNormalization(4, groups=2, decay=0.6, dtype=numpy.float64),
        "gn": nn.GroupNormalization(2, 4, eps=1e-3),
        "gn_lazy": nn.GroupNormalization(3),
        "ln": nn.LayerNormalization(5),
        "ln_lazy": nn.LayerNormalization(),
    }
    return layers[case], example


CASES = ["bn", "bn_2d", "bn_axis", "bn_plain", "brn", "dbn", "gn", "gn_lazy", "ln", "ln_lazy"]


@pytest.mark.parametrize("case", CASES)
def test_params_have_chainers_names_and_shapes(case):
    layer, x = make(case)
    lazy = getattr(layer, "size", 0) is None
    params = layer.init(KEY, x) if lazy else layer.init(KEY)
    GOLDEN.assert_names(case, params)


def test_initial_values_and_dtypes_are_chainers():
    golden = GOLDEN.case("bn_init")
    bn = nn.BatchNormalization(2, initial_gamma=2.0, initial_beta=-1.0)
    params, state = bn.init(KEY), bn.init_state()
    for name in ("gamma", "beta"):
        assert_close(params[name], golden[name])
    for name in ("avg_mean", "avg_var", "N"):
        assert_close(state[name], golden[name])
    golden = GOLDEN.case("dbn_init")
    state = nn.DecorrelatedBatchNormalization(6, groups=3).init_state()
    for name in ("avg_mean", "avg_projection", "N"):
        assert_close(state[name], golden[name])


def test_default_parameters_are_ones_and_zeros_in_the_layers_dtype():
    for layer in (nn.GroupNormalization(2, 4), nn.LayerNormalization(4), nn.BatchNormalization(4)):
        params = layer.init(KEY)
        assert params["gamma"].dtype == params["beta"].dtype == numpy.float32
        numpy.testing.assert_array_equal(params["gamma"], numpy.ones(4))
        numpy.testing.assert_array_equal(params["beta"], numpy.zeros(4))
    half = nn.BatchNormalization(2, dtype=numpy.float16)
    assert half.init(KEY)["gamma"].dtype == half.init_state()["avg_var"].dtype == numpy.float16
    assert nn.BatchNormalization(2, dtype="mixed16").init(KEY)["gamma"].dtype == numpy.float32


def test_initializers_draw_from_the_key():
    ln = nn.LayerNormalization(1000, initial_gamma=fnet.initializers.Normal(0.5))
    gamma = ln.init(KEY)["gamma"]
    assert abs(gamma.std() - 0.5) < 0.05 and abs(gamma.mean()) < 0.05
    numpy.testing.assert_array_equal(gamma, ln.init(KEY)["gamma"])
    assert not numpy.array_equal(gamma, ln.init(fnet.random.key(1))["gamma"])
    bn = nn.BatchNormalization(3, initial_avg_mean=numpy.array([1.0, 2.0, 3.0]))
    numpy.testing.assert_array_equal(bn.init_state()["avg_mean"], [1.0, 2.0, 3.0])
    bn = nn.BatchNormalization(1000, initial_avg_var=fnet.initializers.Uniform(0.5))
    avg_var = bn.init_state(key=KEY)["avg_var"]
    assert avg_var.dtype == numpy.float32 and 0.4 < avg_var.max() <= 0.5
    with pytest.raises(errors.InvalidInputError, match="Uniform: expected key to be a random key"):
        bn.init_state()


def test_batch_renormalization_uses_the_initial_statistics_as_named():
    # Chainer 7.8.1 passes them one argument off (initial_avg_mean lands in axis); fnet does not
    state = nn.BatchRenormalization(2, initial_avg_mean=2.0, initial_avg_var=5.0).init_state()
    numpy.testing.assert_array_equal(state["avg_mean"], [2.0, 2.0])
    numpy.testing.assert_array_equal(state["avg_var"], [5.0, 5.0])


# -- forward against Chainer --------------------------------------------------------------------
@pytest.mark.parametrize("case, finetune", [("bn", False), ("bn_finetune", True)])
def test_batch_normalization_train_then_test_is_chainers(case, finetune):
    golden = GOLDEN.case(case)
    bn, _ = make(case)
    params = GOLDEN.params(case)
    state = {"avg_mean": golden["avg_mean0"], "avg_var": golden["avg_var0"], "N": bn.init_state()["N"]}
    for step in (1, 2):
        y, state = bn(params, golden[f"x{step}"], state, finetune=finetune)
        assert_close(y, golden[f"y{step}"])
        for name in ("avg_mean", "avg_var", "N"):
            assert_close(state[name], golden[f"{name}{step}"])
    y, after = bn(params, golden["x3"], state, train=False)
    assert_close(y, golden["y_test"])
    assert after is state


@pytest.mark.parametrize("case", ["bn_2d", "bn_axis", "bn_plain"])
def test_batch_normalization_layouts_are_chainers(case):
    golden = GOLDEN.case(case)
    bn, x = make(case)
    params = GOLDEN.params(case)
    state = float64_state(bn.init_state(x))
    if case == "bn_plain":  # the initial statistics come from initial_avg_mean / initial_avg_var
        assert params == {}
        assert_close(state["avg_mean"], golden["avg_mean0"])
        assert_close(state["avg_var"], golden["avg_var0"])
    else:
        state.update(avg_mean=golden["avg_mean0"], avg_var=golden["avg_var0"])
    y, new = bn(params, x, state)
    assert_close(y, golden["y"])
    assert_close(new["avg_mean"], golden["avg_mean1"])
    assert_close(new["avg_var"], golden["avg_var1"])
    if "y_test" in golden:
        assert_close(bn(params, x, new, train=False)[0], golden["y_test"])


@pytest.mark.parametrize("case, finetune", [("brn", False), ("brn_finetune", True)])
def test_batch_renormalization_is_chainers(case, finetune):
    golden = GOLDEN.case(case)
    brn, _ = make(case)
    params = GOLDEN.params(case)
    state = {"avg_mean": golden["avg_mean0"], "avg_var": golden["avg_var0"], "N": brn.init_state()["N"]}
    y, state = brn(params, golden["x1"], state, finetune=finetune)
    assert_close(y, golden["y1"])
    for name in ("avg_mean", "avg_var", "N"):
        assert_close(state[name], golden[f"{name}1"])
    assert_close(brn(params, golden["x2"], state, train=False)[0], golden["y_test"])


def test_batch_renormalization_gradients_are_chainers():
    # r and d are constants for the gradient, as in the paper and Chainer
    golden = GOLDEN.case("brn")
    brn, _ = make("brn")
    state = {"avg_mean": golden["avg_mean0"], "avg_var": golden["avg_var0"], "N": brn.init_state()["N"]}

    def weighted(x, params):
        return fnet.ops.sum(fnet.ops.multiply(brn(params, x, state)[0], golden["gy"]))

    gx, gparams = fnet.grad(weighted, argnums=(0, 1))(golden["x1"], GOLDEN.params("brn"))
    assert_close(gx, golden["gx1"])
    assert_close(gparams["gamma"], golden["ggamma"])
    assert_close(gparams["beta"], golden["gbeta"])


@pytest.mark.parametrize("case, finetune", [("dbn", False), ("dbn_finetune", True)])
def test_decorrelated_batch_normalization_is_chainers(case, finetune):
    golden = GOLDEN.case(case)
    dbn, _ = make(case)
    params = dbn.init(KEY)
    assert params == {}
    y, state = dbn(params, golden["x1"], dbn.init_state(), finetune=finetune)
    assert_close(y, golden["y1"])
    for name in ("avg_mean", "avg_projection", "N"):
        assert_close(state[name], golden[f"{name}1"])
    assert_close(dbn(params, golden["x2"], state, train=False)[0], golden["y_test"])


@pytest.mark.parametrize("case", ["gn", "gn_lazy", "ln", "ln_lazy"])
def test_group_and_layer_normalization_are_chainers(case):
    golden = GOLDEN.case(case)
    layer, _ = make(case)
    assert_close(layer(GOLDEN.params(case), golden["x"]), golden["y"])


# -- purity and composition ---------------------------------------------------------------------
def test_apply_leaves_params_and_state_untouched():
    bn = nn.BatchNormalization(3)
    params, state = bn.init(KEY), bn.init_state()
    before = fnet.tree.map(numpy.copy, (params, state))
    x = numpy.random.RandomState(0).randn(5, 3).astype(numpy.float32)
    y1, new = bn(params, x, state, finetune=True)
    assert fnet.testing.tree_allclose((params, state), before, rtol=0)
    assert int(new["N"]) == 1 and int(state["N"]) == 0
    numpy.testing.assert_array_equal(bn(params, x, state, finetune=True)[0], y1)


def test_start_finetuning_resets_the_count():
    bn = nn.BatchNormalization(2)
    state = {**bn.init_state(), "N": numpy.asarray(7)}
    reset = bn.start_finetuning(state)
    assert int(reset["N"]) == 0 and int(state["N"]) == 7
    assert reset["avg_mean"] is state["avg_mean"]
    dbn = nn.DecorrelatedBatchNormalization(2, groups=1)
    assert int(dbn.start_finetuning({**dbn.init_state(), "N": numpy.asarray(3)})["N"]) == 0


@pytest.mark.parametrize("layer", [nn.BatchNormalization(3), nn.DecorrelatedBatchNormalization(3, groups=1)])
def test_the_finetuning_count_stays_on_the_device_of_the_statistics(layer):
    # N was made with numpy.asarray: a host array in a state whose statistics live on a GPU
    with installed():
        params, state = fnet.backend.to_device((layer.init(KEY), layer.init_state()), "@cupy:0")
        x = fnet.backend.to_device(numpy.ones((4, 3), numpy.float32), "@cupy:0")
        _, state = layer(params, x, state, finetune=True)
        assert type(state["N"]) is DeviceArray and int(state["N"]) == 1
        assert type(layer.start_finetuning(state)["N"]) is DeviceArray


def test_finetuning_averages_the_batches():
    bn = nn.BatchNormalization(2, decay=0.99)
    params, state = bn.init(KEY), bn.init_state()
    batches = numpy.random.RandomState(1).randn(3, 4, 2)
    for x in batches:
        _, state = bn(params, x.astype(numpy.float32), state, finetune=True)
    numpy.testing.assert_allclose(state["avg_mean"], batches.mean(axis=1).mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(state["avg_var"], batches.var(axis=1, ddof=1).mean(axis=0), rtol=1e-5)


def test_sequential_threads_the_running_statistics():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNormalization(4), fnet.functions.relu)
    params, state = model.init(KEY), model.init_state()
    assert list(state) == ["1"] and fnet.tree.path_str(("1", "avg_mean")) == "1/avg_mean"
    x = numpy.ones((2, 3), numpy.float32)
    _, trained = model(params, x, state)
    assert not numpy.array_equal(trained["1"]["avg_var"], state["1"]["avg_var"])
    _, tested = model(params, x, trained, train=False)
    assert tested["1"] is trained["1"]


def test_layers_run_on_float16_inputs_with_float32_parameters():
    bn = nn.BatchNormalization(3)
    x = numpy.random.RandomState(2).randn(4, 3).astype(numpy.float16)
    y, state = bn(bn.init(KEY), x, bn.init_state())
    assert y.dtype == numpy.float16 and state["avg_mean"].dtype == numpy.float32


# -- gradients ----------------------------------------------------------------------------------
def test_gradients_through_batch_normalization():
    bn = nn.BatchNormalization(2)
    state = float64_state(bn.init_state())
    rng = numpy.random.RandomState(3)
    x, gamma, beta = rng.randn(4, 2), rng.rand(2) + 0.5, rng.randn(2)

    def train(x, gamma, beta):
        return bn({"gamma": gamma, "beta": beta}, x, state)[0]

    def test(x, gamma, beta):
        return bn({"gamma": gamma, "beta": beta}, x, state, train=False)[0]

    check_grads(train, (x, gamma, beta), order=2)
    check_grads(test, (x, gamma, beta), order=1)


def test_gradients_through_the_other_normalizations():
    rng = numpy.random.RandomState(4)
    x, gamma, beta = rng.randn(3, 4), rng.rand(4) + 0.5, rng.randn(4)
    # r and d are constants for the gradient (as in Chainer); clipped, they are constant indeed
    brn = nn.BatchRenormalization(4, rmax=1.5, dmax=0.5, initial_avg_mean=10.0, initial_avg_var=100.0)
    state = float64_state(brn.init_state())
    check_grads(lambda x, g, b: brn({"gamma": g, "beta": b}, x, state)[0], (x, gamma, beta), order=1)
    check_grads(lambda x, g, b: nn.LayerNormalization(4)({"gamma": g, "beta": b}, x), (x, gamma, beta))
    check_grads(lambda x, g, b: nn.GroupNormalization(2)({"gamma": g, "beta": b}, x), (x, gamma, beta))
    dbn = nn.DecorrelatedBatchNormalization(4, groups=2, dtype=numpy.float64)
    check_grads(lambda x: dbn({}, x, dbn.init_state())[0], (rng.randn(6, 4),), order=1)


# -- errors -------------------------------------------------------------------------------------
def test_batch_normalization_needs_a_size_or_an_axis():
    with pytest.raises(errors.InvalidInputError, match="BatchNormalization: expected size or axis"):
        nn.BatchNormalization()
    with pytest.raises(errors.InvalidInputError, match="BatchRenormalization: expected size"):
        nn.BatchRenormalization(None)


@pytest.mark.parametrize(
    "call",
    [
        lambda: nn.BatchNormalization(axis=0).init(KEY),
        lambda: nn.BatchNormalization(axis=0).init_state(),
        lambda: nn.GroupNormalization(2).init(KEY),
        lambda: nn.LayerNormalization().init(KEY),
    ],
)
def test_lazy_sizes_need_an_example_input(call):
    with pytest.raises(
        errors.InvalidInputError,
        match=r"example input x, got None: size is None.*\n.*hint: pass a batch of inputs as x",
    ):
        call()


def test_group_normalization_infers_channels_from_axis_1():
    assert nn.GroupNormalization(2).init(KEY, numpy.ones((1, 6, 3)))["gamma"].shape == (6,)
    with pytest.raises(errors.ShapeError, match=r"GroupNormalization.init: expected x.ndim >= 2, got 1"):
        nn.GroupNormalization(2).init(KEY, numpy.ones(4))


def test_decorrelated_groups_must_divide_the_size():
    with pytest.raises(errors.InvalidInputError, match="expected size to be divisible by groups, got size=6"):
        nn.DecorrelatedBatchNormalization(6, groups=4)


@pytest.mark.parametrize(
    "layer",
    [nn.BatchNormalization(2), nn.BatchRenormalization(2), nn.DecorrelatedBatchNormalization(2, groups=1)],
)
def test_apply_needs_the_state(layer):
    x = numpy.ones((3, 2), numpy.float32)
    name = type(layer).__name__
    with pytest.raises(
        errors.InvalidInputError, match=rf"{name}.apply: expected state to be a dict.*float32\[3, 2\]"
    ):
        layer(layer.init(KEY), x, x)
    with pytest.raises(
        errors.InvalidInputError, match=r"got \['avg_mean'\]\n  hint: pass the layer's init_state"
    ):
        layer(layer.init(KEY), x, {"avg_mean": x})


def test_input_errors_come_from_the_functions():
    bn = nn.BatchNormalization(3)
    with pytest.raises(errors.ShapeError, match="batch_normalization: expected gamma.shape == "):
        bn(bn.init(KEY), numpy.ones((2, 4), numpy.float32), bn.init_state())
    ln = nn.LayerNormalization(3)
    with pytest.raises(errors.ShapeError, match="layer_normalization"):
        ln(ln.init(KEY), numpy.ones((2, 4), numpy.float32))


@pytest.mark.parametrize("train", [True, False])
def test_decorrelated_statistics_keep_their_dtype_under_inputs_of_another(train):
    # as Chainer's link: float32 statistics serve float64 inputs, and stay float32
    layer = nn.DecorrelatedBatchNormalization(4, groups=2)
    rng = numpy.random.RandomState(3)
    state = {
        "avg_mean": rng.uniform(-1, 1, (2, 2)).astype(numpy.float32),
        "avg_projection": (numpy.eye(2) + rng.uniform(0, 0.3, (2, 2, 2))).astype(numpy.float32),
        "N": numpy.asarray(0),
    }
    x = rng.uniform(-1, 1, (5, 4))
    y, new = layer({}, x, state, train=train)
    assert y.dtype == numpy.float64
    assert all(new[k].dtype == numpy.float32 for k in ("avg_mean", "avg_projection"))
    check_grads(lambda x: layer({}, x, state, train=train)[0], (x,), order=2)


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: nn.BatchNormalization({}),
            r"BatchNormalization: expected size to be an int or a tuple of ints",
        ),
        (lambda: nn.BatchNormalization(3.0), r"BatchNormalization: expected size to be an int or a tuple"),
        (
            lambda: nn.BatchNormalization(axis="x"),
            r"BatchNormalization: expected axis to be an int or a tuple",
        ),
        (
            lambda: nn.BatchRenormalization((3, None)),
            r"BatchRenormalization: expected size to be an int or a",
        ),
    ],
)
def test_batch_normalization_sizes_of_a_wrong_type_are_type_errors(make, match):
    # Chainer raises TypeError for L.BatchNormalization({})
    with pytest.raises(errors.ArgumentTypeError, match=match) as info:
        make()
    assert isinstance(info.value, TypeError)


def test_batch_normalization_sizes_may_be_numpy_ints():
    assert nn.BatchNormalization((numpy.int64(3), 2)).size == (3, 2)
    assert nn.BatchNormalization(numpy.int32(4)).size == (4,)
