"""chainer.optimizer_hooks on fnet.compat: each hook called as Chainer calls it, and on an optimizer."""

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import optimizer_hooks, optimizers
from fnet.compat.link import Chain, Link


def param_with_grad(data, grad):
    param = chainer.Parameter(numpy.asarray(data, numpy.float64))
    param.grad = numpy.asarray(grad, numpy.float64)
    return param


class Pair(Chain):
    """Two links of two parameters each, with fixed values and gradients."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            for i, name in enumerate(("a", "b")):
                link = Link()
                with link.init_scope():
                    link.W = param_with_grad([[1.0 + i, -2.0], [0.5, 3.0 - i]], [[0.3, -0.4], [1.5, 0.2 * i]])
                    link.b = param_with_grad([0.25 * i, -1.0], [-0.6, 0.1])
                setattr(self, name, link)


def grads(model):
    return {name: param.grad.copy() for name, param in model.namedparams()}


# Chainer 7.8.1's class attributes (chainer/optimizer_hooks/*.py)
ATTRIBUTES = [
    ("WeightDecay", (0.1,), "pre", True),
    ("Lasso", (0.1,), "pre", True),
    ("GradientClipping", (1.0,), "pre", False),
    ("GradientHardClipping", (-1.0, 1.0), "pre", True),
    ("GradientNoise", (0.1,), "pre", True),
    ("GradientLARS", (), "pre", True),
]


@pytest.mark.parametrize(("name", "args", "timing", "per_param"), ATTRIBUTES)
def test_hooks_have_chainer_attributes(name, args, timing, per_param):
    hook = getattr(optimizer_hooks, name)(*args)
    assert (hook.name, hook.timing, hook.call_for_each_param) == (name, timing, per_param)


def test_constructor_arguments_are_attributes():
    assert optimizer_hooks.WeightDecay(0.1).rate == 0.1
    hard = optimizer_hooks.GradientHardClipping(-1.0, None)
    assert (hard.lower_bound, hard.upper_bound) == (-1.0, None)
    lars = optimizer_hooks.GradientLARS()
    assert (lars.threshold, lars.weight_decay, lars.eps) == (1e-2, 0.0, 1e-9)
    noise = optimizer_hooks.GradientNoise(0.3)
    assert (noise.eta, noise.noise_func) == (0.3, optimizer_hooks.exponential_decay_noise)


def test_weight_decay_and_lasso_edit_the_gradient():
    param = param_with_grad([2.0, -3.0], [1.0, 1.0])
    optimizer_hooks.WeightDecay(0.5)(None, param)
    numpy.testing.assert_allclose(param.grad, [2.0, -0.5])
    optimizer_hooks.Lasso(0.5)(None, param)
    numpy.testing.assert_allclose(param.grad, [2.5, -1.0])


def test_weight_decay_is_scaled_by_the_loss_scale():
    param = param_with_grad([2.0], [1.0])
    param._loss_scale = 4.0
    optimizer_hooks.WeightDecay(0.5)(None, param)
    numpy.testing.assert_allclose(param.grad, [5.0])


def test_hard_clipping_clips_elements_and_takes_open_bounds():
    param = param_with_grad([0.0, 0.0, 0.0], [-2.0, 0.5, 2.0])
    optimizer_hooks.GradientHardClipping(-1.0, None)(None, param)
    numpy.testing.assert_allclose(param.grad, [-1.0, 0.5, 2.0])
    optimizer_hooks.GradientHardClipping(None, 0.25)(None, param)
    numpy.testing.assert_allclose(param.grad, [-1.0, 0.25, 0.25])


def test_lars_scales_by_the_norm_ratio_above_the_threshold():
    param = param_with_grad([3.0, 4.0], [0.0, 2.0])
    optimizer_hooks.GradientLARS(threshold=1.0, weight_decay=0.5, eps=0.0)(None, param)
    rate = 5.0 / (2.0 + 0.5 * 5.0)
    numpy.testing.assert_allclose(param.grad, [1.5 * rate, 4.0 * rate])
    small = param_with_grad([0.003, 0.004], [1.0, 2.0])
    optimizer_hooks.GradientLARS()(None, small)
    numpy.testing.assert_allclose(small.grad, [1.0, 2.0])


def test_gradient_clipping_scales_all_gradients_of_the_target_together():
    model = Pair()
    optimizer = optimizers.SGD().setup(model)
    before = grads(model)
    norm = numpy.sqrt(sum((g**2).sum() for g in before.values()))
    optimizer_hooks.GradientClipping(norm / 2)(optimizer)
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.grad, before[name] / 2)
    kept = {name: param.grad for name, param in model.namedparams()}
    optimizer_hooks.GradientClipping(norm)(optimizer)
    assert all(param.grad is kept[name] for name, param in model.namedparams())


def test_gradient_clipping_takes_a_0d_array_threshold_as_chainer_does():
    """A norm computed with the array module (a 0-d CuPy array on a GPU) is a threshold too."""
    model = Pair()
    optimizer = optimizers.SGD().setup(model)
    before = grads(model)
    norm = numpy.sqrt(sum(float((g**2).sum()) for g in before.values()))
    optimizer_hooks.GradientClipping(numpy.array(norm / 2))(optimizer)
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.grad, before[name] / 2)


def test_hooks_skip_parameters_without_gradient():
    param = chainer.Parameter(numpy.ones(2))
    for hook in (
        optimizer_hooks.WeightDecay(0.1),
        optimizer_hooks.Lasso(0.1),
        optimizer_hooks.GradientHardClipping(-1, 1),
        optimizer_hooks.GradientLARS(),
        optimizer_hooks.GradientNoise(0.1),
    ):
        hook(None, param)
        assert param.grad is None
    uninitialized = chainer.Parameter()
    optimizer_hooks.WeightDecay(0.1)(None, uninitialized)  # skipped: its grad is not readable yet
    assert uninitialized.array is None and uninitialized._grad_var is None


def test_a_changed_attribute_takes_effect():
    hook = optimizer_hooks.WeightDecay(0.1)
    hook.rate = 1.0
    param = param_with_grad([2.0], [0.0])
    hook(None, param)
    numpy.testing.assert_allclose(param.grad, [2.0])


def test_gradient_noise_gets_the_rule_and_its_step_count():
    seen = []

    def noise_func(xp, shape, dtype, hook, opt):
        seen.append((xp, shape, dtype, hook, opt.t))
        return xp.full(shape, hook.eta * (opt.t + 1), dtype)

    rule = optimizers.SGDRule()
    rule.t = 2
    param = param_with_grad([0.0, 0.0], [1.0, 1.0])
    hook = optimizer_hooks.GradientNoise(0.5, noise_func=noise_func)
    hook(rule, param)
    numpy.testing.assert_allclose(param.grad, [2.5, 2.5])
    assert seen == [(numpy, (2,), numpy.dtype(numpy.float64), hook, 2)]


def test_default_gradient_noise_follows_numpy_seed_and_its_variance():
    class Rule:
        t = 3

    hook = optimizer_hooks.GradientNoise(0.5)
    numpy.random.seed(0)
    first = optimizer_hooks.exponential_decay_noise(numpy, (20000,), numpy.float32, hook, Rule())
    numpy.random.seed(0)
    second = optimizer_hooks.exponential_decay_noise(numpy, (20000,), numpy.float32, hook, Rule())
    numpy.testing.assert_array_equal(first, second)
    assert first.dtype == numpy.float32
    assert first.var() == pytest.approx(0.5 / 4**0.55, rel=0.05)


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("WeightDecay", ("much",), "rate"),
        ("Lasso", (None,), "rate"),
        ("GradientClipping", ("x",), "threshold"),
        ("GradientHardClipping", ("low", 1.0), "lower_bound"),
        ("GradientLARS", (1.0, "w"), "weight_decay"),
        ("GradientNoise", (0.1, 3), "noise_func"),
    ],
)
def test_bad_arguments_are_reported_at_construction(name, args, message):
    with pytest.raises(ValueError, match=message):
        getattr(optimizer_hooks, name)(*args)


@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizer_hooks.WeightDecay(0.3),
        lambda: optimizer_hooks.Lasso(0.2),
        lambda: optimizer_hooks.GradientHardClipping(-0.5, 0.25),
        lambda: optimizer_hooks.GradientLARS(threshold=0.5, weight_decay=0.1),
        lambda: optimizer_hooks.GradientNoise(0.1, lambda xp, shape, dtype, hook, opt: xp.ones(shape, dtype)),
    ],
)
def test_on_an_optimizer_a_hook_edits_each_parameter_as_one_call_would(make):
    model, alone = Pair(), Pair()
    optimizer = optimizers.SGD().setup(model)
    optimizer.add_hook(make())
    optimizer.call_hooks()
    hook = make()
    for param in alone.params():
        hook(None, param)
    for (name, a), (_, b) in zip(model.namedparams(), alone.namedparams()):
        numpy.testing.assert_allclose(a.grad, b.grad, rtol=1e-14, err_msg=name)


def test_a_subclass_that_overrides_call_is_called_per_parameter():
    calls = []

    class Counting(optimizer_hooks.WeightDecay):
        def __call__(self, rule, param):
            calls.append(rule)
            super().__call__(rule, param)

    model = Pair()
    optimizer = optimizers.SGD().setup(model)
    optimizer.add_hook(Counting(0.1))
    optimizer.call_hooks()
    assert calls == [param.update_rule for param in model.params()]


def test_a_rule_hook_edits_only_its_parameter():
    model = Pair()
    optimizer = optimizers.SGD(lr=1.0).setup(model)
    model.a.W.update_rule.add_hook(optimizer_hooks.GradientHardClipping(0.0, 0.0))
    before = {name: param.array.copy() for name, param in model.namedparams()}
    expected = grads(model)
    optimizer.update()
    numpy.testing.assert_array_equal(model.a.W.array, before["/a/W"])
    numpy.testing.assert_allclose(model.b.W.array, before["/b/W"] - expected["/b/W"])


@pytest.mark.parametrize(
    "hook",
    [
        lambda: optimizer_hooks.WeightDecay(0.1),
        lambda: optimizer_hooks.Lasso(0.1),
        lambda: optimizer_hooks.GradientClipping(0.1),
        lambda: optimizer_hooks.GradientHardClipping(-0.1, 0.1),
        lambda: optimizer_hooks.GradientNoise(0.1),
    ],
)
def test_hooks_hand_a_0d_parameter_an_array_grad(hook):
    param = chainer.Parameter(numpy.array(2.0, numpy.float32))
    param.grad = numpy.array(1.0, numpy.float32)
    made = hook()
    if getattr(made, "call_for_each_param", False):
        made(chainer.UpdateRule(), param)
    else:
        made._apply([(chainer.UpdateRule(), param)])
    assert type(param.grad) is numpy.ndarray and param.grad.dtype == numpy.float32
