"""GradientMethod.use_captured_update (fnet's opt-in): optimizer.update(lossfun, *args)
recorded once per signature and replayed, leaving every object as the eager update does."""

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L


class _Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 8, initialW=chainer.initializers.Normal(1.0))
            self.bn = L.BatchNormalization(8)
            self.l2 = L.Linear(8, 3, initialW=chainer.initializers.Normal(1.0))
        self.python_calls = 0

    def forward(self, x):
        self.python_calls += 1
        return self.l2(F.relu(self.bn(self.l1(x))))


def _pair(optimizer_class, **hyper):
    models = [L.Classifier(_Net()) for _ in range(2)]
    for (_, p), (_, q) in zip(sorted(models[0].namedparams()), sorted(models[1].namedparams())):
        q.array = p.array.copy()
    optimizers = [optimizer_class(**hyper) for _ in range(2)]
    for optimizer, model in zip(optimizers, models):
        optimizer.setup(model)
    optimizers[1].use_captured_update()
    return models, optimizers


def _batches(n):
    rng = numpy.random.default_rng(0)
    return [
        (rng.standard_normal((6, 4)).astype(numpy.float32), rng.integers(0, 3, 6).astype(numpy.int32))
        for _ in range(n)
    ]


@pytest.mark.parametrize(
    "optimizer_class, hyper",
    [
        (chainer.optimizers.SGD, {"lr": 0.1}),
        (chainer.optimizers.MomentumSGD, {}),
        (chainer.optimizers.Adam, {}),
    ],
)
def test_captured_updates_leave_what_eager_updates_leave(optimizer_class, hyper):
    (eager_model, model), (eager_opt, opt) = _pair(optimizer_class, **hyper)
    for x, t in _batches(5):
        eager_opt.update(eager_model, x, t)
        opt.update(model, x, t)
    assert opt._captured_update.counts == {"records": 1, "replays": 3}  # the first update is eager
    assert model.predictor.python_calls == 2
    assert opt.t == eager_opt.t == 5
    for (_, p), (_, q) in zip(sorted(model.namedparams()), sorted(eager_model.namedparams())):
        numpy.testing.assert_array_max_ulp(p.array, q.array, maxulp=8, dtype=numpy.float32)
        numpy.testing.assert_array_max_ulp(p.grad, q.grad, maxulp=8, dtype=numpy.float32)
        assert p.update_rule.t == q.update_rule.t == 5
        for key in q.update_rule.state:
            numpy.testing.assert_array_max_ulp(p.update_rule.state[key], q.update_rule.state[key], maxulp=8)
    numpy.testing.assert_array_max_ulp(
        model.predictor.bn.avg_mean, eager_model.predictor.bn.avg_mean, maxulp=8
    )


def test_reports_of_the_loss_function_are_replayed():
    (_, model), (_, opt) = _pair(chainer.optimizers.SGD, lr=0.1)
    losses = []
    for x, t in _batches(4):
        observation = {}
        with chainer.reporter.Reporter() as reporter:
            reporter.add_observer("main", model)
            with reporter.scope(observation):
                opt.update(model, x, t)
        assert isinstance(observation["main/loss"], chainer.Variable)  # as the eager update reports
        losses.append(float(observation["main/loss"].array))
    assert opt._captured_update.counts["replays"] == 2
    assert len(set(losses)) == 4  # each replay reports its own loss


def test_an_update_that_cannot_be_recorded_runs_eagerly_with_a_warning():
    (eager_model, model), (eager_opt, opt) = _pair(chainer.optimizers.SGD, lr=0.1)

    def clip(optimizer):  # a hook that reads a value into Python
        norm = float(sum(F.sum(p.grad * p.grad).array for p in optimizer.target.params()))
        assert norm >= 0

    for o in (eager_opt, opt):
        o.add_hook(clip, name="clip")
    batches = _batches(3)
    eager_opt.update(eager_model, *batches[0])
    opt.update(model, *batches[0])
    with pytest.warns(RuntimeWarning, match="eagerly"):
        opt.update(model, *batches[1])
    eager_opt.update(eager_model, *batches[1])
    opt.update(model, *batches[2])
    eager_opt.update(eager_model, *batches[2])
    for (_, p), (_, q) in zip(sorted(model.namedparams()), sorted(eager_model.namedparams())):
        numpy.testing.assert_array_max_ulp(p.array, q.array, maxulp=8)
    assert opt.t == 3
