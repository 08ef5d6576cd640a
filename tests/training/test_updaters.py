"""Updaters: StandardUpdater, ParallelUpdater and MultiprocessParallelUpdater on CPU devices, the
FunctionalUpdater of pure steps, and the Updater interface."""

from __future__ import annotations

import copy
import io
import json
import time

import numpy
import pytest

import fnet
import fnet.compat as chainer
import fnet.compat.training  # noqa: F401 - chainer.training
from fnet import optim
from fnet.compat import functions as F
from fnet.compat import links as L
from fnet.compat import optimizers
from fnet.compat.serializers import DictionarySerializer, NpzDeserializer
from fnet.data import convert
from fnet.data.iterators import SerialIterator
from fnet.errors import InvalidInputError
from fnet.training import Trainer, report
from fnet.training.updaters import (
    FunctionalUpdater,
    MultiprocessParallelUpdater,
    ParallelUpdater,
    StandardUpdater,
    Updater,
)


def _dataset(n=10, seed=0):
    rng = numpy.random.RandomState(seed)
    return [(rng.randn(4).astype(numpy.float32), numpy.int32(i % 3)) for i in range(n)]


def _model():
    model = L.Classifier(L.Linear(4, 3))
    model.predictor.W.array[...] = numpy.linspace(-1, 1, 12, dtype=numpy.float32).reshape(3, 4)
    model.predictor.b.array[...] = 0.1
    return model


def _setup(optimizer=None, model=None):
    model = model or _model()
    optimizer = optimizer or optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    return model, optimizer


# -- StandardUpdater -------------------------------------------------------------------------------


def test_standard_updater_names_counts_and_epochs():
    model, optimizer = _setup()
    iterator = SerialIterator(_dataset(), 4, shuffle=False)
    updater = StandardUpdater(iterator, optimizer)
    assert updater.get_iterator("main") is iterator
    assert updater.get_optimizer("main") is optimizer
    assert updater.get_all_optimizers() == {"main": optimizer}
    assert updater.get_all_optimizers() is not updater.get_all_optimizers()
    assert optimizer.use_auto_new_epoch
    assert updater.device is None and updater.input_device is None
    assert updater.converter is convert.concat_examples and updater.loss_func is None
    history = []
    for _ in range(5):
        updater.update()
        history.append(
            (updater.iteration, updater.epoch, updater.epoch_detail, updater.is_new_epoch, optimizer.epoch)
        )
    assert history == [
        (1, 0, 0.4, False, 0),
        (2, 0, 0.8, False, 0),
        (3, 1, 1.2, True, 1),
        (4, 1, 1.6, False, 1),
        (5, 2, 2.0, True, 2),
    ]
    assert updater.previous_epoch_detail == pytest.approx(1.6)
    assert optimizer.t == 5
    with pytest.raises(
        KeyError, match="get_iterator: no iterator named 'test'; the updater has \\['main'\\]"
    ):
        updater.get_iterator("test")
    with pytest.raises(KeyError, match="get_optimizer: no optimizer named 'gen'"):
        updater.get_optimizer("gen")


def test_standard_updater_without_auto_new_epoch():
    model, optimizer = _setup()
    updater = StandardUpdater(SerialIterator(_dataset(), 5), optimizer, auto_new_epoch=False)
    assert not optimizer.use_auto_new_epoch
    updater.update()
    updater.update()
    assert updater.epoch == 1 and optimizer.epoch == 0


def test_standard_updater_converters_devices_and_loss_functions():
    seen = []

    @convert.converter()
    def modern(batch, device):
        seen.append(device)
        return {"x": numpy.stack([x for x, _ in batch]), "t": numpy.stack([t for _, t in batch])}

    def legacy(batch, device):
        seen.append(device)
        return numpy.stack([x for x, _ in batch])

    model, optimizer = _setup()
    updater = StandardUpdater(
        SerialIterator(_dataset(), 2),
        optimizer,
        converter=modern,
        device="@numpy",
        loss_func=lambda x, t: model(x, t),
    )
    updater.update()
    assert (
        str(seen[-1]) == "@numpy"
        and str(updater.device) == "@numpy"
        and updater.input_device is updater.device
    )
    assert model.device.xp is numpy

    calls = []

    def loss_func(x):
        calls.append(x.shape)
        return F.sum(model.predictor(x))

    _, optimizer = _setup(model=model)
    updater = StandardUpdater(SerialIterator(_dataset(), 2), optimizer, converter=legacy, loss_func=loss_func)
    updater.update()
    assert seen[-1] is None and calls == [(2, 4)]
    updater = StandardUpdater(
        SerialIterator(_dataset(), 2), optimizer, converter=legacy, loss_func=loss_func, input_device=-1
    )
    updater.update()
    assert seen[-1] == -1 and updater.device is None  # an old-style converter gets -1 for the CPU


def test_standard_updater_loss_scale():
    model, optimizer = _setup()
    StandardUpdater(SerialIterator(_dataset(), 2), optimizer, loss_scale=8.0)
    assert optimizer._loss_scale == 8.0


def test_standard_updater_errors():
    model, optimizer = _setup()
    iterator = SerialIterator(_dataset(), 2)
    with pytest.raises(
        TypeError, match="StandardUpdater: the iterator 'main' must be a dataset iterator, got list"
    ):
        StandardUpdater(_dataset(), optimizer)
    with pytest.raises(KeyError, match="the iterators must include one named 'main', got \\['train'\\]"):
        StandardUpdater({"train": iterator}, optimizer)
    with pytest.raises(TypeError, match="the optimizer 'main' must be an optimizer set up with its model"):
        StandardUpdater(iterator, optimizers.SGD())
    with pytest.raises(TypeError, match="converter must be callable"):
        StandardUpdater(iterator, optimizer, converter="concat")
    with pytest.raises(ValueError, match="unknown device"):
        StandardUpdater(iterator, optimizer, device="@tpu")


def test_standard_updater_serialize_round_trip():
    model, optimizer = _setup(optimizers.MomentumSGD(lr=0.1))
    updater = StandardUpdater(SerialIterator(_dataset(), 3, shuffle=False), optimizer)
    for _ in range(4):
        updater.update()
    serializer = DictionarySerializer()
    updater.serialize(serializer)
    assert sorted(serializer.target) == [
        "iteration",
        "iterator:main/current_position",
        "iterator:main/epoch",
        "iterator:main/is_new_epoch",
        "iterator:main/previous_epoch_detail",
        "model:main/predictor/W",
        "model:main/predictor/b",
        "optimizer:main/epoch",
        "optimizer:main/predictor/W/t",
        "optimizer:main/predictor/W/v",
        "optimizer:main/predictor/b/t",
        "optimizer:main/predictor/b/v",
        "optimizer:main/t",
    ]
    model2, optimizer2 = _setup(optimizers.MomentumSGD(lr=0.1), L.Classifier(L.Linear(4, 3)))
    resumed = StandardUpdater(SerialIterator(_dataset(), 3, shuffle=False), optimizer2)
    resumed.serialize(NpzDeserializer(serializer.target))
    assert (resumed.iteration, resumed.epoch, optimizer2.t, optimizer2.epoch) == (4, 1, 4, 1)
    for _ in range(3):
        updater.update()
        resumed.update()
    numpy.testing.assert_array_equal(model.predictor.W.array, model2.predictor.W.array)


class GANLikeUpdater(StandardUpdater):
    """Two optimizers and no 'main' one, as the DCGAN example's updater."""

    def __init__(self, iterator, gen, dis):
        super().__init__(iterator, {"gen": gen, "dis": dis})

    def update_core(self):
        batch = self.get_iterator("main").next()
        x, _ = self.converter(batch, self.device)
        for name in ("gen", "dis"):
            optimizer = self.get_optimizer(name)
            optimizer.update(lambda: F.sum(optimizer.target.predictor(x) ** 2))
            report({"loss": optimizer.target.predictor.W.array.sum()}, optimizer.target)


def test_custom_updater_with_several_optimizers(tmp_path):
    _, gen = _setup()
    _, dis = _setup()
    updater = GANLikeUpdater(SerialIterator(_dataset(), 2), gen, dis)
    trainer = Trainer(updater, (2, "iteration"), out=str(tmp_path))
    trainer.run()
    assert set(trainer.observation) == {"gen/loss", "dis/loss"}
    assert gen.t == dis.t == 2


# -- ParallelUpdater -------------------------------------------------------------------------------


def test_parallel_updater_on_cpu_devices_sums_the_parts_gradients():
    model, optimizer = _setup()
    updater = ParallelUpdater(
        SerialIterator(_dataset(), 4, shuffle=False),
        optimizer,
        devices={"main": "@numpy", "second": "@numpy"},
    )
    reference, ref_optimizer = _setup()
    batch = _dataset()[:4]
    updater.update()
    x0, t0 = convert.concat_examples(batch[0::2])
    x1, t1 = convert.concat_examples(batch[1::2])
    ref_optimizer.update(lambda: reference(x0, t0) + reference(x1, t1))
    numpy.testing.assert_allclose(model.predictor.W.array, reference.predictor.W.array, rtol=1e-6)
    second = updater._models["second"]
    assert second is not model
    numpy.testing.assert_array_equal(second.predictor.W.array, model.predictor.W.array)


def test_parallel_updater_observers_and_explicit_models(tmp_path):
    model, optimizer = _setup()
    other = copy.deepcopy(model)
    updater = ParallelUpdater(
        SerialIterator(_dataset(), 4),
        optimizer,
        models={"main": model, "other": other},
        devices={"main": "@numpy", "other": "@numpy"},
    )
    trainer = Trainer(updater, (1, "iteration"), out=str(tmp_path))
    assert trainer.reporter._observer_names[id(other)] == "other"
    trainer.run()
    assert {"main/loss", "other/loss"} <= set(trainer.observation)


def test_parallel_updater_errors():
    model, optimizer = _setup()
    iterator = SerialIterator(_dataset(), 4)
    with pytest.raises(ValueError, match="either models or devices must be specified"):
        ParallelUpdater(iterator, optimizer)
    with pytest.raises(KeyError, match="'devices' must be a dict that contains a 'main' key"):
        ParallelUpdater(iterator, optimizer, devices={"first": "@numpy"})
    with pytest.raises(ValueError, match="devices must be given with models"):
        ParallelUpdater(iterator, optimizer, models={"main": model})
    with pytest.raises(ValueError, match="models must have the names of devices"):
        ParallelUpdater(iterator, optimizer, models={"main": _model()}, devices={"main": "@numpy"})


# -- MultiprocessParallelUpdater --------------------------------------------------------------------


def test_multiprocess_parallel_updater_on_cpu_matches_the_summed_update(tmp_path):
    model, optimizer = _setup()
    iterators = [SerialIterator(_dataset(8, seed), 2, shuffle=False) for seed in (0, 1)]
    with pytest.warns(UserWarning, match="optimizer.lr is changed to 0.05"):
        updater = MultiprocessParallelUpdater(iterators, optimizer, devices=["@numpy", "@numpy"])
    assert MultiprocessParallelUpdater.available()
    trainer = Trainer(updater, (3, "iteration"), out=str(tmp_path))
    trainer.run()
    assert updater._workers == [] and updater.iteration == 3

    reference, ref_optimizer = _setup(optimizers.SGD(lr=0.05))
    for step in range(3):
        x0, t0 = convert.concat_examples(_dataset(8, 0)[2 * step : 2 * step + 2])
        x1, t1 = convert.concat_examples(_dataset(8, 1)[2 * step : 2 * step + 2])
        ref_optimizer.update(lambda: reference(x0, t0) + reference(x1, t1))
    numpy.testing.assert_allclose(model.predictor.W.array, reference.predictor.W.array, rtol=1e-5)
    numpy.testing.assert_allclose(model.predictor.b.array, reference.predictor.b.array, rtol=1e-5)


class Fragile(L.Classifier):
    """Raises for inputs whose first value is large (only the second worker's data has them)."""

    def forward(self, x, t):
        if float(x[0, 0]) > 100:
            raise ValueError("bad example in the worker")
        return super().forward(x, t)


def test_multiprocess_parallel_updater_worker_error_surfaces_quickly():
    model = Fragile(L.Linear(4, 3))
    _, optimizer = _setup(model=model)
    bad = [(numpy.full(4, 1000, numpy.float32), numpy.int32(0))] * 4
    iterators = [SerialIterator(_dataset(4), 2), SerialIterator(bad, 2)]
    with pytest.warns(UserWarning):
        updater = MultiprocessParallelUpdater(iterators, optimizer, devices={"main": "@numpy", "w": "@numpy"})
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="(?s)worker 1: Traceback.*ValueError: bad example in the worker"):
        updater.update()
    assert time.perf_counter() - start < 5
    updater.finalize()


def test_multiprocess_parallel_updater_errors():
    _, optimizer = _setup(optimizers.Adam())
    iterators = [SerialIterator(_dataset(), 2), SerialIterator(_dataset(), 2)]
    with pytest.raises(ValueError, match="devices argument should be either dict, list or tuple"):
        MultiprocessParallelUpdater(iterators, optimizer)
    with pytest.raises(ValueError, match="expected a list of one iterator per device \\(3\\), got 2"):
        MultiprocessParallelUpdater(iterators, optimizer, devices=["@numpy"] * 3)
    with pytest.raises(ValueError, match="datasets must have the same length, got lengths \\[8, 10\\]"):
        MultiprocessParallelUpdater(
            [SerialIterator(_dataset(), 2), SerialIterator(_dataset(8), 2)], optimizer, devices=["@numpy"] * 2
        )
    with pytest.raises(RuntimeError, match="CPU devices \\('@numpy'\\) only, got \\['@cupy:0'\\].*NCCL"):
        MultiprocessParallelUpdater(iterators, optimizer, devices=["@numpy", fnet.backend.GpuDevice(0)])
    eps = optimizer.eps
    with pytest.warns(UserWarning, match="optimizer.eps is changed"):
        MultiprocessParallelUpdater(iterators, optimizer, devices=["@numpy", "@numpy"])
    assert optimizer.eps == pytest.approx(2 * eps)


# -- FunctionalUpdater -----------------------------------------------------------------------------


def _regression(n=12):
    rng = numpy.random.RandomState(0)
    x = rng.randn(n, 3).astype(numpy.float32)
    y = x @ numpy.array([1.0, -2.0, 0.5], numpy.float32) + 0.3
    return list(zip(x, y))


def _loss_fn(params, state, batch):
    x, y = batch
    pred = fnet.ops.matmul(x, params["w"]) + params["b"]
    loss = fnet.ops.mean((pred - y) ** 2)
    state = {"seen": state["seen"] + len(y)}
    return loss, (state, {"abs_error": fnet.ops.mean(fnet.ops.abs(pred - y))})


def _functional(tx=None, batch_size=4):
    tx = tx or optim.MomentumSGD(lr=0.1)
    params = {"w": numpy.zeros(3, numpy.float32), "b": numpy.zeros((), numpy.float32)}
    step = optim.make_train_step(_loss_fn, tx)
    iterator = SerialIterator(_regression(), batch_size, shuffle=False)
    return FunctionalUpdater(iterator, step, params, tx.init(params), state={"seen": 0})


def test_functional_updater_trains_and_reports(tmp_path):
    updater = _functional()
    initial = updater.params
    trainer = Trainer(updater, (30, "epoch"), out=str(tmp_path))
    losses = []
    trainer.extend(lambda t: losses.append(float(t.observation["main/loss"])), name="loss")
    trainer.run()
    assert set(trainer.observation) == {"main/loss", "main/abs_error"}
    assert losses[-1] < 1e-3 < losses[0]
    numpy.testing.assert_allclose(updater.params["w"], [1.0, -2.0, 0.5], atol=0.02)
    assert updater.state == {"seen": 12 * 30} and updater.opt_state.t == 90
    assert not initial["w"].any()  # the trees are replaced, never changed in place
    assert updater.get_all_optimizers() == {}
    with pytest.raises(KeyError, match="(?s)no optimizer named .main.*hint: its state is updater.opt_state"):
        updater.get_optimizer("main")


def test_functional_updater_serialize_keys_and_resume():
    updater = _functional()
    for _ in range(4):
        updater.update()
    serializer = DictionarySerializer()
    updater.serialize(serializer)
    assert sorted(k for k in serializer.target if not k.startswith("iterator")) == [
        "iteration",
        "opt_state/slots/b/v",
        "opt_state/slots/w/v",
        "opt_state/t",
        "params/b",
        "params/w",
        "state/seen",
    ]
    resumed = _functional()
    before = resumed.params
    resumed.serialize(NpzDeserializer(serializer.target))
    assert not before["w"].any()  # loading fills copies
    assert (
        resumed.iteration == 4
        and resumed.epoch == 1
        and resumed.opt_state.t == 4
        and resumed.state["seen"] == 16
    )
    for _ in range(5):
        updater.update()
        resumed.update()
    numpy.testing.assert_array_equal(updater.params["w"], resumed.params["w"])
    numpy.testing.assert_array_equal(updater.opt_state.slots["w"]["v"], resumed.opt_state.slots["w"]["v"])

    wrong = _functional(optim.Adam())
    with pytest.raises(KeyError, match="opt_state/slots/b/m"):
        wrong.serialize(NpzDeserializer(serializer.target))


def test_functional_updater_device_and_errors():
    tx = optim.SGD(lr=0.1)
    params = {"w": numpy.zeros(3, numpy.float32)}
    iterator = SerialIterator(_regression(), 4)
    updater = FunctionalUpdater(
        iterator, lambda p, s, o, b: (p, s, o, {}), params, tx.init(params), device="@numpy"
    )
    assert str(updater.device) == "@numpy"
    updater.update()
    assert updater.iteration == 1
    with pytest.raises(TypeError, match="FunctionalUpdater: step must be a function, got dict"):
        FunctionalUpdater(iterator, {}, params, tx.init(params))
    broken = FunctionalUpdater(iterator, lambda p, s, o, b: (p, o), params, tx.init(params))
    with pytest.raises(
        TypeError, match="must return \\(params, state, opt_state, metrics\\).*got a tuple of 2"
    ):
        broken.update()


def _dropout_updater(masks, key):
    """A FunctionalUpdater whose loss function applies dropout with the key of each iteration and
    records ``(iteration, mask)``."""

    def loss_fn(params, state, batch, *, key, iteration):
        x, y = batch
        h, mask = fnet.functions.dropout(x, 0.5, key=key, return_mask=True)
        masks.append((iteration, mask.copy()))
        pred = fnet.ops.matmul(h, params["w"]) + params["b"]
        return fnet.ops.mean((pred - y) ** 2), (state, {})

    tx = optim.SGD(lr=0.01)
    params = {"w": numpy.zeros(3, numpy.float32), "b": numpy.zeros((), numpy.float32)}
    iterator = SerialIterator(_regression(), 4, shuffle=False)
    return FunctionalUpdater(iterator, optim.make_train_step(loss_fn, tx), params, tx.init(params), key=key)


def test_functional_updater_key_gives_fresh_dropout_masks_that_repeat_after_a_resume():
    straight = []
    updater = _dropout_updater(straight, fnet.random.key(3))
    for _ in range(6):
        updater.update()
    assert [i for i, _ in straight] == [0, 1, 2, 3, 4, 5]
    for (_, a), (_, b) in zip(straight, straight[1:]):
        assert not numpy.array_equal(a, b)  # a fresh mask at every iteration

    first = []
    before = _dropout_updater(first, fnet.random.key(3))
    for _ in range(3):
        before.update()
    serializer = DictionarySerializer()
    before.serialize(serializer)
    assert serializer.target["key"].tolist() == fnet.random.key(3).tolist()
    resumed_masks = []
    resumed = _dropout_updater(resumed_masks, fnet.random.key(99))  # the saved key replaces this one
    resumed.serialize(NpzDeserializer(serializer.target))
    for _ in range(3):
        resumed.update()
    assert [i for i, _ in resumed_masks] == [3, 4, 5]
    for (_, a), (_, b) in zip(resumed_masks, straight[3:]):
        numpy.testing.assert_array_equal(a, b)


def test_functional_updater_key_and_iteration_errors():
    tx = optim.SGD(lr=0.1)
    params = {"w": numpy.zeros(3, numpy.float32)}
    iterator = SerialIterator(_regression(), 4)
    plain = optim.make_train_step(_loss_fn, tx)
    with pytest.raises(
        InvalidInputError, match="(?s)key was given but the step does not declare a key.*hint"
    ):
        FunctionalUpdater(iterator, plain, params, tx.init(params), key=fnet.random.key(0))
    with pytest.raises(InvalidInputError, match="the step requires a key argument but no key was given"):
        FunctionalUpdater(iterator, lambda p, s, o, b, *, key: (p, s, o, {}), params, tx.init(params))
    with pytest.raises(InvalidInputError, match=r"expected key to be a random key \(uint32\[4\]\), got int"):
        FunctionalUpdater(iterator, lambda p, s, o, b, *, key: (p, s, o, {}), params, tx.init(params), key=0)
    with pytest.raises(InvalidInputError, match="expected optimizer to be a fnet.optim transformation"):
        FunctionalUpdater(iterator, plain, params, tx.init(params), optimizer="sgd")

    seen = []

    def step(params, state, opt_state, batch, iteration, key=None):  # a hand-written step
        seen.append((iteration, key))
        return params, state, opt_state, {}

    updater = FunctionalUpdater(iterator, step, params, tx.init(params))
    updater.update()
    updater.update()
    assert seen == [(0, None), (1, None)] and updater.optimizer is None and updater.key is None
    assert FunctionalUpdater(iterator, plain, params, tx.init(params)).optimizer is tx


# -- the interface ---------------------------------------------------------------------------------


def test_updater_interface():
    class Incomplete(Updater):
        def update(self):
            pass

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()

    class Minimal(Updater):
        iteration = 0

        def update(self):
            self.iteration += 1

        def get_all_optimizers(self):
            return {"main": "an optimizer"}

        def finalize(self):
            pass

        def serialize(self, serializer):
            pass

    minimal = Minimal()
    assert minimal.get_optimizer("main") == "an optimizer"
    assert minimal.connect_trainer(None) is None
    with pytest.raises(KeyError, match="Minimal.get_optimizer: no optimizer named 'x'"):
        minimal.get_optimizer("x")
    assert chainer.training.Updater is Updater
    assert chainer.training.updaters.StandardUpdater is StandardUpdater


def test_functional_mnist_style_training_on_digits(tmp_path):
    """The functional path: a pure MLP trained on scikit-learn's digits by fnet.training.Trainer with
    a FunctionalUpdater, LogReport and ProgressBar."""
    from sklearn.datasets import load_digits

    from fnet import functions as pure_F
    from fnet import nn
    from fnet.training.extensions import LogReport, ProgressBar

    digits = load_digits()
    x = (digits.data / 16.0).astype(numpy.float32)
    t = digits.target.astype(numpy.int32)
    train, test = list(zip(x[:1500], t[:1500])), (x[1500:], t[1500:])
    model = nn.Sequential(nn.Linear(64, 100), pure_F.relu, nn.Linear(100, 10))

    def loss_fn(params, state, batch):
        xs, ts = batch
        y = model.apply(params, xs)
        loss = pure_F.softmax_cross_entropy(y, ts)
        return loss, (state, {"accuracy": pure_F.accuracy(y, ts)})

    tx = optim.Adam(alpha=0.01)
    params = model.init(fnet.random.key(0))
    updater = FunctionalUpdater(
        SerialIterator(train, 100), optim.make_train_step(loss_fn, tx), params, tx.init(params)
    )
    trainer = Trainer(updater, (3, "epoch"), out=str(tmp_path))
    trainer.extend(LogReport(filename="log"))
    bar = io.StringIO()
    trainer.extend(ProgressBar(update_interval=5, log_interval=15, out=bar))
    trainer.run()

    log = json.loads((tmp_path / "log").read_text())
    assert [entry["epoch"] for entry in log] == [1, 2, 3]
    assert {"main/loss", "main/accuracy", "iteration", "elapsed_time"} <= set(log[0])
    assert log[-1]["main/loss"] < log[0]["main/loss"] and log[-1]["main/accuracy"] > 0.9
    assert [line.split(":")[0] for line in bar.getvalue().splitlines()] == [
        "iteration 15, epoch 1",
        "iteration 30, epoch 2",
        "iteration 45, epoch 3",
    ]  # not a terminal: plain lines
    accuracy = float(pure_F.accuracy(model.apply(updater.params, test[0]), test[1]))
    assert accuracy > 0.8  # chance is 0.1
