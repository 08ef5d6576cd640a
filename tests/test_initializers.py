"""Tests of fnet.initializers: Chainer's values (golden data), moments, fan rules, keys, dtypes, errors.

How close to Chainer's values: uniform draws, constants and the interpolation filters are
exact (basic arithmetic on the same integers from the same seed); normal draws go through
libm's log, so they are compared within 4 ulp (float64) or 1 ulp (float16/32, after
rounding); Orthogonal goes through LAPACK's QR, to a relative tolerance of the dtype.
"""

from __future__ import annotations

import json
import math
import pathlib

import numpy
import pytest

import fnet
from fnet import errors, initializers, random, tree
from fnet.testing import assert_ulp_close

GOLDEN = numpy.load(pathlib.Path(__file__).parent / "golden" / "initializers.npz", allow_pickle=False)
CASES = json.loads(str(GOLDEN["cases"]))
KEY = random.key(0)

RANDOM_CLASSES = [
    initializers.Normal,
    initializers.LeCunNormal,
    initializers.GlorotNormal,
    initializers.HeNormal,
    initializers.Uniform,
    initializers.LeCunUniform,
    initializers.GlorotUniform,
    initializers.HeUniform,
    initializers.Orthogonal,
]


def _from_case(case: dict):
    kwargs = dict(case["kwargs"])
    if isinstance(kwargs.get("fill_value"), list):
        kwargs["fill_value"] = numpy.asarray(kwargs["fill_value"])
    if case["seed"] is not None:
        kwargs["rng"] = numpy.random.RandomState(case["seed"])
    return getattr(initializers, case["name"])(dtype=case["dtype"], **kwargs)


# -- Chainer's values ---------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c['name']}-{c['shape']}" for c in CASES])
def test_matches_chainer_with_a_seeded_random_state(index):
    """With Chainer's ``rng`` argument, fnet draws Chainer's numbers and gives Chainer's arrays."""
    case = CASES[index]
    expected = GOLDEN[f"case/{index}"]
    init = _from_case(case)
    got = initializers.generate_array(init, tuple(case["shape"]), numpy, case["dtype"])
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if case["name"] == "Orthogonal":  # QR goes through LAPACK, whose rounding may differ by build
        tol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-12}[case["dtype"]]
        numpy.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    elif case["name"].endswith("Normal"):
        # a normal draw goes through libm's log, not correctly rounded (builds may differ in the
        # last bit), then a division, a square root and two products: 4 ulp in float64, which
        # rounding to float16 or float32 leaves at 1 ulp
        assert_ulp_close(got, expected, max_ulp=4 if got.dtype == numpy.float64 else 1)
    else:  # uniform draws (integer bits times a power of two), constants and the n-linear filters
        # take basic arithmetic only, which rounds the same on every CPU: exact
        numpy.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("shape, fan_in, fan_out", json.loads(str(GOLDEN["fans"])))
def test_get_fans_matches_chainer(shape, fan_in, fan_out):
    assert initializers.get_fans(tuple(shape)) == (fan_in, fan_out)


def test_get_fans_needs_two_axes():
    with pytest.raises(errors.ShapeError, match=r"initializers.get_fans: expected a shape of length >= 2"):
        initializers.get_fans((5,))


# -- distributions drawn from keys --------------------------------------------------------------

# (initializer, shape, expected standard deviation); uniform on [-s, s) has std s / sqrt(3)
MOMENTS = [
    (initializers.Normal(), (400, 500), 0.05),
    (initializers.Normal(0.5), (200_000,), 0.5),
    (initializers.LeCunNormal(), (400, 500), math.sqrt(1 / 500)),
    (initializers.LeCunNormal(2.0), (64, 32, 3, 3), 2.0 * math.sqrt(1 / (32 * 9))),
    (initializers.GlorotNormal(), (400, 500), math.sqrt(2 / 900)),
    (initializers.GlorotNormal(), (64, 32, 3, 3), math.sqrt(2 / (96 * 9))),
    (initializers.HeNormal(), (400, 500), math.sqrt(2 / 500)),
    (initializers.HeNormal(fan_option="fan_out"), (400, 500), math.sqrt(2 / 400)),
    (initializers.HeNormal(0.5, fan_option="fan_out"), (64, 32, 3, 3), 0.5 * math.sqrt(2 / (64 * 9))),
    (initializers.Uniform(), (400, 500), 0.05 / math.sqrt(3)),
    (initializers.LeCunUniform(), (400, 500), math.sqrt(3 / 500) / math.sqrt(3)),
    (initializers.GlorotUniform(), (400, 500), math.sqrt(6 / 900) / math.sqrt(3)),
    (initializers.GlorotUniform(3.0), (64, 32, 3, 3), 3.0 * math.sqrt(6 / (96 * 9)) / math.sqrt(3)),
    (initializers.HeUniform(), (400, 500), math.sqrt(6 / 500) / math.sqrt(3)),
    (initializers.HeUniform(), (64, 32, 3, 3), math.sqrt(6 / (32 * 9)) / math.sqrt(3)),
]


@pytest.mark.parametrize("init, shape, std", MOMENTS, ids=[f"{type(m[0]).__name__}-{m[1]}" for m in MOMENTS])
def test_moments(init, shape, std):
    w = init(KEY, shape)
    assert w.shape == shape and w.dtype == numpy.float32
    n = w.size  # the sample mean has std std/sqrt(n); the sample std about std/sqrt(2n)
    assert abs(float(w.mean())) < 5 * std / math.sqrt(n)
    assert float(w.std()) == pytest.approx(std, rel=5 / math.sqrt(2 * n) + 1e-3)


@pytest.mark.parametrize(
    "init, bound",
    [
        (initializers.Uniform(0.3), 0.3),
        (initializers.LeCunUniform(), math.sqrt(3 / 50)),
        (initializers.GlorotUniform(), math.sqrt(6 / 90)),
        (initializers.HeUniform(2.0), 2.0 * math.sqrt(6 / 50)),
    ],
)
def test_uniform_bounds(init, bound):
    w = init(KEY, (40, 50), numpy.float64)
    assert -bound <= w.min() < -0.95 * bound and 0.95 * bound < w.max() < bound


@pytest.mark.parametrize(
    "shape, scale",
    [((3, 5), 1.1), ((5, 3), 1.1), ((4, 4), 1.0), ((6, 2, 3, 3), 0.5), ((40, 18), 2.0)],
)
def test_orthogonal_rows_or_columns_are_orthonormal_times_scale(shape, scale):
    q = initializers.Orthogonal(scale)(KEY, shape, numpy.float64)
    m = q.reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    numpy.testing.assert_allclose(gram, scale**2 * numpy.eye(len(gram)), atol=1e-12)


def test_orthogonal_scalar_and_vector():
    values = {float(initializers.Orthogonal(0.5)(k, ())) for k in random.split(KEY, 20)}
    assert values == {-0.5, 0.5}
    v = initializers.Orthogonal(1.0)(KEY, (4,), numpy.float64)
    assert numpy.linalg.norm(v) == pytest.approx(1.0)  # one column of four rows: a unit vector


@pytest.mark.parametrize("cls", RANDOM_CLASSES)
def test_same_key_same_array_other_key_other_array(cls):
    init = cls()
    shape = (6, 5, 2)
    a, b = init(KEY, shape), init(KEY, shape)
    numpy.testing.assert_array_equal(a, b)
    assert not numpy.array_equal(a, init(random.key(1), shape))
    assert not numpy.array_equal(a, init(random.split(KEY)[0], shape))


@pytest.mark.parametrize("cls", RANDOM_CLASSES)
def test_random_initializers_do_not_touch_the_key_or_global_state(cls):
    key = random.key(3)
    before, state = key.copy(), numpy.random.get_state()[1].copy()
    cls()(key, (4, 4))
    numpy.testing.assert_array_equal(key, before)
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], state)


def test_float16_and_float64_draws_round_the_same_numbers():
    w64 = initializers.HeNormal()(KEY, (30, 20), numpy.float64)
    w16 = initializers.HeNormal(dtype=numpy.float16)(KEY, (30, 20))
    assert w16.dtype == numpy.float16
    numpy.testing.assert_array_equal(w16, w64.astype(numpy.float16))


@pytest.mark.parametrize("cls", RANDOM_CLASSES[1:8])
def test_empty_shapes_give_empty_arrays(cls):
    assert cls()(KEY, (3, 0)).shape == (3, 0)
    assert cls()(KEY, (0, 4, 2)).shape == (0, 4, 2)


# -- deterministic initializers -----------------------------------------------------------------


def test_constants():
    assert initializers.Zero()(None, (2, 3)).tolist() == [[0.0] * 3] * 2
    assert initializers.One(numpy.int32)(None, 3).tolist() == [1, 1, 1]
    assert numpy.isnan(initializers.NaN()(None, (2,))).all()
    w = initializers.Constant(numpy.arange(3.0))(None, (2, 3), numpy.float64)
    assert w.tolist() == [[0.0, 1.0, 2.0]] * 2 and w.flags.writeable
    assert initializers.Constant(True, numpy.bool_)(None, (2,)).tolist() == [True, True]
    assert initializers.Identity()(None, (2, 2)).tolist() == [[1, 0], [0, 1]]


def test_constant_copies_its_array_and_is_a_tree_leaf():
    fill = numpy.arange(3.0)
    init = initializers.Constant(fill)
    fill[0] = 10.0  # the caller's array is not the initializer's
    assert init(None, (3,)).tolist() == [0.0, 1.0, 2.0]
    assert not init.fill_value.flags.writeable
    leaves, structure = tree.flatten(init)
    assert len(leaves) == 1 and leaves[0] is init.fill_value
    doubled = tree.map(lambda x: x * 2, init)
    assert isinstance(doubled, initializers.Constant) and doubled(None, (3,)).tolist() == [0.0, 2.0, 4.0]


def test_initializers_are_static_hashable_values():
    assert tree.leaves(initializers.HeNormal(2.0, fan_option="fan_out")) == []
    assert initializers.HeNormal(2.0) == initializers.HeNormal(2.0) != initializers.HeNormal(3.0)
    assert len({initializers.Zero(), initializers.Zero(), initializers.One()}) == 2
    a, b = initializers.Constant(numpy.ones(3)), initializers.Constant(numpy.ones(3))
    assert a == b and hash(a) == hash(b) and a != initializers.Constant(numpy.zeros(3))
    assert initializers.NaN() == initializers.NaN()
    with pytest.raises(AttributeError):
        initializers.Normal().scale = 1.0


def test_chainer_defaults_and_argument_order():
    assert initializers.Normal().scale == 0.05 and initializers.Uniform().scale == 0.05
    assert initializers.Orthogonal() == initializers.Orthogonal(1.1, None, "auto")
    assert initializers.HeNormal(1.0, numpy.float16, "fan_out").dtype == numpy.float16
    assert initializers.Identity().scale == 1.0
    assert initializers.UpsamplingDeconvFilter().interpolation == "linear"


# -- dtypes -------------------------------------------------------------------------------------


def test_dtype_resolution():
    assert initializers.Normal()(KEY, (2,)).dtype == numpy.float32
    assert initializers.Normal(dtype=numpy.float64)(KEY, (2,)).dtype == numpy.float64
    assert initializers.Normal()(KEY, (2,), "float16").dtype == numpy.float16
    assert initializers.Normal(dtype="float64")(KEY, (2,), numpy.float64).dtype == numpy.float64
    with pytest.raises(
        errors.DTypeError, match="Normal: expected dtype to match the initializer's dtype float64"
    ):
        initializers.Normal(dtype=numpy.float64)(KEY, (2,), numpy.float32)


def test_random_initializers_need_a_float_dtype():
    with pytest.raises(errors.DTypeError, match="GlorotUniform: expected a floating-point dtype, got int32"):
        initializers.GlorotUniform()(KEY, (3, 3), numpy.int32)


def test_nan_needs_a_float_dtype():
    with pytest.raises(errors.DTypeError, match="NaN: expected a float or complex dtype"):
        initializers.NaN()(None, (2,), numpy.int32)


def test_bad_dtype():
    with pytest.raises(errors.DTypeError, match="expected dtype to be a NumPy dtype or None, got 'flaot32'"):
        initializers.Zero()(None, (2,), "flaot32")


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 3), (3,), (2, 2, 2)])
def test_identity_needs_a_square_matrix(shape):
    with pytest.raises(errors.ShapeError, match=r"Identity: expected a square 2-D shape \(n, n\)") as info:
        initializers.Identity()(None, shape)
    assert "hint: " in str(info.value)


def test_bad_fan_option():
    with pytest.raises(
        errors.InvalidInputError,
        match="HeNormal: expected fan_option to be one of 'fan_in', 'fan_out', got 'fan_avg'",
    ):
        initializers.HeNormal(fan_option="fan_avg")


def test_bad_orthogonal_mode_and_shapes():
    with pytest.raises(errors.InvalidInputError, match="Orthogonal: expected mode to be one of 'auto'"):
        initializers.Orthogonal(mode="square")
    with pytest.raises(errors.ShapeError, match=r"cannot make an orthogonal embedding of shape \(2, 6\)"):
        initializers.Orthogonal(mode="embedding")(KEY, (2, 6))
    with pytest.raises(errors.ShapeError, match=r"cannot make an orthogonal projection of shape \(6, 2\)"):
        initializers.Orthogonal(mode="projection")(KEY, (6, 2))
    with pytest.raises(errors.ShapeError, match="cannot make an orthogonal array of shape"):
        initializers.Orthogonal()(KEY, (0, 3))


def test_fan_initializers_need_two_axes():
    with pytest.raises(errors.ShapeError, match="LeCunNormal: expected a shape of length >= 2"):
        initializers.LeCunNormal()(KEY, (5,))


@pytest.mark.parametrize("key", [None, 0, numpy.zeros(4, numpy.int64), numpy.zeros(2, numpy.uint32)])
def test_random_initializers_need_a_key(key):
    with pytest.raises(
        errors.InvalidInputError, match=r"Normal: expected key to be a random key \(uint32\[4\]\)"
    ):
        initializers.Normal()(key, (2,))


@pytest.mark.parametrize("shape", [(-1, 2), (2.0, 3), "ab", None, (True, 2)])
def test_bad_shapes(shape):
    with pytest.raises(errors.ShapeError, match="One: expected shape to be a tuple of non-negative ints"):
        initializers.One()(None, shape)


def test_constant_errors():
    with pytest.raises(
        errors.InvalidInputError, match="Constant: expected fill_value to be a number or an array"
    ):
        initializers.Constant("zero")
    with pytest.raises(
        errors.ShapeError, match=r"Constant: expected fill_value to broadcast to shape \(2, 3\)"
    ):
        initializers.Constant(numpy.ones(2))(None, (2, 3))


@pytest.mark.parametrize(
    "shape, problem",
    [
        ((2, 2), r"expected a weight shape \(in_channels, out_channels, k, ...\)"),
        ((3, 2, 4, 4), "expected out_channels == in_channels or 1"),
        ((2, 2, 3, 4), "expected the same kernel size on every spatial axis"),
    ],
)
def test_sampling_filter_shapes(shape, problem):
    with pytest.raises(errors.ShapeError, match="UpsamplingDeconvFilter: " + problem):
        initializers.UpsamplingDeconvFilter()(None, shape)


def test_sampling_filter_interpolation():
    with pytest.raises(errors.InvalidInputError, match="expected interpolation to be one of 'linear'"):
        initializers.DownsamplingConvFilter("nearest")


def test_downsampling_kernels_sum_to_one():
    w = initializers.DownsamplingConvFilter()(None, (3, 3, 4, 4), numpy.float64)
    numpy.testing.assert_allclose(w.sum(axis=(2, 3)), numpy.eye(3))


# -- generate_array and as_initializer ----------------------------------------------------------


def test_generate_array():
    w = initializers.generate_array(initializers.HeNormal(), (4, 3), numpy, key=KEY)
    numpy.testing.assert_array_equal(w, initializers.HeNormal()(KEY, (4, 3)))
    assert (
        initializers.generate_array(initializers.One(), 3, numpy, numpy.float64, "@numpy").dtype
        == numpy.float64
    )
    custom = initializers.generate_array(lambda key, shape, dtype: numpy.full(shape, 2, dtype), (2,), numpy)
    assert custom.dtype == numpy.float32 and custom.tolist() == [2.0, 2.0]


def test_generate_array_errors():
    with pytest.raises(errors.DTypeError, match="initializers.generate_array: expected dtype to match"):
        initializers.generate_array(initializers.Zero(numpy.float64), (2,), numpy, numpy.float32)
    with pytest.raises(errors.InvalidInputError, match="generate_array: expected xp to be numpy or cupy"):
        initializers.generate_array(initializers.Zero(), (2,), math)
    with pytest.raises(
        errors.InvalidInputError, match="generate_array: expected device to hold numpy arrays"
    ):
        initializers.generate_array(initializers.Zero(), (2,), numpy, device="@cupy:0")
    with pytest.raises(
        errors.ShapeError, match=r"expected the initializer to return an array of shape \(2,\)"
    ):
        initializers.generate_array(lambda key, shape, dtype: numpy.zeros(3), (2,), numpy)


def test_as_initializer():
    assert initializers.as_initializer(None) == initializers.LeCunNormal()
    assert initializers.as_initializer(None, initializers.Zero()) == initializers.Zero()
    assert initializers.as_initializer(0.5) == initializers.Constant(0.5)
    assert initializers.as_initializer(numpy.float32(2)) == initializers.Constant(numpy.float32(2))
    w = numpy.ones((2, 3))
    assert initializers.as_initializer(w) == initializers.Constant(w)
    he = initializers.HeNormal()
    assert initializers.as_initializer(he) is he
    custom = lambda key, shape, dtype: numpy.zeros(shape, dtype)  # noqa: E731
    assert initializers.as_initializer(custom) is custom
    with pytest.raises(
        errors.InvalidInputError,
        match="as_initializer: expected an initializer, an array, a number or None, got str",
    ):
        initializers.as_initializer("he")


def test_public_names():
    assert "initializers" in fnet.__all__
    for name in initializers.__all__:
        assert getattr(initializers, name).__doc__


@pytest.mark.gpu
def test_generate_array_on_the_gpu():
    import cupy

    w = initializers.generate_array(initializers.GlorotNormal(), (5, 4), cupy, key=KEY)
    assert isinstance(w, cupy.ndarray) and w.dtype == numpy.float32
    numpy.testing.assert_array_equal(w.get(), initializers.GlorotNormal()(KEY, (5, 4)))
    c = initializers.Constant(cupy.arange(3.0))
    numpy.testing.assert_array_equal(c(None, (2, 3)), numpy.tile(numpy.arange(3.0), (2, 1)))


def test_default_dtype_applies_where_no_dtype_is_asked():
    key = random.key(0)
    with initializers.default_dtype(numpy.float64):
        assert initializers.LeCunNormal()(key, (3, 4)).dtype == numpy.float64
        assert initializers.Zero()(key, 2, numpy.float16).dtype == numpy.float16  # asked for
        assert initializers.Zero(dtype=numpy.float32)(key, 2).dtype == numpy.float32  # its own
    assert initializers.LeCunNormal()(key, (3, 4)).dtype == numpy.float32
