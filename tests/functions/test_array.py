"""Array manipulations of fnet.functions: forward values against plain NumPy references (loops
where NumPy has no such function), gradients to order 2, and the text of input errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet.errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

FLOATS = [numpy.float32, numpy.float64]
WITH_HALF = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: {"rtol": 1e-2, "atol": 1e-2},
    numpy.float32: {"rtol": 1e-5, "atol": 1e-6},
    numpy.float64: {"rtol": 1e-12, "atol": 1e-12},
}


def rand(*shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).standard_normal(shape).astype(dtype)


def assert_same(actual, expected, dtype=None):
    """``actual`` is a plain array of ``expected``'s shape and dtype, with close values."""
    assert isinstance(actual, numpy.ndarray), type(actual)
    expected = numpy.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == (expected.dtype if dtype is None else dtype), (actual.dtype, expected.dtype)
    numpy.testing.assert_allclose(actual, expected, **TOL.get(actual.dtype.type, TOL[numpy.float64]))


def assert_all_same(actual, expected):
    assert isinstance(actual, tuple) and len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_same(a, e)


def squared(f):
    """``f`` followed by an elementwise square: for linear functions, order 2 then also checks the
    derivative of the VJP (the plain second derivative of a linear map is zero)."""
    return lambda *args: fnet.tree.map(lambda y: y * y, f(*args))


# -- shapes and axes -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize(
    "name, shape, args, reference",
    [
        ("reshape", (2, 3, 4), ((4, -1),), lambda x: x.reshape(4, 6)),
        ("reshape", (6,), ((6,),), lambda x: x.copy()),
        ("flatten", (2, 3, 4), (), lambda x: x.ravel()),
        ("flatten", (), (), lambda x: x.reshape(1)),
        ("expand_dims", (2, 3), (1,), lambda x: x[:, None]),
        ("expand_dims", (2, 3), (-1,), lambda x: x[:, :, None]),
        ("squeeze", (2, 1, 1, 3), (), lambda x: x[:, 0, 0]),
        ("squeeze", (2, 1, 1, 3), (2,), lambda x: x[:, :, 0]),
        ("transpose", (2, 3, 4), (), lambda x: numpy.einsum("abc->cba", x)),
        ("transpose", (2, 3, 4), ((1, 2, 0),), lambda x: numpy.einsum("abc->bca", x)),
        ("swapaxes", (2, 3, 4), (0, 2), lambda x: numpy.einsum("abc->cba", x)),
        ("moveaxis", (2, 3, 4, 5), (0, -1), lambda x: numpy.einsum("abcd->bcda", x)),
        ("moveaxis", (2, 3, 4, 5), ((0, 3), (2, 0)), lambda x: numpy.einsum("abcd->dbac", x)),
        ("rollaxis", (2, 3, 4, 5), (3, 1), lambda x: numpy.einsum("abcd->adbc", x)),
        ("rollaxis", (2, 3, 4, 5), (1, 4), lambda x: numpy.einsum("abcd->acdb", x)),
        ("rollaxis", (2, 3, 4, 5), (2, -1), lambda x: numpy.einsum("abcd->abcd", x)),
        ("rollaxis", (2, 3, 4, 5), (-1, 0), lambda x: numpy.einsum("abcd->dabc", x)),
        ("broadcast_to", (3, 1), ((2, 3, 4),), lambda x: numpy.broadcast_to(x, (2, 3, 4))),
        ("broadcast_to", (4,), ((2, 4),), lambda x: numpy.stack([x, x])),
        ("tile", (2, 3), ((2, 1, 2),), lambda x: numpy.concatenate([x, x], 1)[None].repeat(2, 0)),
        ("tile", (2, 3), (2,), lambda x: numpy.concatenate([x, x], 1)),
        ("repeat", (2, 3), (2,), lambda x: numpy.array([v for v in x.ravel() for _ in range(2)])),
        ("repeat", (2, 3), ((1, 0, 2), 1), lambda x: x[:, [0, 2, 2]]),
        ("repeat", (2, 3), (3, 0), lambda x: x[[0, 0, 0, 1, 1, 1]]),
        ("repeat", (2, 3), ((True, False, True), 1), lambda x: x[:, [0, 2]]),  # bools count 1 and 0
        ("flip", (2, 3, 4), (1,), lambda x: x[:, ::-1]),
        ("flip", (2, 3, 4), (-1,), lambda x: x[..., ::-1]),
        ("fliplr", (2, 3, 4), (), lambda x: x[:, ::-1]),
        ("flipud", (3,), (), lambda x: x[::-1]),
        ("diagonal", (3, 4), (), lambda x: numpy.array([x[i, i] for i in range(3)])),
        (
            "diagonal",
            (2, 3, 4),
            (1, 1, 2),
            lambda x: numpy.array([[x[b, i, i + 1] for i in range(3)] for b in (0, 1)]),
        ),
        (
            "diagonal",
            (4, 2, 3),
            (-1, 0, 2),
            lambda x: numpy.array([[x[i + 1, k, i] for i in range(3)] for k in (0, 1)]),
        ),
    ],
)
def test_shape_functions_forward(name, shape, args, reference, dtype):
    x = rand(*shape, dtype=dtype)
    assert_same(getattr(F, name)(x, *args), reference(x))


@pytest.mark.parametrize(
    "name, shape, args",
    [
        ("reshape", (2, 3), ((3, 2),)),
        ("flatten", (2, 1, 3), ()),
        ("expand_dims", (3,), (0,)),
        ("squeeze", (1, 3, 1), (None,)),
        ("transpose", (2, 3, 4), ((2, 0, 1),)),
        ("swapaxes", (2, 3), (0, 1)),
        ("moveaxis", (2, 3, 4), (2, 0)),
        ("rollaxis", (2, 3, 4), (2, 1)),
        ("broadcast_to", (3, 1), ((2, 3, 4),)),
        ("broadcast_to", (1,), ((3,),)),
        ("tile", (2, 3), ((2, 1, 2),)),
        ("tile", (3,), (2,)),
        ("repeat", (2, 3), ((1, 0, 2), 1)),
        ("repeat", (2, 2), (2,)),
        ("flip", (2, 3), (0,)),
        ("fliplr", (2, 3), ()),
        ("flipud", (3, 1), ()),
        ("diagonal", (3, 4), (1,)),
        ("diagonal", (2, 3, 3), (0, 1, 2)),
    ],
)
def test_shape_functions_grads(name, shape, args):
    check_grads(squared(lambda x: getattr(F, name)(x, *args)), (rand(*shape),), order=2)


def test_broadcast():
    a, b, c = rand(3, 1), rand(1, 4, dtype=numpy.float64, seed=1), rand(2, 1, 1, seed=2)
    assert_all_same(F.broadcast(a, b, c), numpy.broadcast_arrays(a, b, c))
    assert F.broadcast(a) is a  # one argument comes back as itself, as in Chainer
    h = a.astype(numpy.float32)
    assert_all_same(F.broadcast(h, h[0]), numpy.broadcast_arrays(h, h[0]))
    check_grads(squared(F.broadcast), (a, b, c), order=2)
    check_grads(squared(F.broadcast), (rand(3), rand(2, 1, seed=1)), order=2)


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("typ", [numpy.float16, "float32", numpy.float64, numpy.int32])
def test_cast(dtype, typ):
    x = rand(2, 3, dtype=dtype) * 3
    y = F.cast(x, typ)
    assert y.dtype == numpy.dtype(typ)
    numpy.testing.assert_array_equal(y, x.astype(typ))


def test_cast_grads():
    # a float32 round trip: a large step keeps central differences above float32's rounding
    f = squared(lambda x: F.cast(F.cast(x, numpy.float32), numpy.float64))
    check_grads(f, (rand(3, 2),), order=2, eps=1e-2, rtol=1e-4)
    check_grads(squared(lambda x: F.cast(x, numpy.float64)), (rand(4),), order=2)
    assert fnet.grad(lambda x: F.cast(x, numpy.float32).sum())(rand(3)).dtype == numpy.float64


def test_copy():
    x = rand(2, 3, dtype=numpy.float32)
    for dst in (-1, "@numpy", fnet.backend.get_device("@numpy")):
        assert_same(F.copy(x, dst), x)
    check_grads(squared(lambda x: F.copy(x, -1)), (rand(2, 3),), order=2)
    with pytest.raises(ValueError, match="unknown device spec"):
        F.copy(x, "@tpu")


# -- joining and splitting -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_concat_forward(dtype):
    a, b = rand(2, 3, 4, dtype=dtype), rand(2, 1, 4, dtype=dtype, seed=1)
    assert_same(F.concat((a, b)), numpy.concatenate([a, b], axis=1))  # Chainer's default axis is 1
    assert_same(F.concat([a, a], axis=0), numpy.concatenate([a, a], axis=0))
    c = rand(2, 3, 2, dtype=dtype, seed=2)
    assert_same(F.concat([a, c, a], axis=-1), numpy.concatenate([a, c, a], axis=-1))
    assert_same(F.concat([a]), a)


@pytest.mark.parametrize("dtype", WITH_HALF)
def test_stack_forward(dtype):
    xs = [rand(3, 4, dtype=dtype, seed=s) for s in range(3)]
    for axis in (0, 1, 2, -1, -3):
        assert_same(F.stack(xs, axis), numpy.stack(xs, axis))
    assert_same(F.stack(xs), numpy.stack(xs))


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize(
    "name, shapes, reference",
    [
        ("hstack", [(), ()], lambda xs: numpy.array([float(x) for x in xs])),
        ("hstack", [(3,), (2,)], lambda xs: numpy.concatenate(xs)),
        ("hstack", [(2, 3, 1), (2, 1, 1)], lambda xs: numpy.concatenate(xs, 1)),
        ("vstack", [(3,), (3,)], lambda xs: numpy.array([list(x) for x in xs])),
        ("vstack", [(), ()], lambda xs: numpy.array([[float(x)] for x in xs])),
        ("vstack", [(1, 3), (2, 3)], lambda xs: numpy.concatenate(xs, 0)),
        ("dstack", [(), ()], lambda xs: numpy.array([[[float(x) for x in xs]]])),
        ("dstack", [(3,), (3,)], lambda xs: numpy.array([[[x[i] for x in xs] for i in range(3)]])),
        ("dstack", [(2, 3), (2, 3)], lambda xs: numpy.stack(xs, -1)),
        ("dstack", [(3, 2, 2), (3, 2, 1)], lambda xs: numpy.concatenate(xs, 2)),
    ],
)
def test_hvdstack_forward(name, shapes, reference, dtype):
    xs = [rand(*s, dtype=dtype, seed=i) for i, s in enumerate(shapes)]
    assert_same(getattr(F, name)(xs), reference(xs).astype(dtype))
    assert_same(getattr(F, name)(xs[:1]), getattr(numpy, name)(xs[:1]))


@pytest.mark.parametrize(
    "f, shapes",
    [
        (lambda *xs: F.concat(xs), [(2, 3), (2, 1)]),
        (lambda *xs: F.concat(xs, axis=0), [(1, 3), (2, 3), (1, 3)]),
        (lambda *xs: F.stack(xs, 1), [(2, 3), (2, 3)]),
        (lambda *xs: F.stack(xs, -1), [(), ()]),
        (lambda *xs: F.hstack(xs), [(3,), (1,)]),
        (lambda *xs: F.hstack(xs), [(), ()]),
        (lambda *xs: F.vstack(xs), [(3,), (3,)]),
        (lambda *xs: F.dstack(xs), [(2, 3), (2, 3)]),
        (lambda *xs: F.dstack(xs), [(1, 2, 1), (1, 2, 2)]),
    ],
)
def test_join_grads(f, shapes):
    check_grads(squared(f), [rand(*s, seed=i) for i, s in enumerate(shapes)], order=2)


@pytest.mark.parametrize("dtype", WITH_HALF)
def test_split_axis_forward(dtype):
    x = rand(4, 6, dtype=dtype)
    assert_all_same(F.split_axis(x, 3, 1), [x[:, 0:2], x[:, 2:4], x[:, 4:6]])
    assert_all_same(F.split_axis(x, [1, 3], 0), [x[0:1], x[1:3], x[3:]])
    assert_all_same(F.split_axis(x, numpy.array([2, 6]), -1), [x[:, :2], x[:, 2:6], x[:, 6:]])
    assert_all_same(F.split_axis(x, numpy.array(2), 0), [x[:2], x[2:]])
    assert_all_same(F.split_axis(x, [], 0), [x])
    assert_all_same(F.split_axis(x, 1, 1), [x])
    assert_same(F.split_axis(x, 1, 1, force_tuple=False), x)
    assert len(F.split_axis(x, 2, 0, force_tuple=False)) == 2


def test_split_axis_grads():
    check_grads(squared(lambda x: F.split_axis(x, 2, 1)), (rand(3, 4),), order=2)
    check_grads(squared(lambda x: F.split_axis(x, [1, 1, 3], 0)), (rand(3, 2),), order=2)
    # an unused piece has no cotangent: its part of the gradient is zero
    g = fnet.grad(lambda x: F.split_axis(x, [1], 0)[1].sum())(rand(3, 2))
    numpy.testing.assert_array_equal(g, [[0, 0], [1, 1], [1, 1]])


@pytest.mark.parametrize("dtype", WITH_HALF)
def test_separate(dtype):
    x = rand(2, 3, 4, dtype=dtype)
    for axis in (0, 1, 2, -1):
        expected = [numpy.take(x, i, axis=axis) for i in range(x.shape[axis])]
        assert_all_same(F.separate(x, axis), expected)
    assert_all_same(F.separate(x), [x[0], x[1]])
    check_grads(squared(lambda x: F.separate(x, 1)), (rand(2, 3),), order=2)
    check_grads(squared(F.separate), (rand(1, 2),), order=2)


def _pad_sequence_reference(xs, length, padding):
    n = max(len(x) for x in xs) if length is None else length
    out = numpy.full((len(xs), n) + xs[0].shape[1:], padding, dtype=xs[0].dtype)
    for i, x in enumerate(xs):
        for t in range(len(x)):
            out[i, t] = x[t]
    return out


@pytest.mark.parametrize("dtype", WITH_HALF + [numpy.int32])
@pytest.mark.parametrize(
    "shapes, length, padding", [([(3,), (1,), (2,)], None, 0), ([(2, 2), (0, 2)], 4, -1.5)]
)
def test_pad_sequence_forward(shapes, length, padding, dtype):
    xs = [(rand(*s, seed=i) * 5).astype(dtype) for i, s in enumerate(shapes)]
    padding = dtype(padding).item() if dtype == numpy.int32 else padding
    expected = _pad_sequence_reference(xs, length, padding)
    actual = F.pad_sequence(xs, length, padding)
    assert actual.dtype == dtype
    numpy.testing.assert_array_equal(actual, expected)  # a copy: exact


def test_pad_sequence_grads():
    check_grads(squared(lambda *xs: F.pad_sequence(xs, padding=2.0)), (rand(3), rand(1, seed=1)), order=2)
    check_grads(squared(lambda *xs: F.pad_sequence(xs, 3)), (rand(2, 2), rand(3, 2, seed=1)), order=2)


def _transpose_sequence_reference(xs):
    length = len(xs[0]) if xs else 0
    return [numpy.array([x[t] for x in xs if len(x) > t]) for t in range(length)]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize(
    "shapes", [[(4,), (2,), (2,), (1,)], [(3, 2), (3, 2)], [(2, 1, 3), (0, 1, 3)], [(1,)]]
)
def test_transpose_sequence_forward(shapes, dtype):
    xs = [rand(*s, dtype=dtype, seed=i) for i, s in enumerate(shapes)]
    ys = F.transpose_sequence(xs)
    assert_all_same(ys, _transpose_sequence_reference(xs))
    assert_all_same(F.transpose_sequence(list(ys)), xs if xs[-1].shape[0] else xs[:-1])  # its own inverse


def test_transpose_sequence_edges():
    assert F.transpose_sequence([]) == ()
    assert F.transpose_sequence([numpy.zeros((0, 3))]) == ()
    ints = [numpy.array([1, 1, 1]), numpy.array([2, 2]), numpy.array([3])]
    for y, e in zip(F.transpose_sequence(ints), [[1, 2, 3], [1, 2], [1]]):
        numpy.testing.assert_array_equal(y, e)


def test_transpose_sequence_grads():
    check_grads(
        squared(lambda *xs: F.transpose_sequence(xs)), (rand(3), rand(2, seed=1), rand(2, seed=2)), order=2
    )
    check_grads(squared(lambda *xs: F.transpose_sequence(xs)), (rand(2, 2), rand(1, 2, seed=1)), order=2)


# -- indexing --------------------------------------------------------------------------------
GET_ITEM_CASES = [
    (1, lambda x: x[1]),
    ((0, 0, slice(0, 2, 1)), lambda x: x[0, 0, 0:2]),
    ((Ellipsis, 2), lambda x: x[..., 2]),
    ((1, None, 1, 0), lambda x: x[1, None, 1, 0]),
    ([1, 0, 1], lambda x: x[numpy.array([1, 0, 1])]),
    ([slice(None), 1], lambda x: x[:, 1]),
    (
        (slice(None), numpy.array([[0, 1], [1, 1]]), slice(None, None, -2)),
        lambda x: x[:, [[0, 1], [1, 1]], ::-2],
    ),
    (numpy.array([True, False]), lambda x: x[[0]]),
]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("slices, reference", GET_ITEM_CASES)
def test_get_item_forward(slices, reference, dtype):
    x = rand(2, 2, 3, dtype=dtype)
    assert_same(F.get_item(x, slices), reference(x))


@pytest.mark.parametrize("slices", [s for s, _ in GET_ITEM_CASES[::2]] + [(numpy.array([0, 0, 1]), 1)])
def test_get_item_grads(slices):
    check_grads(squared(lambda x: F.get_item(x, slices)), (rand(2, 2, 3),), order=2)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "slices, b_shape",
    [
        ((1, slice(None)), (3,)),
        (numpy.array([0, 2, 0]), (3, 3)),
        ((slice(None), [2, 2, 0, 2]), (4, 4)),
        ([0, 0], (2, 3)),
    ],
)
def test_scatter_add(slices, b_shape, dtype):
    a, b = rand(4, 3, dtype=dtype), rand(*b_shape, dtype=dtype, seed=1)
    expected = a.copy()
    numpy.add.at(expected, slices if not isinstance(slices, list) else (numpy.array(slices),), b)
    actual = F.scatter_add(a, slices, b)
    assert_same(actual, expected)
    check_grads(
        squared(lambda a, b: F.scatter_add(a, slices, b)), (a.astype(float), b.astype(float)), order=2
    )


@pytest.mark.parametrize("dtype", WITH_HALF)
def test_select_item(dtype):
    x, t = rand(4, 3, dtype=dtype), numpy.array([0, 2, 2, 1], dtype=numpy.int32)
    assert_same(F.select_item(x, t), numpy.array([x[i, t[i]] for i in range(4)], dtype=dtype))
    check_grads(squared(lambda x: F.select_item(x, t)), (rand(4, 3),), order=2)
    check_grads(squared(lambda x: F.select_item(x, numpy.array([0]))), (rand(1, 1),), order=2)


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("axis, inv", [(0, False), (0, True), (1, False), (-1, True)])
def test_permutate(axis, inv, dtype):
    x = rand(3, 3, 3, dtype=dtype)
    indices = numpy.array([2, 0, 1], dtype=numpy.int32)
    moved = numpy.moveaxis(x, axis, 0)
    expected = numpy.empty_like(moved)
    for i, j in enumerate(indices):
        if inv:
            expected[j] = moved[i]
        else:
            expected[i] = moved[j]
    actual = F.permutate(x, indices, axis, inv)
    assert_same(actual, numpy.moveaxis(expected, 0, axis))
    check_grads(squared(lambda x: F.permutate(x, indices, axis, inv)), (rand(3, 3, 3),), order=2)


@pytest.mark.parametrize("dtype", WITH_HALF)
def test_where(dtype):
    c = numpy.array([[True, False, True]])
    x, y = rand(2, 3, dtype=dtype), rand(2, 1, dtype=dtype, seed=1)
    expected = numpy.empty((2, 3), dtype=dtype)
    for i, j in itertools.product(range(2), range(3)):
        expected[i, j] = x[i, j] if c[0, j] else y[i, 0]
    assert_same(F.where(c, x, y), expected)
    check_grads(squared(lambda x, y: F.where(c, x, y)), (rand(2, 3), rand(2, 1, seed=1)), order=2)
    check_grads(squared(lambda x, y: F.where(numpy.array(False), x, y)), (rand(3), rand(3, seed=1)), order=2)
    assert_same(F.where(c, x, 0.5), numpy.where(c, x, dtype(0.5)))  # scalars are weakly typed
    assert_same(F.where(c, numpy.float64(2), y), numpy.where(c, dtype(2), y))


def _as_strided_reference(x, shape, strides, offset):
    flat = numpy.ascontiguousarray(x).ravel()
    out = numpy.empty(shape, dtype=x.dtype)
    for index in itertools.product(*map(range, shape)):
        out[index] = flat[offset + sum(i * s for i, s in zip(index, strides))]
    return out


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize(
    "x_shape, shape, strides, offset",
    [
        ((4,), (3, 2), (1, 1), 0),
        ((3, 4), (2, 2, 2), (4, 1, 2), None),
        ((6,), (3,), (-2,), 5),
        ((2, 3), (2, 3), (0, 1), 1),
    ],
)
def test_as_strided(x_shape, shape, strides, offset, dtype):
    x = rand(*x_shape, dtype=dtype)
    expected = _as_strided_reference(x, shape, strides, offset or 0)
    assert_same(F.as_strided(x, shape, strides, offset), expected)
    check_grads(squared(lambda x: F.as_strided(x, shape, strides, offset)), (rand(*x_shape),), order=2)


def test_as_strided_gradient_adds_overlaps():
    """Chainer's documented example: overlapping windows add up their gradients."""
    g = fnet.grad(lambda x: F.as_strided(x, (3, 2), (1, 1), 0).sum())(numpy.arange(4, dtype=numpy.float32))
    assert_same(g, numpy.array([1, 2, 2, 1], dtype=numpy.float32))


# -- padding ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize(
    "pad_width, mode, keywords",
    [
        (1, "constant", {}),
        (((1, 2), (0, 1)), "constant", {"constant_values": 3.5}),
        ((2, 1), "edge", {}),
        (((0, 2), (1, 1)), "reflect", {}),
        (2, "symmetric", {}),
        (((1, 0), (2, 3)), "wrap", {}),
    ],
)
def test_pad(pad_width, mode, keywords, dtype):
    x = rand(3, 3, dtype=dtype)
    assert_same(F.pad(x, pad_width, mode, **keywords), numpy.pad(x, pad_width, mode=mode, **keywords))
    check_grads(squared(lambda x: F.pad(x, pad_width, mode, **keywords)), (rand(3, 3),), order=2)


# -- images ----------------------------------------------------------------------------------
def _depth2space_reference(X, r):
    n, crr, h, w = X.shape
    c = crr // (r * r)
    y = numpy.empty((n, c, h * r, w * r), dtype=X.dtype)
    for b, k, i, j, di, dj in itertools.product(range(n), range(c), range(h), range(w), range(r), range(r)):
        y[b, k, i * r + di, j * r + dj] = X[b, (di * r + dj) * c + k, i, j]
    return y


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("shape, r", [((1, 4, 2, 3), 2), ((2, 18, 1, 2), 3), ((1, 2, 2, 1), 1)])
def test_depth2space_and_space2depth(shape, r, dtype):
    X = rand(*shape, dtype=dtype)
    Y = _depth2space_reference(X, r)
    assert_same(F.depth2space(X, r), Y)
    assert_same(F.space2depth(Y, r), X)


def test_depth2space_chainer_example():
    X = numpy.arange(24, dtype=numpy.float32).reshape(1, 4, 2, 3)
    expected = [[0, 6, 1, 7, 2, 8], [12, 18, 13, 19, 14, 20], [3, 9, 4, 10, 5, 11], [15, 21, 16, 22, 17, 23]]
    assert_same(F.depth2space(X, 2), numpy.array([[expected]], dtype=numpy.float32))


@pytest.mark.parametrize("shape, r", [((1, 4, 1, 2), 2), ((2, 9, 1, 1), 3)])
def test_depth2space_and_space2depth_grads(shape, r):
    check_grads(squared(lambda X: F.depth2space(X, r)), (rand(*shape),), order=2)
    up = (shape[0], shape[1] // (r * r), shape[2] * r, shape[3] * r)
    check_grads(squared(lambda X: F.space2depth(X, r)), (rand(*up),), order=2)


def _im2col_reference(x, k, s, p, cover_all, d):
    n, c, h, w = x.shape
    size = [h, w]
    out = [
        (size[a] + 2 * p[a] - ((k[a] - 1) * d[a] + 1) + (s[a] - 1 if cover_all else 0)) // s[a] + 1
        for a in (0, 1)
    ]
    col = numpy.zeros((n, c, k[0], k[1], out[0], out[1]), dtype=x.dtype)
    for ky, kx, oy, ox in itertools.product(range(k[0]), range(k[1]), range(out[0]), range(out[1])):
        iy, ix = oy * s[0] - p[0] + ky * d[0], ox * s[1] - p[1] + kx * d[1]
        if 0 <= iy < h and 0 <= ix < w:
            col[:, :, ky, kx, oy, ox] = x[:, :, iy, ix]
    return col.reshape(n, c * k[0] * k[1], out[0], out[1])


def _as_pair(v):
    return (v, v) if isinstance(v, int) else v


IM2COL_CASES = [
    ((2, 3, 4, 5), 3, 1, 0, False, 1),
    ((1, 2, 5, 6), (2, 3), (2, 1), (1, 2), False, 1),
    ((1, 2, 5, 6), (2, 3), (2, 3), (1, 0), True, 1),
    ((1, 1, 7, 6), 2, 2, 1, True, (2, 1)),
    ((2, 1, 3, 3), 1, 3, 0, False, 1),
]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("shape, ksize, stride, pad, cover_all, dilate", IM2COL_CASES)
def test_im2col_forward(shape, ksize, stride, pad, cover_all, dilate, dtype):
    x = rand(*shape, dtype=dtype)
    expected = _im2col_reference(x, *map(_as_pair, (ksize, stride, pad)), cover_all, _as_pair(dilate))
    assert_same(F.im2col(x, ksize, stride, pad, cover_all, dilate), expected)


@pytest.mark.parametrize("shape, ksize, stride, pad, cover_all, dilate", IM2COL_CASES[1:4])
def test_im2col_grads(shape, ksize, stride, pad, cover_all, dilate):
    check_grads(
        squared(lambda x: F.im2col(x, ksize, stride, pad, cover_all, dilate)), (rand(*shape),), order=2
    )


def test_im2col_adjoint_is_col2im():
    """``<im2col(x), c> == <x, im2col^T(c)>``: the VJP is the exact adjoint (the col2im scatter)."""
    x = rand(1, 2, 5, 6)
    y, pullback = fnet.vjp(lambda x: F.im2col(x, (2, 3), (2, 1), (1, 2)), x)
    c = rand(*y.shape, seed=1)
    (gx,) = pullback(c)
    numpy.testing.assert_allclose(numpy.vdot(y, c), numpy.vdot(x, gx), rtol=1e-12)


def _resize_reference(x, out_shape, mode, align_corners):
    n, c, h, w = x.shape
    out_h, out_w = out_shape

    def position(o, size, out):
        if mode == "nearest":
            return min(numpy.floor(o * size / out), size - 1)
        if align_corners:
            return o * (size - 1) / (out - 1) if out > 1 else 0.0
        return max((o + 0.5) * size / out - 0.5, 0.0)

    y = numpy.zeros((n, c, out_h, out_w))
    for i, j in itertools.product(range(out_h), range(out_w)):
        py, px = position(i, h, out_h), position(j, w, out_w)
        y0, x0 = int(numpy.floor(py)), int(numpy.floor(px))
        for yy, xx in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
            weight = max(0.0, 1 - abs(py - yy)) * max(0.0, 1 - abs(px - xx))
            if weight:
                y[:, :, i, j] += weight * x[:, :, min(yy, h - 1), min(xx, w - 1)]
    return y.astype(x.dtype)


RESIZE_CASES = [
    ((1, 2, 3, 4), (5, 7)),
    ((2, 1, 5, 6), (2, 3)),
    ((1, 1, 1, 3), (4, 1)),
    ((1, 1, 4, 4), (4, 4)),
]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("mode, align_corners", [("bilinear", True), ("bilinear", False), ("nearest", True)])
@pytest.mark.parametrize("shape, out_shape", RESIZE_CASES)
def test_resize_images_forward(shape, out_shape, mode, align_corners, dtype):
    x = rand(*shape, dtype=dtype)
    expected = _resize_reference(x.astype(numpy.float64), out_shape, mode, align_corners).astype(dtype)
    assert_same(F.resize_images(x, out_shape, mode=mode, align_corners=align_corners), expected)


def test_resize_images_default_is_bilinear_with_aligned_corners():
    x = rand(1, 1, 2, 2, dtype=numpy.float32)
    y = F.resize_images(x, (3, 3))
    assert_same(y[0, 0, 1:2, 1], x.mean(keepdims=True)[0, 0, 0])
    assert_same(y[0, 0, ::2, ::2], x[0, 0])


@pytest.mark.parametrize("mode, align_corners", [("bilinear", True), ("bilinear", False), ("nearest", True)])
@pytest.mark.parametrize("shape, out_shape", RESIZE_CASES[:3])
def test_resize_images_grads(shape, out_shape, mode, align_corners):
    f = squared(lambda x: F.resize_images(x, out_shape, mode=mode, align_corners=align_corners))
    check_grads(f, (rand(*shape),), order=2)


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("n, out_shape", [(2, (3, 4)), (1, (1, 2))])
def test_spatial_transformer_grid(n, out_shape, dtype):
    theta = rand(n, 2, 3, dtype=dtype)
    h, w = out_shape
    expected = numpy.empty((n, 2, h, w))
    for b, i, j in itertools.product(range(n), range(h), range(w)):
        xt = -1 + 2 * j / (w - 1) if w > 1 else -1.0
        yt = -1 + 2 * i / (h - 1) if h > 1 else -1.0
        expected[b, :, i, j] = theta[b].astype(numpy.float64) @ [xt, yt, 1.0]
    assert_same(F.spatial_transformer_grid(theta, out_shape), expected.astype(dtype))
    check_grads(lambda t: F.spatial_transformer_grid(t, out_shape) ** 2, (rand(n, 2, 3),), order=2)


def _sampler_reference(x, grid):
    n, c, h, w = x.shape
    _, _, out_h, out_w = grid.shape
    y = numpy.zeros((n, c, out_h, out_w))
    for b, i, j in itertools.product(range(n), range(out_h), range(out_w)):
        px, py = (grid[b, 0, i, j] + 1) * (w - 1) / 2, (grid[b, 1, i, j] + 1) * (h - 1) / 2
        x0, y0 = int(numpy.floor(px)), int(numpy.floor(py))
        for yy, xx in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
            if 0 <= yy < h and 0 <= xx < w:  # zeros outside the image
                y[b, :, i, j] += (1 - abs(px - xx)) * (1 - abs(py - yy)) * x[b, :, yy, xx]
    return y


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("x_shape, out", [((2, 3, 4, 5), (3, 2)), ((1, 1, 2, 2), (4, 4))])
def test_spatial_transformer_sampler_forward(x_shape, out, dtype):
    x = rand(*x_shape, dtype=dtype)
    grid = (numpy.random.RandomState(1).uniform(-1.6, 1.6, (x_shape[0], 2) + out)).astype(dtype)
    grid[0, :, 0, 0] = [-1, 1]  # a corner of the image, exactly
    expected = _sampler_reference(x.astype(numpy.float64), grid.astype(numpy.float64)).astype(dtype)
    assert_same(F.spatial_transformer_sampler(x, grid), expected)


def test_spatial_transformer_sampler_grads():
    x = rand(2, 2, 3, 4)
    grid = numpy.random.RandomState(1).uniform(-1.2, 1.2, (2, 2, 3, 2))
    check_grads(squared(F.spatial_transformer_sampler), (x, grid), order=2)
    theta = numpy.array([[[0.9, 0.2, 0.13], [-0.1, 0.8, 0.07]]])  # no grid point on a pixel line
    sample = lambda x, theta: F.spatial_transformer_sampler(x, F.spatial_transformer_grid(theta, (2, 3)))
    check_grads(squared(sample), (rand(1, 1, 3, 3), theta), order=2)


# -- errors ----------------------------------------------------------------------------------
X32 = numpy.zeros((2, 3), dtype=numpy.float32)
IMG = numpy.zeros((1, 4, 2, 2), dtype=numpy.float32)

ERRORS = [
    (lambda: F.reshape(X32, (4, 2)), ShapeError, r"reshape: cannot reshape 6 elements into shape \(4, 2\)"),
    (lambda: F.squeeze(X32, 0), ShapeError, "squeeze: cannot squeeze axis 0 of length 2"),
    (lambda: F.expand_dims(X32, 3), ShapeError, "expand_dims: axis 3 is out of bounds"),
    (lambda: F.swapaxes(X32, 0, 2), ShapeError, "swapaxes: axis 2 is out of bounds"),
    (lambda: F.diagonal(X32, 0, 1, 1), ShapeError, "diagonal: axis1 and axis2 must differ"),
    (lambda: F.transpose(X32, (0, 0)), ShapeError, r"transpose: axes \(0, 0\) is not a permutation"),
    (
        lambda: F.moveaxis(X32.astype(int), 0, 1),
        DTypeError,
        "moveaxis: expected x to be a float array, got int64",
    ),
    (
        lambda: F.rollaxis(X32, 2),
        ShapeError,
        "rollaxis: axis=2 is out of bounds for an array of 2 dimensions",
    ),
    (lambda: F.rollaxis(X32, 0, 3), ShapeError, r"rollaxis: start=3 is out of bounds(.|\n)*\[-2, 2\]"),
    (
        lambda: F.broadcast_to(X32, (3, 3)),
        ShapeError,
        r"broadcast_to: cannot broadcast shape \(2, 3\) to \(3, 3\)",
    ),
    (
        lambda: F.broadcast(X32, X32[:, :2]),
        ShapeError,
        r"broadcast: shapes \(2, 3\), \(2, 2\) cannot be broadcast",
    ),
    (lambda: F.broadcast(), InvalidInputError, "broadcast: expected at least one array"),
    (
        lambda: F.split_axis(X32, [2, 1], 1),
        InvalidInputError,
        r"split_axis: expected sorted .*, got \[2, 1\]",
    ),
    (lambda: F.tile(X32, (2, -1)), InvalidInputError, r"tile: expected reps >= 0, got \(2, -1\)"),
    (lambda: F.tile(X32, 1.5), InvalidInputError, "tile: expected reps to be an int or a tuple of ints"),
    (lambda: F.repeat(X32, (1, 2), 1), ShapeError, "repeat: expected 1 or 3 repeat counts, got 2"),
    (lambda: F.repeat(X32, -1), InvalidInputError, "repeat: expected repeats >= 0"),
    (lambda: F.flip(X32[0, 0], 0), ShapeError, "flip: expected x.ndim == 1..32, got 0"),
    (lambda: F.flip(X32, 2), ShapeError, "flip: axis=2 is out of bounds"),
    (lambda: F.fliplr(X32[0]), ShapeError, "fliplr: expected a.ndim == 2..32, got 1"),
    (lambda: F.flipud(X32.astype(int)), DTypeError, "flipud: expected a to be a float array"),
    (lambda: F.concat([]), InvalidInputError, "concat: expected at least one array in xs"),
    (
        lambda: F.concat([X32, X32[:1]]),
        ShapeError,
        r"concat: expected every array of xs to have the same shape "
        r"except on axis 1, got \(2, 3\) and \(1, 3\)",
    ),
    (
        lambda: F.concat([X32, X32.astype(numpy.float64)]),
        DTypeError,
        r"concat: expected xs\[0\].dtype == xs\[1\].dtype",
    ),
    (lambda: F.concat([X32], axis=2), ShapeError, "concat: axis=2 is out of bounds"),
    (
        lambda: F.stack([X32, X32.T]),
        ShapeError,
        r"stack: expected every array of xs to have the same shape, got",
    ),
    (lambda: F.hstack([X32, X32[0]]), ShapeError, r"hstack: .* got \(2, 3\) and \(3,\)"),
    (lambda: F.vstack([X32[0], X32[0, :2]]), ShapeError, r"vstack: .*the same shape, got \(3,\) and \(2,\)"),
    (lambda: F.dstack([X32, X32[:1]]), ShapeError, r"dstack: .*the same shape, got \(2, 3\) and \(1, 3\)"),
    (
        lambda: F.split_axis(X32, 2, 1),
        ShapeError,
        r"split_axis: expected x.shape\[1\] to be divisible by sections=2",
    ),
    (
        lambda: F.split_axis(X32, [1, 4], 1),
        ShapeError,
        r"split_axis: split position 4 is beyond x.shape\[1\] = 3",
    ),
    (
        lambda: F.split_axis(X32, [0.5], 1),
        DTypeError,
        "split_axis: expected indices_or_sections to be an int",
    ),
    (lambda: F.separate(X32, 2), ShapeError, "separate: axis=2 is out of bounds"),
    (lambda: F.pad_sequence([]), InvalidInputError, "pad_sequence: expected at least one array"),
    (lambda: F.pad_sequence([X32[0, 0]]), ShapeError, r"pad_sequence: expected xs\[0\].ndim == 1..32, got 0"),
    (
        lambda: F.pad_sequence([X32, X32[:, :2]]),
        ShapeError,
        "pad_sequence: expected every array of xs to have",
    ),
    (
        lambda: F.pad_sequence([X32], 1),
        ShapeError,
        "pad_sequence: expected every sequence to have at most length=1",
    ),
    (
        lambda: F.transpose_sequence([X32[:1], X32]),
        InvalidInputError,
        r"decreasing length, got lengths \[1, 2\]",
    ),
    (lambda: F.transpose_sequence([X32, X32[:, :1]]), ShapeError, "transpose_sequence: expected every array"),
    (lambda: F.get_item(X32, (0, 5)), IndexError, "getitem: index"),
    (
        lambda: F.scatter_add(X32, 0, X32),
        ShapeError,
        r"scatter_add: expected b.shape == a\[slices\].shape, "
        r"got \(2, 3\) != \(3,\)",
    ),
    (
        lambda: F.scatter_add(X32, 0, X32[0].astype(numpy.float64)),
        DTypeError,
        "scatter_add: expected a.dtype == b.dtype",
    ),
    (lambda: F.select_item(X32[0], numpy.array([0])), ShapeError, "select_item: expected x.ndim == 2, got 1"),
    (
        lambda: F.select_item(X32, numpy.array([0])),
        ShapeError,
        r"select_item: expected t.shape\[0\] == x.shape\[0\]",
    ),
    (
        lambda: F.select_item(X32, numpy.array([0, 3])),
        InvalidInputError,
        "select_item: label 3 in t is out of range",
    ),
    (
        lambda: F.select_item(X32, numpy.array([0.0, 1.0])),
        DTypeError,
        "select_item: expected t to be an integer",
    ),
    (
        lambda: F.permutate(X32, numpy.array([0, 0])),
        InvalidInputError,
        r"expected indices to be a permutation of range\(2\)",
    ),
    (
        lambda: F.permutate(X32, numpy.array([0, 1, 2])),
        InvalidInputError,
        r"permutation of range\(2\) \(x.shape\[0\]\)",
    ),
    (
        lambda: F.permutate(X32, numpy.array([[0, 1]])),
        DTypeError,
        "permutate: expected indices to be a one-dimensional",
    ),
    (
        lambda: F.where(X32, X32, X32),
        DTypeError,
        "where: expected condition to be a boolean array, got float32",
    ),
    (
        lambda: F.where(X32 > 0, X32, X32.astype(numpy.float64)),
        DTypeError,
        "where: expected x.dtype == y.dtype",
    ),
    (
        lambda: F.where(X32 > 0, X32, X32[:, :2]),
        ShapeError,
        "where: condition, x and y cannot be broadcast together",
    ),
    (
        lambda: F.as_strided(X32, (2, 2), (3, 3), 0),
        InvalidInputError,
        "as_strided: the view reads elements 0..6, outside",
    ),
    (lambda: F.as_strided(X32, (2,), (1, 1)), ShapeError, "as_strided: expected one stride per axis"),
    (lambda: F.pad(X32, 1, "mean"), InvalidInputError, "pad: mode 'mean' is not supported"),
    (lambda: F.pad(X32, 1, "edge", constant_values=1), InvalidInputError, r"pad: unexpected keyword\(s\)"),
    (lambda: F.pad(X32, -1, "constant"), InvalidInputError, "pad: expected pad widths >= 0"),
    (lambda: F.pad(X32.astype(int), 1, "constant"), DTypeError, "pad: expected x to be a float array"),
    (lambda: F.depth2space(X32, 2), ShapeError, "depth2space: expected X.ndim == 4, got 2"),
    (
        lambda: F.depth2space(IMG, 3),
        ShapeError,
        r"depth2space: expected X.shape\[1\] to be divisible by r \* r = 9",
    ),
    (
        lambda: F.space2depth(IMG, 3),
        ShapeError,
        "space2depth: expected the height and width of X to be divisible",
    ),
    (lambda: F.space2depth(IMG.astype(int), 2), DTypeError, "space2depth: expected X to be a float array"),
    (lambda: F.im2col(X32, 2), ShapeError, "im2col: expected x.ndim == 4, got 2"),
    (
        lambda: F.im2col(IMG, 3),
        ShapeError,
        r"im2col: the kernel \(3, 3\) with dilation \(1, 1\) does not fit",
    ),
    (lambda: F.im2col(IMG, 1, stride=0), InvalidInputError, "im2col: expected ksize, stride, dilate >= 1"),
    (lambda: F.im2col(IMG, (1, 2, 3)), InvalidInputError, "im2col: expected ksize to be an int or a pair"),
    (lambda: F.resize_images(IMG, (3, 3), mode="cubic"), InvalidInputError, "resize_images: mode 'cubic'"),
    (lambda: F.resize_images(IMG[0], (3, 3)), ShapeError, "resize_images: expected x.ndim == 4, got 3"),
    (
        lambda: F.spatial_transformer_grid(X32, (2, 2)),
        ShapeError,
        "spatial_transformer_grid: expected theta.ndim == 3",
    ),
    (
        lambda: F.spatial_transformer_grid(IMG[0], (2, 2)),
        ShapeError,
        r"expected theta.shape\[1:\] == \(2, 3\)",
    ),
    (
        lambda: F.spatial_transformer_grid(IMG[0, :2, :, :], (2, 2), use_cudnn=True),
        InvalidInputError,
        "use_cudnn",
    ),
    (
        lambda: F.spatial_transformer_sampler(IMG, IMG),
        ShapeError,
        r"expected grid.shape\[:2\] == \(x.shape\[0\], 2\)",
    ),
    (
        lambda: F.spatial_transformer_sampler(IMG, IMG[:, :2].astype(numpy.float64)),
        DTypeError,
        "x.dtype == grid.dtype",
    ),
    (lambda: F.spatial_transformer_sampler(IMG, IMG, foo=1), TypeError, "unexpected keyword arguments"),
]


@pytest.mark.parametrize("call, error, match", ERRORS)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_error_messages_name_the_operands_and_a_hint():
    with pytest.raises(ShapeError) as info:
        F.concat([X32, X32[:1]])
    text = str(info.value)
    assert "xs[0]: float32[2, 3]" in text and "xs[1]: float32[1, 3]" in text and "hint:" in text


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: F.repeat(X32, "a"), r"repeat: expected repeats to be an int or a tuple of ints, got 'a'"),
        (lambda: F.repeat(X32, 1, "a"), r"repeat: expected axis to be an int, got 'a'"),
        (lambda: F.repeat(X32, 1, True), r"repeat: expected axis to be an int, got True"),
        (lambda: F.tile(X32, "a"), r"tile: expected reps to be an int or a tuple of ints, got 'a'"),
        (lambda: F.tile(X32, 1.5), r"tile: expected reps to be an int or a tuple of ints, got 1.5"),
        (lambda: F.tile((X32, X32), 2), r"tile: expected x to be an array, got tuple"),
        (lambda: F.concat([X32, X32], axis=1.0), r"concat: expected axis to be an int, got 1.0"),
    ],
)
def test_arguments_of_a_wrong_type_are_type_errors(call, match):
    # Chainer raises TypeError for these; fnet's error is a TypeError and an InvalidInputError
    with pytest.raises(ArgumentTypeError, match=match) as info:
        call()
    assert isinstance(info.value, TypeError)


def test_flip_takes_a_bool_axis_as_chainer_does():
    x = numpy.arange(6.0).reshape(2, 3)
    numpy.testing.assert_array_equal(F.flip(x, True), x[:, ::-1])


def test_a_cast_to_the_same_dtype_is_a_node_of_its_own():
    # as in Chainer, where grad(y1 + y2, [y1, y2]) is 1 each for two no-op casts y1, y2 of one x
    x = numpy.array([1.5, -2.0], numpy.float32)
    assert F.cast(x, numpy.float32) is x  # no copy
    seen = []

    def f(v):
        y1, y2 = F.cast(v, numpy.float32), F.cast(v, "float32")
        seen.extend([y1 is v, y2 is v, y1 is y2])
        return F.sum(y1 * y2)

    numpy.testing.assert_array_equal(fnet.grad(f)(x), 2 * x)
    assert seen == [False, False, False]
    check_grads(lambda v: F.cast(v, numpy.float64) * v, (numpy.array([0.5, -1.5]),), order=2)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda a, b: F.get_item(a, (Ellipsis, Ellipsis)),
            InvalidInputError,
            r"get_item: expected at most one Ellipsis",
        ),
        (
            lambda a, b: F.get_item(a, [Ellipsis, 0, Ellipsis]),
            InvalidInputError,
            r"get_item: expected at most one",
        ),
        (
            lambda a, b: F.scatter_add(a, (Ellipsis, Ellipsis), b),
            InvalidInputError,
            r"scatter_add: expected at most one",
        ),
        (
            lambda a, b: F.scatter_add(a, (0, 0, 0, 0), b),
            ShapeError,
            r"scatter_add: slices \(0, 0, 0, 0\) do not index a",
        ),
    ],
)
def test_indices_chainer_refuses_with_a_value_error(call, error, match):
    # NumPy raises IndexError for these; Chainer's get_item / scatter_add raise ValueError
    with pytest.raises(error, match=match):
        call(numpy.zeros((3, 2, 2)), numpy.ones((2, 2)))
