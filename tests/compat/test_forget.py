"""F.forget: the recomputation's configuration, Chainer's errors, gradients into parameters, and
links with running statistics (as Chainer 7.8.1's tests/functions_tests/util_tests/test_forget.py)."""

import functools

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L


def rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def test_forward_is_marked_will_recompute_and_backward_in_recomputing():
    seen = []

    def f(a):
        seen.append(
            (chainer.config._will_recompute, chainer.config.in_recomputing, chainer.config.enable_backprop)
        )
        return a * a

    x = chainer.Variable(rand(3))
    y = F.forget(f, x)
    assert isinstance(y, chainer.Variable) and y.creator.label == "Forget"
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    assert seen == [(True, False, False), (False, True, True)]
    numpy.testing.assert_allclose(x.grad, 2 * x.array, rtol=1e-6)


def test_arrays_become_variables_and_a_tuple_comes_back_as_one():
    x, y = rand(2, 3), rand(2, 3, seed=1)
    out = F.forget(lambda a, b: (a + b, a * b), x, y)
    assert isinstance(out, tuple) and len(out) == 2
    numpy.testing.assert_allclose(out[1].array, x * y, rtol=1e-6)


@pytest.mark.parametrize(
    "returned, match",
    [
        (lambda v: 1, "expected func to return a Variable or a tuple of Variables, got <class 'int'>"),
        (lambda v: (1,), "the 1st element .* not a Variable, but <class 'int'>"),
        (lambda v: (v, 1), "the 2nd element"),
        (lambda v: (v, v, 1), "the 3rd element"),
        (lambda v: (v,) * 10 + (1,), "the 11th element"),
        (lambda v: (v,) * 12 + (1,), "the 13th element"),
        (lambda v: (v,) * 20 + (1,), "the 21st element"),
    ],
)
def test_what_func_returns_must_be_variables(returned, match):
    v = chainer.Variable(numpy.zeros(1))
    with pytest.raises(RuntimeError, match=f"forget: {match}"):
        F.forget(lambda: returned(v))


def test_func_must_be_callable_and_double_backprop_is_refused():
    with pytest.raises(TypeError, match="forget: expected func to be callable, got int"):
        F.forget(1)
    x = F.forget(lambda v: v * 2, chainer.Variable(numpy.zeros(1)))
    x.grad_var = chainer.Variable(numpy.ones(1))
    with pytest.raises(RuntimeError, match="forget: double backpropagation"):
        x.backward(enable_double_backprop=True)


def test_the_parameters_func_uses_get_their_gradients():
    link = L.Linear(None, 4)
    link.cleargrads()  # as in Chainer, a new parameter's grad is NaN until cleared
    x = chainer.Variable(rand(5, 3))
    F.sum(F.forget(link, x)).backward()
    assert isinstance(link.W.grad_var, chainer.Variable) and isinstance(link.b.grad_var, chainer.Variable)
    numpy.testing.assert_allclose(link.b.grad, numpy.full(4, 5.0), rtol=1e-6)
    numpy.testing.assert_allclose(x.grad, numpy.broadcast_to(link.W.array.sum(0), (5, 3)), rtol=1e-5)


@pytest.mark.parametrize(
    "make", [lambda: L.BatchNormalization(3), lambda: L.BatchRenormalization(3, 2.0, 1.0)]
)
@pytest.mark.parametrize("finetune", [False, True])
def test_normalizations_update_their_statistics_once(make, finetune):
    """The recomputation neither updates the running statistics again nor (batch
    renormalization) uses the updated ones: gradients and statistics are those without forget."""
    x, gy = rand(4, 3), rand(4, 3, seed=1)
    results = []
    for use_forget in (False, True):
        link = make()
        link.avg_mean[...] = rand(3, seed=2)  # r and d of batch renormalization depend on them
        call = functools.partial(link, finetune=finetune)
        xv = chainer.Variable(x)
        y = F.forget(call, xv) if use_forget else call(xv)
        y.grad = gy
        y.backward()
        results.append((xv.grad, link.avg_mean.copy(), link.avg_var.copy(), link.N))
    (g1, m1, v1, n1), (g2, m2, v2, n2) = results
    numpy.testing.assert_allclose(g2, g1, rtol=1e-5, atol=1e-6)  # the same float32 operations
    numpy.testing.assert_array_equal(m2, m1)
    numpy.testing.assert_array_equal(v2, v1)
    assert n1 == n2 == (1 if finetune else 0)
