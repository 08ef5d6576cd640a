"""chainer.static_graph on fnet.recording: a static chain gives the define-by-run chain's values
and gradients, runs its Python code once (and ``static_code`` on every call), keeps one schedule
per signature, and updates persistent values on every replay."""

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet.compat import static_code, static_graph


class _MLP(chainer.Chain):
    def __init__(self, n_in=None, seed=0):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, 6, initialW=chainer.initializers.Normal(1.0))
            self.l2 = L.Linear(6, 3, initialW=chainer.initializers.Normal(1.0))
        self.python_calls = 0
        self.static_calls = 0

    def body(self, x):
        self.python_calls += 1
        return self.l2(F.relu(self.l1(x)))

    @static_code
    def count(self):
        self.static_calls += 1

    @static_graph
    def __call__(self, x):
        self.count()
        return self.body(x)


def _copy_params(src, dst):
    for (_, p), (_, q) in zip(sorted(src.namedparams()), sorted(dst.namedparams())):
        q.array = p.array.copy()


def _train_steps(model, xs, ts):
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    losses = []
    for x, t in zip(xs, ts):
        model.cleargrads()
        loss = F.softmax_cross_entropy(model(x), t)
        loss.backward()
        optimizer.update()
        losses.append(loss.array)
    return losses


def _data(n=4, seed=0):
    rng = numpy.random.default_rng(seed)
    xs = [rng.standard_normal((5, 4)).astype(numpy.float32) for _ in range(n)]
    ts = [rng.integers(0, 3, 5).astype(numpy.int32) for _ in range(n)]
    return xs, ts


def test_a_static_chain_trains_as_the_define_by_run_chain_does():
    static, dynamic = _MLP(4), _MLP(4)
    _copy_params(static, dynamic)
    xs, ts = _data()
    with chainer.using_config("use_static_graph", False):
        expected = _train_steps(dynamic, xs, ts)
    got = _train_steps(static, xs, ts)
    for e, g in zip(expected, got):
        numpy.testing.assert_array_max_ulp(e, g, maxulp=4)
    for (_, p), (_, q) in zip(sorted(static.namedparams()), sorted(dynamic.namedparams())):
        numpy.testing.assert_array_max_ulp(p.array, q.array, maxulp=4)
    assert len(static.schedule_manager.schedules) == 1


def test_python_code_runs_once_and_static_code_on_every_call():
    model = _MLP(4)
    xs, ts = _data(3)
    _train_steps(model, xs, ts)
    assert model.python_calls == 1
    assert model.static_calls == 3


def test_lazy_parameters_are_sized_define_by_run_first():
    model = _MLP(None)
    xs, ts = _data(3)
    _train_steps(model, xs, ts)
    assert model.l1.W.shape == (6, 4)
    assert model.python_calls == 2  # sizing call, then the recording
    assert model.static_calls == 3


def test_use_static_graph_off_runs_define_by_run_without_a_schedule():
    model = _MLP(4)
    with chainer.using_config("use_static_graph", False):
        model(numpy.ones((2, 4), numpy.float32))
        model(numpy.ones((2, 4), numpy.float32))
    assert model.python_calls == 2
    assert not hasattr(model, "schedule_manager") and not hasattr(model, "static_schedule")


def test_each_signature_gets_its_schedule_and_minimize_cache_size_keeps_one():
    model = _MLP(4)
    for n in (2, 3, 2):
        model(numpy.ones((n, 4), numpy.float32))
    with chainer.using_config("train", False):
        model(numpy.ones((2, 4), numpy.float32))
    assert len(model.schedule_manager.schedules) == 3
    assert model.python_calls == 3

    class Small(_MLP):
        @static_graph(minimize_cache_size=True)
        def __call__(self, x):
            return self.body(x)

    small = Small(4)
    for n in (2, 3, 2):
        small(numpy.ones((n, 4), numpy.float32))
    assert len(small.schedule_manager.schedules) == 1
    assert small.python_calls == 3


class _BN(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.bn = L.BatchNormalization(4)

    @static_graph
    def __call__(self, x):
        return F.relu(self.bn(x))


def test_replays_update_the_running_statistics():
    static, dynamic = _BN(), _BN()
    rng = numpy.random.default_rng(1)
    for _ in range(3):
        x = rng.standard_normal((6, 4)).astype(numpy.float32)
        y = static(x)
        with chainer.using_config("use_static_graph", False):
            z = dynamic(x)
        numpy.testing.assert_array_max_ulp(y.array, z.array, maxulp=4)
    numpy.testing.assert_array_max_ulp(static.bn.avg_mean, dynamic.bn.avg_mean, maxulp=4)
    numpy.testing.assert_array_max_ulp(static.bn.avg_var, dynamic.bn.avg_var, maxulp=4)
    with chainer.using_config("train", False):
        x = rng.standard_normal((6, 4)).astype(numpy.float32)
        with chainer.using_config("use_static_graph", False):
            expected = dynamic(x)  # define-by-run, test mode
        numpy.testing.assert_array_max_ulp(static(x).array, expected.array, maxulp=4)


def test_input_gradients_flow_through_a_replay():
    model = _MLP(4)
    x0 = chainer.Variable(numpy.ones((2, 4), numpy.float32))
    F.sum(model(x0)).backward()  # the recording call
    x = chainer.Variable(numpy.linspace(-1, 1, 8, dtype=numpy.float32).reshape(2, 4))
    F.sum(model(x)).backward()
    with chainer.using_config("use_static_graph", False):
        x2 = chainer.Variable(x.array.copy())
        F.sum(model(x2)).backward()
    numpy.testing.assert_array_max_ulp(x.grad, x2.grad, maxulp=4)


def test_double_backprop_runs_define_by_run():
    class Twice(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 3)

        @static_graph(enable_double_backprop=True)
        def __call__(self, x):
            return F.tanh(self.l(x))

    model = Twice()
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    (gx,) = chainer.grad([F.sum(model(x))], [x], enable_double_backprop=True)
    F.sum(gx * gx).backward()
    assert model.l.W.grad is not None


def test_keyword_arguments_are_refused_as_chainer_does():
    model = _MLP(4)
    with pytest.raises(TypeError, match="keyword"):
        model.__call__(x=numpy.ones((2, 4), numpy.float32))


def test_a_chain_that_cannot_be_recorded_runs_define_by_run_with_a_warning():
    class Branchy(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 3)

        @static_graph
        def __call__(self, x):
            h = self.l(x)
            return h if float(F.sum(h).array) > 0 else -h

    model = Branchy()
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.warns(RuntimeWarning, match="define-by-run"):
        y = model(x)
    expected = model.l(x)
    expected = expected if float(F.sum(expected).array) > 0 else -expected
    numpy.testing.assert_array_equal(y.array, expected.array)
    assert model(-x).shape == (2, 3)


def test_unknown_options_are_clear_errors():
    with pytest.raises(TypeError, match="unknown option"):
        static_graph(train_mode=True)


class _TwoHeads(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 3, initialW=chainer.initializers.Normal(1.0))
            self.l2 = L.Linear(4, 2, initialW=chainer.initializers.Normal(1.0))

    @static_graph
    def __call__(self, x):
        return self.l1(x), self.l2(x)


def test_an_output_left_out_of_the_loss_gets_a_zero_gradient_on_its_device():
    model = _TwoHeads()
    x = numpy.linspace(-1, 1, 8, dtype=numpy.float32).reshape(2, 4)
    for _ in range(2):  # the recording call, then a replay
        model.cleargrads()
        a, _ = model(x)
        F.sum(a).backward()
        assert not numpy.any(chainer.backends.cuda.to_cpu(model.l2.W.grad))
    expected = chainer.backends.cuda.to_cpu(x).sum(axis=0)
    numpy.testing.assert_array_max_ulp(
        chainer.backends.cuda.to_cpu(model.l1.W.grad), numpy.tile(expected, (3, 1)), maxulp=4
    )
