"""BatchNormalization and its kin: Chainer's numbers in training, finetuning and test mode
(tests/golden/make_links_state.py), running statistics updated in place, Chainer's errors."""

import pathlib
import warnings

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L

GOLDEN = numpy.load(pathlib.Path(__file__).parents[2] / "golden" / "links_state.npz")


def close(actual, key, **tolerance):
    actual = getattr(actual, "array", actual)
    numpy.testing.assert_allclose(actual, GOLDEN[key], **({"rtol": 1e-5, "atol": 1e-6} | tolerance))


def golden_bn():
    bn = L.BatchNormalization(3)
    bn.gamma.array[...] = GOLDEN["bn.gamma"]
    bn.beta.array[...] = GOLDEN["bn.beta"]
    bn.avg_mean[...] = GOLDEN["bn.avg_mean0"]
    bn.avg_var[...] = GOLDEN["bn.avg_var0"]
    return bn


def test_training_step_matches_chainer():
    bn = golden_bn()
    mean = bn.avg_mean
    x = chainer.Variable(GOLDEN["bn.x1"])
    y = bn(x)
    bn.cleargrads()  # Chainer's parameters start with NaN gradients (as the golden maker does)
    F.sum(GOLDEN["bn.w"] * y).backward()
    close(y, "bn.y1")
    close(bn.avg_mean, "bn.avg_mean1")
    close(bn.avg_var, "bn.avg_var1")
    assert bn.avg_mean is mean  # updated in place, as Chainer's function does
    close(bn.gamma.grad, "bn.ggamma")
    close(bn.beta.grad, "bn.gbeta")
    close(x.grad, "bn.gx1")
    assert bn.N == 0


def test_finetuning_averages_the_batches_and_counts_them():
    bn = golden_bn()
    bn(GOLDEN["bn.x1"])
    bn.start_finetuning()
    assert bn.N == 0
    bn(GOLDEN["bn.x2"], finetune=True)
    bn(GOLDEN["bn.x3"], finetune=True)
    assert bn.N == int(GOLDEN["bn.N3"]) and isinstance(bn.N, int)
    close(bn.avg_mean, "bn.avg_mean3")
    close(bn.avg_var, "bn.avg_var3")
    with chainer.using_config("train", False):
        close(bn(GOLDEN["bn.x1"]), "bn.ytest")


def test_test_mode_and_recomputation_leave_the_statistics():
    bn = golden_bn()
    for config in ("train", "in_recomputing"):
        value = config == "in_recomputing"
        with chainer.using_config(config, value):
            bn(GOLDEN["bn.x1"], finetune=True)
        close(bn.avg_mean, "bn.avg_mean0")
        assert bn.N == 0


def test_lazy_batch_normalization_over_given_axes():
    bn = L.BatchNormalization(axis=(0, 2))
    assert bn.avg_mean is None and bn.gamma.array is None
    close(bn(GOLDEN["bn_lazy.x"]), "bn_lazy.y")
    close(bn.avg_mean, "bn_lazy.avg_mean")
    close(bn.avg_var, "bn_lazy.avg_var")
    assert bn.axis == (0, 2)


def test_decay_and_eps_are_attributes_the_next_call_uses():
    bn = L.BatchNormalization(2, decay=0.5)
    assert (bn.decay, bn.eps) == (0.5, 2e-5)
    bn.decay = 0.0
    x = numpy.array([[1.0, 2.0], [3.0, 6.0]], numpy.float32)
    bn(x)
    numpy.testing.assert_allclose(bn.avg_mean, [2.0, 4.0])


def test_unused_gamma_and_beta_are_none():
    bn = L.BatchNormalization(2, use_gamma=False, use_beta=False)
    assert bn.gamma is None and bn.beta is None and list(bn.params()) == []
    y = bn(numpy.array([[1.0, 2.0], [3.0, 6.0]], numpy.float32))
    numpy.testing.assert_allclose(y.array, [[-1, -1], [1, 1]], atol=1e-4)
    lazy = L.BatchNormalization(axis=0, use_gamma=False, use_beta=False)  # only statistics to size
    lazy(numpy.array([[1.0, 2.0], [3.0, 6.0]], numpy.float32))
    numpy.testing.assert_allclose(lazy.avg_mean, [0.2, 0.4], rtol=1e-6)


def test_chainers_errors():
    with pytest.raises(RuntimeError, match="size or axis is required"):
        L.BatchNormalization()
    with pytest.raises(TypeError, match="expected size to be an int or a tuple of ints"):
        L.BatchNormalization({})
    bn = L.BatchNormalization(2)
    x = numpy.ones((3, 2), numpy.float32)
    with pytest.raises(ValueError, match="test argument is not supported anymore"):
        bn(x, test=True)
    with pytest.raises(TypeError, match="unexpected keyword argument.*scale"):
        bn(x, scale=2)


def test_printable_specs():
    assert str(L.BatchNormalization(3)) == (
        "BatchNormalization(size=3, decay=0.9, eps=2e-05, dtype=float32, use_gamma=True, use_beta=True)"
    )


def test_renormalization_and_decorrelated_keep_their_statistics():
    brn = L.BatchRenormalization(2, rmax=3.0, dmax=1.0)
    assert (brn.rmax, brn.dmax) == (3.0, 1.0)
    brn(numpy.array([[1.0, 2.0], [3.0, 6.0]], numpy.float32))
    numpy.testing.assert_allclose(brn.avg_mean, [0.2, 0.4], rtol=1e-6)

    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    assert dbn.groups == 2 and dbn.avg_projection.shape == (2, 2, 2)
    x = numpy.random.RandomState(0).randn(8, 4).astype(numpy.float32)
    dbn(x, finetune=True)
    dbn(x, finetune=True)
    assert dbn.N == 2
    with chainer.using_config("train", False):
        assert dbn(x).shape == (8, 4)


def test_group_and_layer_normalization_attributes():
    gn = L.GroupNormalization(2, 4, eps=1e-3)
    assert (gn.groups, gn.eps) == (2, 1e-3)
    y = gn(numpy.array([[1.0, 3.0, 10.0, 30.0]], numpy.float32))
    numpy.testing.assert_allclose(y.array, [[-1, 1, -1, 1]], atol=1e-3)
    ln = L.LayerNormalization()
    assert ln.eps == 1e-6
    assert ln(numpy.ones((2, 6), numpy.float32)).shape == (2, 6) and ln.gamma.shape == (6,)


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
def test_decorrelated_loads_statistics_saved_without_the_group_axis(tmp_path, groups, fmt):
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    save, load = {"npz": (chainer.serializers.save_npz, chainer.serializers.load_npz)}.get(
        fmt, (chainer.serializers.save_hdf5, chainer.serializers.load_hdf5)
    )
    rng = numpy.random.RandomState(0)
    mean, projection = (
        rng.uniform(-1, 1, 4).astype(numpy.float32),
        rng.uniform(0.5, 1, (4, 4)).astype(numpy.float32),
    )
    path = str(tmp_path / f"old.{fmt}")
    save(path, {"avg_mean": mean, "avg_projection": projection, "N": numpy.array(3)})
    dbn = L.DecorrelatedBatchNormalization(4 * groups, groups=groups)
    kept = dbn.avg_mean
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load(path, dbn)
    # one warning per statistic, as Chainer gives
    assert sorted(str(w.message).split("'")[1] for w in caught) == (
        ["avg_mean", "avg_projection"] if groups > 1 else []
    )
    assert dbn.avg_mean is kept and dbn.N == 3
    numpy.testing.assert_array_equal(dbn.avg_mean, numpy.broadcast_to(mean, (groups, 4)))
    numpy.testing.assert_array_equal(dbn.avg_projection, numpy.broadcast_to(projection, (groups, 4, 4)))


def test_decorrelated_rejects_statistics_of_another_size(tmp_path):
    path = str(tmp_path / "other.npz")
    chainer.serializers.save_npz(path, {"avg_mean": numpy.zeros(3, numpy.float32)})
    with pytest.raises(
        ValueError, match=r"cannot load 'avg_mean'.*shape \(3,\) where the target has shape \(2, 4\)"
    ):
        chainer.serializers.load_npz(path, L.DecorrelatedBatchNormalization(8, groups=2), strict=False)


@pytest.mark.parametrize("train", [True, False])
def test_decorrelated_link_takes_inputs_of_another_float_dtype(train):
    # Chainer's numerical gradient checks feed float64 inputs to a float32 link
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    x = numpy.random.RandomState(1).uniform(-1, 1, (6, 4))
    with chainer.using_config("train", train):
        y = dbn(x)
    assert y.dtype == numpy.float64
    assert dbn.avg_mean.dtype == dbn.avg_projection.dtype == numpy.float32
    expected = F.fixed_decorrelated_batch_normalization(
        x, dbn.avg_mean.astype(numpy.float64), dbn.avg_projection.astype(numpy.float64), groups=2
    )
    if not train:
        numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-12)


@pytest.mark.parametrize(
    "make", [lambda: L.LayerNormalization(5, initial_beta={}), lambda: L.Linear(3, 2, initialW={})]
)
def test_an_initial_value_of_a_wrong_type_is_a_type_error(make):
    # Chainer: TypeError('invalid type of initializer')
    with pytest.raises(
        TypeError, match=r"as_initializer: expected an initializer, an array, a number or None, got dict"
    ):
        make()


def test_batch_normalization_over_given_axes_keeps_initial_statistics_until_sized():
    # Chainer: with axis and no size, avg_mean / avg_var are None until the first call, which
    # then takes the initial arrays
    mean, var = numpy.arange(3, dtype=numpy.float32), numpy.full(3, 2.0, numpy.float32)
    gamma = numpy.full(3, 3.0, numpy.float32)
    bn = L.BatchNormalization(axis=(0,), initial_gamma=gamma, initial_avg_mean=mean, initial_avg_var=var)
    assert bn.avg_mean is None and bn.avg_var is None and bn.N == 0
    with chainer.using_config("train", False):
        y = bn(numpy.zeros((4, 3), numpy.float32))
    numpy.testing.assert_array_equal(bn.avg_mean, mean)
    numpy.testing.assert_array_equal(bn.avg_var, var)
    numpy.testing.assert_allclose(y.array[0], -3.0 * mean / numpy.sqrt(var + 2e-5), rtol=1e-6)


def test_decorrelated_batch_normalization_fixes_of_old_statistics():
    from fnet.compat.links.normalization import fix_avg_mean, fix_avg_projection

    mean = numpy.arange(3, dtype=numpy.float32)
    assert fix_avg_mean(mean[None], 1) is not None and fix_avg_mean(mean[None], 1).shape == (1, 3)
    with pytest.warns(UserWarning, match="saved without its group axis"):
        fixed = fix_avg_mean(mean, 2)
    assert fixed.shape == (2, 3) and (fixed == mean).all()
    assert fix_avg_projection(numpy.eye(3, dtype=numpy.float32), 1).shape == (1, 3, 3)
    with pytest.raises(ValueError, match="expected avg_projection of 2 or 3 dimensions"):
        fix_avg_projection(mean, 1)
