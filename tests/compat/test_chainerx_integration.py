"""ChainerX inside the Chainer layer: ChainerxDevice, to_chx/from_chx, Variables and Links
holding ChainerX arrays, functions and backward on them (facts from Chainer 7.8.1's source)."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet.compat import backend, chainerx


def f32(*values):
    return numpy.array(values, numpy.float32)


def test_chainerx_devices_by_name_and_by_chainerx_device():
    native = chainerx.get_device("native:0")
    device = chainer.get_device("native:0")
    assert isinstance(device, backend.ChainerxDevice) and device.device is native
    assert device == chainer.get_device("native") == chainer.get_device(native)
    assert device != chainer.get_device("native:1") and device != backend.CpuDevice()
    assert hash(device) == hash(chainer.get_device("native:0"))
    assert (device.name, str(device), repr(device)) == ("native:0", "native:0", "<ChainerxDevice native:0>")
    assert device.xp is chainerx and device.fallback_device == backend.CpuDevice()
    assert backend.ChainerxDevice.from_fallback_device(backend.CpuDevice()) == device
    with pytest.raises(RuntimeError, match="expected a CpuDevice or a GpuDevice"):
        backend.ChainerxDevice.from_fallback_device(device)


def test_use_and_using_device_set_chainerxs_default_device():
    other = chainer.get_device("native:1")
    with chainer.using_device(other):
        assert chainerx.get_default_device() is other.device
    assert chainerx.get_default_device() is chainerx.get_device("native:0")
    try:
        other.use()
        assert chainerx.get_default_device() is other.device
    finally:
        chainer.get_device("native:0").use()


def test_arrays_go_to_chainerx_and_back_sharing_memory():
    a = f32(1, 2, 3)
    c = backend.to_chx(a)
    assert isinstance(c, chainerx.ndarray) and c.device is chainerx.get_device("native:0")
    a[0] = 9.0  # one memory: the ChainerX array sees the write
    assert c.tolist() == [9.0, 2.0, 3.0]
    assert backend.from_chx(c) is a
    converted = backend.to_chx([a, None, a])
    assert converted[0] is converted[2] and converted[1] is None
    assert backend.from_chx((c,))[0] is a
    device = chainer.get_device("native:0")
    assert device.send(c) is c and device.is_array_supported(c) and not device.is_array_supported(a)
    moved = chainer.get_device("native:1").send(c)
    assert moved.device.name == "native:1"
    with pytest.raises(TypeError, match="from_chx"):
        backend.from_chx("text")


def test_the_device_and_module_of_chainerx_arrays():
    c = backend.to_chx(f32(1))
    assert backend.get_device_from_array(f32(1), c) == chainer.get_device("native:0")
    assert backend.get_array_module(c) is chainerx
    assert backend.get_array_module(chainer.Variable(c)) is chainerx
    assert backend.get_array_module(f32(1)) is numpy
    assert backend.ChainerxDevice.from_array(c) == chainer.get_device("native:0")
    assert backend.ChainerxDevice.from_array(f32(1)) is None


def test_a_variable_holds_a_chainerx_array():
    c = backend.to_chx(f32(1, 2))
    x = chainer.Variable(c)
    assert x.array is c and x.xp is chainerx and x.device == chainer.get_device("native:0")
    assert x._has_chainerx_array and x.shape == (2,) and x.dtype == numpy.float32
    x.grad = backend.to_chx(f32(3, 4))
    assert isinstance(x.grad, chainerx.ndarray) and x.grad.tolist() == [3.0, 4.0]
    x.array = f32(5, 6)  # a NumPy array makes it a NumPy variable again, as in Chainer
    assert x.xp is numpy and not x._has_chainerx_array


def test_variable_to_chx_and_from_chx_share_the_memory():
    a, g = f32(1, 2), f32(3, 4)
    x = chainer.Variable(a)
    x.grad = g
    x.to_chx()
    assert isinstance(x.array, chainerx.ndarray) and isinstance(x.grad, chainerx.ndarray)
    assert backend.from_chx(x.array) is a and backend.from_chx(x.grad) is g
    x.to_chx()  # nothing: it holds ChainerX arrays already
    with pytest.raises(RuntimeError, match="requires grad cannot move"):
        x.from_chx()  # it is in ChainerX's graph (Chainer's rule)
    p = chainer.Parameter(a)
    p.grad = g
    p.to_chx()
    p.from_chx()  # a parameter may
    assert p.array is a and p.grad is g and p.device == backend.CpuDevice()
    n = chainer.Variable(a, requires_grad=False)
    n.grad = g
    n.to_device("native:0")  # no grad in ChainerX without requires_grad
    assert n.device == chainer.get_device("native:0") and n.grad is None
    n.to_device("@numpy")
    assert n.array is a


def test_a_variable_with_a_creator_is_not_converted():
    y = chainer.Variable(f32(1)) * 2
    with pytest.raises(RuntimeError, match="with a creator"):
        y.to_chx()
    z = chainer.Variable(backend.to_chx(f32(1))) * 2
    with pytest.raises(RuntimeError, match="requires grad cannot move"):
        z.from_chx()


def test_functions_on_chainerx_variables_give_chainerx_results_and_grads():
    x = chainer.Variable(backend.to_chx(f32(1, -2, 3)))
    y = F.relu(x * 2) + x
    assert isinstance(y.array, chainerx.ndarray) and y.device == x.device
    loss = F.sum(y)
    loss.backward()
    assert isinstance(x.grad, chainerx.ndarray)
    numpy.testing.assert_array_equal(backend.from_chx(x.grad), f32(3, 1, 3))
    # the same function on NumPy data gives the same values (one implementation)
    xn = chainer.Variable(f32(1, -2, 3))
    numpy.testing.assert_array_equal(backend.from_chx(y.array), (F.relu(xn * 2) + xn).array)
    # a function applied to a bare ChainerX array gives a Variable of a ChainerX array
    r = F.relu(backend.to_chx(f32(-1, 1)))
    assert isinstance(r.array, chainerx.ndarray) and r.array.tolist() == [0.0, 1.0]


def test_a_function_node_on_chainerx_inputs_runs_its_numpy_forward():
    seen = []

    class Double(chainer.FunctionNode):
        def forward(self, inputs):
            seen.append(type(inputs[0]))
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * 2,)

    x = chainer.Variable(backend.to_chx(f32(1, 2)))
    (y,) = Double().apply((x,))
    assert seen == [numpy.ndarray] and isinstance(y.array, chainerx.ndarray)
    y.grad = backend.to_chx(f32(1, 1))
    y.backward()
    assert isinstance(x.grad, chainerx.ndarray) and x.grad.tolist() == [2.0, 2.0]


def test_a_link_moves_to_chainerx_and_trains_there():
    link = L.Linear(3, 2)
    W = link.W.array
    assert link.to_chx() is link
    assert link.xp is chainerx and link.device == chainer.get_device("native:0")
    assert isinstance(link.W.array, chainerx.ndarray) and backend.from_chx(link.W.array) is W
    y = link(backend.to_chx(numpy.ones((1, 3), numpy.float32)))
    F.sum(y).backward()
    assert isinstance(y.array, chainerx.ndarray) and isinstance(link.W.grad, chainerx.ndarray)
    assert link.from_chx() is link and link.W.array is W and link.device == backend.CpuDevice()
    lazy = L.Linear(None, 2).to_chx()  # drawn on its first call, as ChainerX
    lazy(backend.to_chx(numpy.ones((1, 3), numpy.float32)))
    assert isinstance(lazy.W.array, chainerx.ndarray)
    assert isinstance(L.Linear(3, 2).to_device("native:0").W.array, chainerx.ndarray)


def test_the_cpu_device_takes_the_data_of_a_native_chainerx_array():
    a = f32(1, 2)
    assert backend.CpuDevice().send(backend.to_chx(a)) is a


def test_an_uninitialized_chainerx_parameter_loads_through_serialize():
    link = L.Linear(None, 2).to_chx()
    loaded = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)

    def serializer(name, value):
        return loaded if name == "W" else value

    serializer.__getitem__ = None
    link.serialize(serializer)
    assert isinstance(link.W.array, chainerx.ndarray) and link.W.array.tolist() == loaded.tolist()


def test_a_chainerx_variable_provides_no_node_but_its_functions_graph_works():
    x = chainer.Variable(backend.to_chx(f32(1, 2)))
    with pytest.raises(RuntimeError, match="does not provide a node"):
        _ = x.node
    y = x * x
    assert y.creator is not None and y.creator.inputs[0] is x._node
    assert chainer.Variable(f32(1)).node is not None


def test_copydata_writes_into_a_chainerx_variables_memory():
    a = f32(1, 2)
    x = chainer.Variable(backend.to_chx(a))
    x.copydata(chainer.Variable(f32(5, 6)))
    assert a.tolist() == [5.0, 6.0] and isinstance(x.array, chainerx.ndarray)
    y = chainer.Variable(f32(0, 0))
    y.copydata(x)
    assert y.array.tolist() == [5.0, 6.0] and y.xp is numpy


def test_chainerx_arrays_are_array_types_and_compatible_only_with_each_other():
    c = backend.to_chx(f32(1, 2))
    assert chainerx.ndarray in backend.get_array_types() and chainerx.ndarray in backend.get_cpu_array_types()
    assert backend.is_arrays_compatible([c, None, c]) and not backend.is_arrays_compatible([c, f32(1, 2)])
    a = f32(0, 0)
    backend.copyto(c, f32(7, 8))
    backend.copyto(a, c)
    assert c.tolist() == [7.0, 8.0] and a.tolist() == [7.0, 8.0]


def test_a_noncontiguous_copy_of_a_chainerx_array_stays_chainerx():
    from fnet.compat.testing import array as testing_array

    c = backend.to_chx(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    spread = testing_array._as_noncontiguous_array(c)
    assert isinstance(spread, chainerx.ndarray) and not spread.is_contiguous
    assert spread.device is c.device and spread.tolist() == c.tolist()


def test_gradient_checks_on_chainerx_inputs_give_func_chainerx_variables():
    from fnet.compat import gradient_check

    x = backend.to_chx(numpy.random.uniform(0.5, 1, (3, 2)).astype(numpy.float32))
    gy = backend.to_chx(numpy.ones((3, 2), numpy.float32))
    seen = []

    def func(v):
        seen.append(v.xp)
        return F.tanh(v)

    gradient_check.check_backward(func, x, gy, dtype=numpy.float64, atol=1e-4, rtol=1e-4)
    gradient_check.check_double_backward(func, x, gy, gy, dtype=numpy.float64, atol=1e-4, rtol=1e-4)
    assert seen and all(xp is chainerx for xp in seen)

    class Wrong(chainer.FunctionNode):  # a backward off by a factor of two is caught
        def forward(self, inputs):
            return (inputs[0] * 3,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * 6,)

    with pytest.raises(AssertionError, match="check_backward failed"):
        gradient_check.check_backward(lambda v: Wrong().apply((v,))[0], x, gy, dtype=numpy.float64)


def test_a_chainerx_variable_that_requires_no_grad_takes_none():
    x = chainer.Variable(backend.to_chx(f32(1, 2)), requires_grad=False)
    with pytest.raises(RuntimeError, match="does not require grad"):
        x.grad = backend.to_chx(f32(1, 1))
    with pytest.raises(RuntimeError, match="does not require grad"):
        x.grad_var = chainer.Variable(backend.to_chx(f32(1, 1)))
    x.grad = None
    y = chainer.Variable(f32(1, 2), requires_grad=False)
    y.grad = f32(1, 1)  # NumPy variables take one, as in Chainer
    assert y.grad is not None


def test_addgrad_adds_between_chainerx_variables_only():
    x = chainer.Variable(backend.to_chx(f32(1, 2)))
    x.grad = backend.to_chx(f32(1, 1))
    y = chainer.Variable(backend.to_chx(f32(3, 4)))
    y.grad = backend.to_chx(f32(2, 3))
    x.addgrad(y)
    assert isinstance(x.grad, chainerx.ndarray) and x.grad.tolist() == [3.0, 4.0]
    n = chainer.Variable(f32(1, 2))
    n.grad = f32(1, 1)
    with pytest.raises(RuntimeError, match="ChainerX and non-ChainerX"):
        x.addgrad(n)
    with pytest.raises(RuntimeError, match="ChainerX and non-ChainerX"):
        n.addgrad(x)


def test_an_uninitialized_parameter_is_on_the_device_it_will_be_drawn_on():
    p = chainer.Parameter()
    assert p.device == backend.CpuDevice()
    p.to_device("native:0")
    assert p.device == chainer.get_device("native:0")
    p.initialize((2,))
    assert isinstance(p.array, chainerx.ndarray) and p.device == chainer.get_device("native:0")


@pytest.mark.parametrize(
    "make", [lambda: chainer.optimizers.Adam(), lambda: chainer.optimizers.MomentumSGD()]
)
def test_an_optimizer_updates_a_chainerx_link_in_place_as_it_updates_a_numpy_one(make):
    def trained(device):
        numpy.random.seed(0)
        link = L.Linear(3, 2)
        link.to_device(device)
        optimizer = make()
        optimizer.setup(link)
        for _ in range(3):
            x = link.xp.asarray(numpy.linspace(-1, 1, 12, dtype=numpy.float32).reshape(4, 3))
            link.cleargrads()
            F.sum(link(x) ** 2).backward()
            optimizer.update()
        return link

    on_chx, on_numpy = trained("native:0"), trained("@numpy")
    assert isinstance(on_chx.W.array, chainerx.ndarray) and isinstance(on_chx.W.grad, chainerx.ndarray)
    for name in ("W", "b"):
        got = chainerx.to_numpy(getattr(on_chx, name).array)
        # the same arithmetic, though NumPy's links update in one batch and ChainerX's one by one
        numpy.testing.assert_array_max_ulp(got, getattr(on_numpy, name).array, maxulp=4)


@pytest.mark.gpu
def test_a_gpu_array_goes_to_chainerx_cuda_and_back_sharing_its_memory():
    # as Chainer's to_chx: a CuPy array becomes a ChainerX array on its GPU, one memory
    cupy = chainer.backends.cuda.cupy
    a = cupy.asarray(f32(1, 2))
    c = backend.to_chx(a)
    assert c.device is chainerx.get_device("cuda:0") and backend.from_chx(c) is a
    x = chainer.Variable(cupy.asarray(f32(3, 4)))
    x.to_chx()
    assert x.device == chainer.get_device("cuda:0") and x.array.tolist() == [3.0, 4.0]
    on_host = chainerx.array(a, device="native:0")
    a[0] = 9.0  # the native copy does not see it; the cuda array does
    assert on_host.tolist() == [1.0, 2.0] and c.tolist() == [9.0, 2.0]
    assert chainerx.array(a, dtype="float64").dtype == chainerx.float64


def test_initializers_fill_chainerx_arrays_and_generate_them():
    # Chainer's initializers take ChainerX arrays: filled in place, or made on a ChainerX device
    from fnet.compat import initializers

    a = chainerx.zeros((2, 3), "float32", device="native:1")
    initializers.Constant(2.5)(a)
    assert a.device.name == "native:1" and a.tolist() == [[2.5] * 3] * 2
    w = initializers.generate_array(initializers.Identity(scale=2.0), (2, 2), chainerx, device="native:1")
    assert isinstance(w, chainerx.ndarray) and w.device.name == "native:1"
    assert w.tolist() == [[2.0, 0.0], [0.0, 2.0]] and w.dtype == chainerx.float32
    assert initializers.generate_array(initializers.Normal(1.0), (3,), chainerx).device.name == "native:0"


@pytest.mark.gpu
def test_chainerx_arrays_go_to_and_from_the_gpu():
    cuda = chainer.backends.cuda
    native = backend.to_chx(f32(1, 2))
    moved = cuda.to_gpu(native)  # Chainer's to_gpu takes a native ChainerX array's data
    assert isinstance(moved, cuda.cupy.ndarray) and cuda.to_cpu(moved).tolist() == [1.0, 2.0]
    on_gpu = chainerx.array(cuda.cupy.asarray(f32(3, 4)))
    host = chainerx.to_numpy(on_gpu)  # a host copy of a cuda array
    assert type(host) is numpy.ndarray and host.tolist() == [3.0, 4.0]


def test_optimizer_hooks_edit_a_chainerx_parameters_gradient_in_place():
    from fnet.compat import optimizer_hooks, optimizers

    link = L.Linear(2, 1, initialW=numpy.array([[1.0, -2.0]], numpy.float32), nobias=True)
    link.to_device("native:0")
    link.W.grad = backend.to_chx(numpy.array([[0.5, 0.5]], numpy.float32))
    grad = link.W.grad
    seen = []

    def noise(xp, shape, dtype, hook, rule):
        seen.append(xp)
        return xp.full(shape, 0.25, dtype=dtype)

    optimizer = optimizers.SGD(lr=1.0)
    optimizer.setup(link)
    optimizer.add_hook(optimizer_hooks.Lasso(0.1))
    optimizer.add_hook(optimizer_hooks.GradientNoise(1.0, noise_func=noise))
    optimizer.update()
    # grad + 0.1 * sign(W) + 0.25, written into the gradient's own memory, then W -= grad
    assert link.W.grad is grad and isinstance(grad, chainerx.ndarray)
    numpy.testing.assert_allclose(backend.from_chx(grad), [[0.85, 0.65]], rtol=1e-6)
    numpy.testing.assert_allclose(backend.from_chx(link.W.array), [[0.15, -2.65]], rtol=1e-6)
    assert seen == [chainerx]  # the noise is drawn with the parameter's module, as in Chainer


def test_an_update_rule_updates_a_chainerx_parameter_through_update_core_chainerx():
    calls = []

    class Rule(chainer.UpdateRule):
        def update_core_chainerx(self, param):
            calls.append("chainerx")
            super().update_core_chainerx(param)  # by default: update_core on the data under it

        def update_core(self, param):
            calls.append(type(param.array).__module__.split(".")[0])
            param.array -= param.grad

    param = chainer.Parameter(backend.to_chx(f32(1, 2)))
    param.grad = backend.to_chx(f32(0.5, 0.5))
    Rule().update(param)
    assert calls == ["chainerx", "numpy"] and param.array.tolist() == [0.5, 1.5]
    plain = chainer.Parameter(f32(1, 2))
    plain.grad = f32(0.5, 0.5)
    calls.clear()
    Rule().update(plain)
    assert calls == [type(plain.array).__module__.split(".")[0]]  # update_core alone, wherever it is


@pytest.mark.gpu
def test_backward_from_a_loss_on_chainerx_cuda_starts_on_that_device():
    link = L.Linear(2, 3)
    link.to_device("cuda:0")
    x = chainerx.array(f32(1, 2).reshape(1, 2), device="cuda:0")
    loss = F.sum(link(x) ** 2)
    loss.backward()  # the seed of ones is made on cuda:0, where the loss is
    assert link.W.grad.device.name == "cuda:0" and link.W.grad.shape == (3, 2)
