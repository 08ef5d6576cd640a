"""chainer.optimizer on fnet.compat: Optimizer, GradientMethod, UpdateRule, Hyperparameter, as documented."""

import copy
import pickle

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat import optimizer as optimizer_module
from fnet.compat import optimizer_hooks, optimizers
from fnet.compat.link import Chain, Link
from fnet.compat.optimizer import GradientMethod, Hyperparameter, HyperparameterProxy, UpdateRule
from fnet.compat.serializer import Deserializer, Serializer
from fnet.compat.serializers import DictionarySerializer, NpzDeserializer


class Linear(Link):
    def __init__(self, n_in, n_out, seed=0):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.W = chainer.Parameter(rng.uniform(-1, 1, (n_out, n_in)))
            self.b = chainer.Parameter(numpy.zeros(n_out))

    def forward(self, x):
        return F.linear(x, self.W, self.b)


class Net(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(3, 2, seed=1)
            self.l2 = Linear(2, 2, seed=2)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


X = numpy.linspace(-1, 1, 12).reshape(4, 3)


def loss_of(model):
    return lambda: F.sum(model(X) ** 2)


def arrays(model):
    return {name: param.array.copy() for name, param in model.namedparams()}


def set_grads(model, value=1.0):
    for param in model.params():
        param.grad = numpy.full_like(param.array, value)


# -- Hyperparameter ---------------------------------------------------------------------------


def test_hyperparameter_falls_back_to_its_parent():
    parent = Hyperparameter()
    parent.lr, parent.momentum = 0.1, 0.9
    child = Hyperparameter(parent)
    child.lr = 0.5
    assert (child.lr, child.momentum, parent.lr) == (0.5, 0.9, 0.1)
    assert child.parent is parent and parent.parent is None
    assert child.get_dict() == {"lr": 0.5, "momentum": 0.9}
    assert repr(child) == "Hyperparameter(lr=0.5, momentum=0.9)"
    parent.momentum = 0.5
    assert child.momentum == 0.5


def test_hyperparameter_without_an_entry_raises_attribute_error():
    hp = Hyperparameter(Hyperparameter())
    with pytest.raises(AttributeError, match="no entry 'lr'"):
        _ = hp.lr
    assert getattr(hp, "lr", None) is None


def test_hyperparameter_copies_and_pickles():
    parent = Hyperparameter()
    parent.lr = 0.1
    child = Hyperparameter(parent)
    for other in (copy.deepcopy(child), pickle.loads(pickle.dumps(child))):
        assert other.lr == 0.1 and other.parent is not parent


def test_hyperparameter_proxy_reads_and_writes_the_entry():
    optimizer = optimizers.MomentumSGD(lr=0.1)
    assert isinstance(optimizers.MomentumSGD.lr, HyperparameterProxy)
    optimizer.momentum = 0.5
    assert optimizer.hyperparam.momentum == 0.5
    assert optimizer.hyperparam.get_dict() == {"lr": 0.1, "momentum": 0.5}


# -- setup, update, counts ----------------------------------------------------------------------


def test_setup_returns_the_optimizer_and_gives_every_parameter_a_rule():
    model = Net()
    optimizer = optimizers.SGD()
    assert optimizer.setup(model) is optimizer
    assert optimizer.target is model and (optimizer.t, optimizer.epoch) == (0, 0)
    rules = [param.update_rule for param in model.params()]
    assert all(isinstance(rule, optimizers.SGDRule) for rule in rules)
    assert len({id(rule) for rule in rules}) == 4
    assert all(rule.hyperparam.parent is optimizer.hyperparam for rule in rules)


def test_setup_needs_a_link():
    with pytest.raises(TypeError, match="must be a link, got ndarray"):
        optimizers.SGD().setup(numpy.zeros(3))


def test_update_with_a_loss_function_clears_computes_and_updates():
    model = Net()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    set_grads(model, 100.0)  # stale grads are cleared before backward
    expected = {}
    probe = Net()
    probe.cleargrads()
    loss_of(probe)().backward()
    for name, param in probe.namedparams():
        expected[name] = param.array - 0.1 * param.grad
    optimizer.update(loss_of(model))
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, expected[name])
    assert optimizer.t == 1
    assert all(param.update_rule.t == 1 for param in model.params())


def test_update_without_a_loss_function_uses_the_grads_present():
    model = Net()
    optimizer = optimizers.SGD(lr=0.5).setup(model)
    before = arrays(model)
    set_grads(model, 2.0)
    optimizer.update()
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, before[name] - 1.0)


def test_update_passes_arguments_to_the_loss_function():
    model = Net()
    optimizer = optimizers.SGD().setup(model)
    seen = []

    def lossfun(x, scale=1.0):
        seen.append(scale)
        return F.sum(model(x)) * scale

    optimizer.update(lossfun, X, scale=3.0)
    assert seen == [3.0]


def test_a_parameter_without_grad_gets_zeros_and_is_still_updated():
    model = Net()
    optimizer = optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(model)
    set_grads(model, 1.0)
    optimizer.update()
    velocity = model.l1.W.update_rule.state["v"].copy()
    model.l1.W.cleargrad()
    before = model.l1.W.array.copy()
    optimizer.update()
    numpy.testing.assert_array_equal(model.l1.W.grad, numpy.zeros_like(before))
    numpy.testing.assert_allclose(model.l1.W.array, before + 0.5 * velocity)
    assert model.l1.W.update_rule.t == 2


def test_disabled_rules_leave_their_parameters_alone():
    model = Net()
    optimizer = optimizers.Adam().setup(model)
    model.l2.disable_update()
    before = arrays(model)
    optimizer.update(loss_of(model))
    assert not numpy.array_equal(model.l1.W.array, before["/l1/W"])
    numpy.testing.assert_array_equal(model.l2.W.array, before["/l2/W"])
    assert model.l2.W.update_rule.t == 0 and model.l2.W.update_rule.state is None
    model.l2.enable_update()
    optimizer.update(loss_of(model))
    assert model.l2.W.update_rule.t == 1


def test_uninitialized_parameters_count_steps_without_state():
    model = Net()
    with model.l1.init_scope():
        model.l1.lazy = chainer.Parameter()
    optimizer = optimizers.Adam().setup(model)
    optimizer.update(loss_of(model))
    rule = model.l1.lazy.update_rule
    assert (rule.t, rule.state, model.l1.lazy.grad) == (1, None, None)
    saved = {}
    DictionarySerializer(saved).save(optimizer)
    assert "l1/lazy/t" in saved and "l1/lazy/m" not in saved


def test_parameters_added_after_setup_are_not_updated():
    model = Net()
    optimizer = optimizers.SGD().setup(model)
    with model.l1.init_scope():
        model.l1.extra = chainer.Parameter(numpy.ones(2))
    model.l1.extra.grad = numpy.ones(2)
    optimizer.update()
    numpy.testing.assert_array_equal(model.l1.extra.array, numpy.ones(2))


def test_param_update_runs_its_rule():
    model = Net()
    optimizers.SGD(lr=1.0).setup(model)
    model.l1.b.grad = numpy.ones(2)
    model.l1.b.update()
    numpy.testing.assert_array_equal(model.l1.b.array, -numpy.ones(2))
    assert model.l1.b.update_rule.t == 1


def test_use_cleargrads_is_deprecated_and_false_means_zerograds():
    model = Net()
    optimizer = optimizers.SGD().setup(model)
    with pytest.warns(DeprecationWarning, match="use_cleargrads is deprecated"):
        optimizer.use_cleargrads(False)
    with pytest.warns(DeprecationWarning, match="zerograds"):
        optimizer.update(loss_of(model))


def test_new_epoch_and_auto_new_epoch():
    optimizer = optimizers.SGD().setup(Net())
    optimizer.new_epoch()
    assert optimizer.epoch == 1
    with pytest.raises(RuntimeError, match="auto=True"):
        optimizer.new_epoch(auto=True)
    optimizer.use_auto_new_epoch = True
    optimizer.new_epoch(auto=True)
    with pytest.raises(RuntimeError, match="duplicated new_epoch"):
        optimizer.new_epoch()
    assert optimizer.epoch == 2


# -- hooks ------------------------------------------------------------------------------------


def test_hooks_need_setup():
    with pytest.raises(RuntimeError, match="not set up"):
        optimizers.SGD().add_hook(optimizer_hooks.WeightDecay(0.1))


def test_hook_registration_rules():
    optimizer = optimizers.SGD().setup(Net())
    optimizer.add_hook(optimizer_hooks.WeightDecay(0.1))
    with pytest.raises(KeyError, match='hook "WeightDecay" already exists'):
        optimizer.add_hook(optimizer_hooks.WeightDecay(0.2))
    optimizer.add_hook(optimizer_hooks.WeightDecay(0.2), name="decay2")
    with pytest.raises(TypeError, match="callable"):
        optimizer.add_hook(3)
    with pytest.raises(ValueError, match="timing must be one of"):
        optimizer.add_hook(lambda opt: None, name="x", timing="later")

    class Nameless:
        def __call__(self, opt):
            pass

    with pytest.raises(ValueError, match="no name"):
        optimizer.add_hook(Nameless())
    optimizer.remove_hook("WeightDecay")
    with pytest.raises(KeyError, match="no hook named 'WeightDecay'"):
        optimizer.remove_hook("WeightDecay")


def test_function_hooks_are_named_after_the_function():
    optimizer = optimizers.SGD().setup(Net())

    def my_hook(opt):
        pass

    optimizer.add_hook(my_hook)
    optimizer.remove_hook("my_hook")


def test_an_invalid_timing_attribute_falls_back_to_pre_with_a_warning():
    optimizer = optimizers.SGD().setup(Net())
    calls = []

    def hook(opt):
        calls.append(opt.t)

    hook.timing = "sometime"
    with pytest.warns(UserWarning, match="using 'pre'"):
        optimizer.add_hook(hook)
    set_grads(optimizer.target)
    optimizer.update()
    assert calls == [0]  # before t is incremented


def test_hooks_run_in_chainer_order():
    model = Net()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    events = []

    def recorder(label, per_param=False):
        if per_param:

            def hook(rule, param):
                if param is model.l1.W:
                    events.append((label, rule.t, float(param.array[0, 0])))

            hook.call_for_each_param = True
        else:

            def hook(opt):
                events.append((label, opt.t, float(model.l1.W.array[0, 0])))

        return hook

    optimizer.add_hook(recorder("opt pre"), name="a")
    optimizer.add_hook(recorder("opt post"), name="b", timing="post")
    optimizer.add_hook(recorder("opt pre, per param", per_param=True), name="c")
    model.l1.W.update_rule.add_hook(recorder("rule pre", per_param=True), name="d")
    model.l1.W.update_rule.add_hook(recorder("rule post", per_param=True), name="e", timing="post")
    start = float(model.l1.W.array[0, 0])
    set_grads(model, 1.0)
    optimizer.update()
    end = float(model.l1.W.array[0, 0])
    assert events == [
        ("opt pre", 0, start),
        ("opt pre, per param", 0, start),
        ("rule pre", 1, start),
        ("rule post", 1, end),
        ("opt post", 1, end),
    ]
    assert end == pytest.approx(start - 0.1)


def test_call_hooks_calls_the_registered_hooks():
    optimizer = optimizers.SGD().setup(Net())
    calls = []
    optimizer.add_hook(lambda opt: calls.append("pre"), name="pre")
    optimizer.add_hook(lambda opt: calls.append("post"), name="post", timing="post")
    optimizer.call_hooks()
    optimizer.call_hooks("post")
    assert calls == ["pre", "post"]
    with pytest.raises(ValueError, match="either 'pre' or 'post'"):
        optimizer.call_hooks("auto")


def test_a_hook_may_edit_the_gradients():
    model = Net()
    optimizer = optimizers.SGD(lr=1.0).setup(model)

    def halve(opt):
        for param in opt.target.params():
            param.grad *= 0.5

    optimizer.add_hook(halve)
    before = arrays(model)
    set_grads(model, 1.0)
    optimizer.update()
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, before[name] - 0.5)


def test_a_hook_that_clears_a_gradient_gets_it_reallocated():
    model = Net()
    optimizer = optimizers.SGD().setup(model)
    optimizer.add_hook(lambda opt: model.l1.W.cleargrad(), name="clear")
    set_grads(model)
    optimizer.update()
    numpy.testing.assert_array_equal(model.l1.W.grad, numpy.zeros((2, 3)))


def test_rule_hooks_with_an_invalid_timing_run_after_the_update():
    rule = optimizers.SGDRule()

    def hook(rule, param):
        pass

    hook.timing = "sometime"
    rule.add_hook(hook)
    assert list(rule._hookable.post) == ["hook"]
    rule.remove_hook("hook")


# -- update rules -----------------------------------------------------------------------------


class CountingRule(UpdateRule):
    """A user-defined rule, as Chainer's documentation writes one."""

    def init_state(self, param):
        self.state["count"] = numpy.zeros_like(param.array)

    def update_core_cpu(self, param):
        self.state["count"] += 1
        param.array -= self.hyperparam.lr * param.grad


class CountingSGD(GradientMethod):
    lr = HyperparameterProxy("lr")

    def __init__(self, lr=0.1):
        super().__init__()
        self.hyperparam.lr = lr

    def create_update_rule(self):
        return CountingRule(self.hyperparam)


def test_a_user_defined_gradient_method_and_rule():
    model = Net()
    optimizer = CountingSGD(lr=0.5).setup(model)
    before = arrays(model)
    for _ in range(2):
        set_grads(model, 1.0)
        optimizer.update()
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, before[name] - 1.0)
        numpy.testing.assert_array_equal(param.update_rule.state["count"], 2)
    assert (optimizer.t, model.l1.W.update_rule.t, optimizer.lr) == (2, 2, 0.5)


def test_an_update_rule_must_define_its_update():
    model = Net()

    class Lazy(GradientMethod):
        def create_update_rule(self):
            return UpdateRule(self.hyperparam)

    optimizer = Lazy().setup(model)
    set_grads(model)
    with pytest.raises(NotImplementedError, match="must override update_core"):
        optimizer.update()
    with pytest.raises(NotImplementedError, match="must override create_update_rule"):
        GradientMethod().create_update_rule()


def test_a_subclass_of_a_builtin_rule_is_updated_through_its_methods():
    class LoggingSGDRule(optimizers.SGDRule):
        calls = 0

        def update_core(self, param):
            LoggingSGDRule.calls += 1
            super().update_core(param)

    class LoggingSGD(optimizers.SGD):
        def create_update_rule(self):
            return LoggingSGDRule(self.hyperparam)

    model = Net()
    optimizer = LoggingSGD(lr=1.0).setup(model)
    before = arrays(model)
    set_grads(model, 1.0)
    optimizer.update()
    assert LoggingSGDRule.calls == 4
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, before[name] - 1.0)


def test_use_fp32_update_reaches_every_rule():
    model = Net()
    optimizer = optimizers.SGD().setup(model)
    optimizer.use_fp32_update()
    assert all(param.update_rule._use_fp32_update for param in model.params())
    later = optimizers.SGD()
    later.use_fp32_update()
    later.setup(model)
    assert all(param.update_rule._use_fp32_update for param in model.params())


# -- loss scaling -----------------------------------------------------------------------------


def test_static_loss_scaling_gives_the_unscaled_update():
    plain, scaled = Net(), Net()
    optimizers.SGD(lr=0.1).setup(plain).update(loss_of(plain))
    optimizer = optimizers.SGD(lr=0.1).setup(scaled)
    optimizer.set_loss_scale(1024.0)
    optimizer.update(loss_of(scaled))
    for (name, a), (_, b) in zip(plain.namedparams(), scaled.namedparams()):
        numpy.testing.assert_allclose(a.array, b.array, rtol=1e-12, err_msg=name)
    assert scaled.l1.W._loss_scale == 1024.0


def test_loss_scaling_arguments_are_checked():
    optimizer = optimizers.SGD()
    with pytest.raises(ValueError, match="interval must be at least 1"):
        optimizer.loss_scaling(interval=0)
    with pytest.raises(ValueError, match="positive"):
        optimizer.loss_scaling(scale=-1.0)


def test_dynamic_loss_scaling_skips_non_finite_updates_and_halves_the_scale():
    model = Net()
    optimizer = optimizers.SGD().setup(model)
    optimizer.loss_scaling()
    set_grads(model, 1.0)
    optimizer.update()
    assert optimizer._loss_scale == 2.0
    before = arrays(model)
    set_grads(model, numpy.nan)
    with pytest.warns(UserWarning, match="Non finite number found in param.grad") as record:
        optimizer.update()
    assert "param.grad of /l1/W (iteration: 1, loss_scale: 2.0)" in str(record[0].message)
    assert not optimizer.is_safe_to_update()
    assert optimizer._loss_scale == 1.0 and optimizer.t == 2
    for name, param in model.namedparams():
        numpy.testing.assert_array_equal(param.array, before[name])
    set_grads(model, 1.0)
    optimizer.update()
    assert optimizer._loss_scale == pytest.approx(2.0 ** (1 / 1000))


# -- serialization ----------------------------------------------------------------------------


class Saver(Serializer):
    def __init__(self, target, path=""):
        self.target, self.path = target, path

    def __getitem__(self, key):
        return Saver(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        self.target[self.path + key] = value if value is None else numpy.array(value)
        return value


class Loader(Deserializer):
    def __init__(self, source, path=""):
        self.source, self.path = source, path

    def __getitem__(self, key):
        return Loader(self.source, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        data = self.source[self.path + key]
        if value is None:
            return data
        if isinstance(value, numpy.ndarray):
            value[...] = data
            return value
        return type(value)(data)


def test_serialize_saves_counts_and_states_under_chainer_keys():
    model = Chain()
    with model.init_scope():
        model.predictor = Net()
    optimizer = optimizers.Adam().setup(model)
    optimizer.update(lambda: F.sum(model.predictor(X)))
    optimizer.new_epoch()
    saved = {}
    Saver(saved).save(optimizer)
    expected = {"t", "epoch"}
    for path in ("l1/W", "l1/b", "l2/W", "l2/b"):
        expected |= {f"predictor/{path}/{key}" for key in ("t", "m", "v")}
    assert set(saved) == expected
    assert (int(saved["t"]), int(saved["epoch"]), int(saved["predictor/l1/W/t"])) == (1, 1, 1)
    numpy.testing.assert_array_equal(saved["predictor/l1/W/m"], model.predictor.l1.W.update_rule.state["m"])


def test_loading_restores_counts_and_states_and_training_goes_on_identically():
    source = Net()
    optimizer = optimizers.Adam(alpha=0.05).setup(source)
    for _ in range(3):
        optimizer.update(loss_of(source))
    saved = {}
    Saver(saved).save(optimizer)
    copy_model = Net()
    copy_model.copyparams(source)
    restored = optimizers.Adam(alpha=0.05).setup(copy_model)
    Loader(saved).load(restored)
    assert restored.t == 3 and copy_model.l1.W.update_rule.t == 3
    for _ in range(2):
        optimizer.update(loss_of(source))
        restored.update(loss_of(copy_model))
    for (name, a), (_, b) in zip(source.namedparams(), copy_model.namedparams()):
        numpy.testing.assert_allclose(a.array, b.array, rtol=1e-14, err_msg=name)


def test_loading_copies_into_existing_states_in_place():
    model = Net()
    optimizer = optimizers.MomentumSGD().setup(model)
    optimizer.update(loss_of(model))
    velocity = model.l1.W.update_rule.state["v"]
    saved = {}
    Saver(saved).save(optimizer)
    saved["l1/W/v"] = numpy.full((2, 3), 7.0)
    Loader(saved).load(optimizer)
    assert model.l1.W.update_rule.state["v"] is velocity
    numpy.testing.assert_array_equal(velocity, 7.0)


def test_a_snapshot_without_states_leaves_them_to_be_initialized():
    rule = optimizers.AdamRule()
    with pytest.raises(KeyError):
        rule.serialize(Loader({"t": numpy.array(2)}))
    rule = optimizers.AdamRule()
    rule.enabled = False
    rule.serialize(Loader({"t": numpy.array(2)}))
    assert (rule.t, rule.state) == (2, None)
    rule = optimizers.AdamRule()
    rule.serialize(Loader({"t": numpy.array(2), "m": None, "v": numpy.zeros(3)}))
    assert rule.state is None


def test_the_npz_serializers_round_trip_an_optimizer(tmp_path):
    model = Net()
    optimizer = optimizers.RMSprop().setup(model)
    optimizer.update(loss_of(model))
    target = {}
    DictionarySerializer(target).save(optimizer)
    numpy.savez(tmp_path / "opt.npz", **target)
    other = optimizers.RMSprop().setup(Net())
    with numpy.load(tmp_path / "opt.npz") as npz:
        NpzDeserializer(npz).load(other)
    loaded, expected = other.target.l2.b.update_rule.state["ms"], model.l2.b.update_rule.state["ms"]
    numpy.testing.assert_array_equal(loaded, expected)
    assert other.t == 1


# -- deprecated aliases -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("WeightDecay", (0.1,)),
        ("Lasso", (0.1,)),
        ("GradientClipping", (1.0,)),
        ("GradientHardClipping", (-1.0, 1.0)),
        ("GradientNoise", (0.1,)),
    ],
)
def test_chainer_optimizer_keeps_deprecated_hook_aliases(name, args):
    alias = getattr(optimizer_module, name)
    with pytest.warns(DeprecationWarning, match=f"chainer.optimizer.{name} is deprecated from v4"):
        hook = alias(*args)
    assert isinstance(hook, getattr(optimizer_hooks, name))
    assert hook.name == name


def test_a_parameter_shared_by_two_links_is_updated_twice_as_in_chainer():
    shared = Linear(3, 2)
    model = Chain()
    with model.init_scope():
        model.a = shared
        model.b = shared
    optimizer = optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(model)
    start = shared.W.array.copy()
    shared.W.grad = numpy.ones((2, 3))
    shared.b.grad = numpy.ones(2)
    optimizer.update()
    # two updates with the same gradient: v = -0.1, then v = -0.05 - 0.1
    numpy.testing.assert_allclose(shared.W.array, start - 0.1 - 0.15)
    assert shared.W.update_rule.t == 2


def test_repr_shows_the_hyperparameters_as_a_call():
    from fnet.compat import optimizers as O

    adam = O.Adam(alpha=0.01)
    assert repr(adam) == (
        "Adam(alpha=0.01, beta1=0.9, beta2=0.999, eps=1e-08, eta=1.0, weight_decay_rate=0, amsgrad=False, "
        "adabound=False, final_lr=0.1, gamma=0.001)"
    )
    sgd = O.SGD(lr=0.5)
    sgd.lr = 0.25  # the current values, as a shift extension sets them
    assert repr(sgd) == "SGD(lr=0.25)"


def test_a_rule_that_is_not_an_update_rule_updates_its_parameter_alone():
    from unittest import mock

    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.ones(2, numpy.float32))
    optimizer = chainer.optimizers.SGD()
    optimizer.create_update_rule = mock.MagicMock  # Chainer's tests hand in mocks as rules
    optimizer.setup(link)
    link.w.grad = numpy.ones(2, numpy.float32)
    optimizer.update()
    link.w.update_rule.update.assert_called_once_with(link.w)
