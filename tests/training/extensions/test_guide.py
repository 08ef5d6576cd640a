"""The seeds' "Trainer Extensions" guide runs unchanged through the ``chainer`` alias.

Its three ways of writing an extension (a plain function, a function decorated with
``make_extension``, and an ``Extension`` subclass with ``initialize`` and ``serialize``) are
kept as the guide prints them and run, after the guides' import block, on a tiny trainer
(20 examples, batches of 10: 2 iterations an epoch). The checks follow the guide's text: the
learning rate is divided by 10 every 10 epochs, and the guide's ``PolynomialShift`` sets
``init * (1 - t / maxiter) ** power`` and saves ``_t`` and ``_last_value`` in snapshots.
"""

from __future__ import annotations

import sys

import numpy
import pytest

import fnet.compat

from ...compat.tutorials import namespace, run_code

LR_DROP = """\
def lr_drop(trainer):
    trainer.updater.get_optimizer('main').lr *= 0.1
"""

EXTEND_WITH_TRIGGER = """\
trainer.extend(lr_drop, trigger=(10, 'epoch'))
"""

MAKE_EXTENSION = """\
@training.make_extension(trigger=(10, 'epoch'))
def lr_drop(trainer):
    trainer.updater.get_optimizer('main').lr *= 0.1
"""

EXTEND = """\
trainer.extend(lr_drop)
"""

POLYNOMIAL_SHIFT = """\
class PolynomialShift(training.Extension):

    def __init__(self, attr, power, stop_trigger, batchsize=None,
                 len_dataset=None):
        self._attr = attr
        self._power = power
        self._init = None
        self._t = 0
        self._last_value = 0

        if stop_trigger[1] == 'iteration':
            self._maxiter = stop_trigger[0]
        elif stop_trigger[1] == 'epoch':
            if batchsize is None or len_dataset is None:
                raise ValueError(
                    'When the unit of \\'stop_trigger\\' is \\'epoch\\', '
                    '\\'batchsize\\' and \\'len_dataset\\' should be '
                    'specified to calculate the maximum iteration.')
            n_iter_per_epoch = len_dataset / float(batchsize)
            self._maxiter = float(stop_trigger[0] * n_iter_per_epoch)

    def initialize(self, trainer):
        optimizer = trainer.updater.get_optimizer('main')
        # ensure that _init is set
        if self._init is None:
            self._init = getattr(optimizer, self._attr)

    def __call__(self, trainer):
        self._t += 1

        optimizer = trainer.updater.get_optimizer('main')
        value = self._init * ((1 - (self._t / self._maxiter)) ** self._power)
        setattr(optimizer, self._attr, value)
        self._last_value = value

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
        self._last_value = serializer('_last_value', self._last_value)
        if isinstance(self._last_value, np.ndarray):
            self._last_value = self._last_value.item()
"""

EXTEND_POLYNOMIAL_SHIFT = """\
stop_trigger = (10000, 'iteration')
trainer.extend(PolynomialShift('lr', 0.5, stop_trigger))
"""


@pytest.fixture(scope="module", autouse=True)
def chainer_alias():
    """``import chainer`` gives fnet.compat while this module's tests run."""
    before = {name: mod for name, mod in sys.modules.items() if name.partition(".")[0] == "chainer"}
    fnet.compat.install_alias()
    yield
    for name in [n for n in sys.modules if n.partition(".")[0] == "chainer"]:
        del sys.modules[name]
    sys.modules.update(before)


def _with_trainer(out, epochs: int) -> dict:
    """The guide's namespace with a tiny ``trainer`` (SGD with lr=1, 2 iterations an epoch)."""
    ns = namespace()
    setup = f"""\
x = np.linspace(-1, 1, 60, dtype=np.float32).reshape(20, 3)
t = (x.sum(axis=1) > 0).astype(np.int32)
model = L.Classifier(L.Linear(3, 2))
optimizer = optimizers.SGD(lr=1.0).setup(model)
train_iter = iterators.SerialIterator(datasets.TupleDataset(x, t), 10, shuffle=False)
updater = training.updaters.StandardUpdater(train_iter, optimizer)
trainer = training.Trainer(updater, ({epochs}, 'epoch'), out={str(out)!r})
"""
    run_code(setup, ns, "<setup>")
    return ns


def _lr_during_training(ns) -> list:
    seen = []
    ns["trainer"].extend(lambda trainer: seen.append(trainer.updater.get_optimizer("main").lr), priority=0)
    ns["trainer"].run()
    return seen


@pytest.mark.parametrize("samples", [(LR_DROP, EXTEND_WITH_TRIGGER), (MAKE_EXTENSION, EXTEND)])
def test_lr_drop_every_10_epochs(tmp_path, samples):
    ns = _with_trainer(tmp_path, 25)
    for sample in samples:
        run_code(sample, ns)
    lrs = _lr_during_training(ns)
    assert len(lrs) == 50
    assert lrs[:19] == [1.0] * 19  # epoch 10 ends at iteration 20
    assert lrs[19:39] == pytest.approx([0.1] * 20)
    assert lrs[39:] == pytest.approx([0.01] * 11)


def test_polynomial_shift_class_and_its_snapshot(tmp_path):
    ns = _with_trainer(tmp_path / "a", 3)
    run_code(POLYNOMIAL_SHIFT, ns)
    run_code(EXTEND_POLYNOMIAL_SHIFT, ns)
    lrs = _lr_during_training(ns)
    assert lrs == pytest.approx([(1 - t / 10000) ** 0.5 for t in range(1, 7)])
    path = str(tmp_path / "snapshot.npz")
    ns["serializers"].save_npz(path, ns["trainer"])
    with numpy.load(path) as saved:
        assert int(saved["extensions/PolynomialShift/_t"]) == 6
        assert float(saved["extensions/PolynomialShift/_last_value"]) == pytest.approx(lrs[-1])

    # The guide's class starts _last_value at the int 0, so a float cannot be loaded back into it:
    # Chainer 7.8.1 raises "TypeError: Cannot safely deserialize from numpy array with
    # dtype=float64 into a variable of type <class 'int'>", and so does fnet.
    resumed = _with_trainer(tmp_path / "b", 5)
    run_code(POLYNOMIAL_SHIFT, resumed)
    run_code(EXTEND_POLYNOMIAL_SHIFT, resumed)
    with pytest.raises(TypeError, match="float64 data cannot be safely converted to int"):
        resumed["serializers"].load_npz(path, resumed["trainer"])

    # With a float start value, the class resumes where it stopped.
    resumed = _with_trainer(tmp_path / "c", 5)
    run_code(POLYNOMIAL_SHIFT.replace("self._last_value = 0\n", "self._last_value = 0.0\n"), resumed)
    run_code(EXTEND_POLYNOMIAL_SHIFT, resumed)
    resumed["serializers"].load_npz(path, resumed["trainer"])
    shift = resumed["trainer"].get_extension("PolynomialShift")
    assert shift._t == 6 and shift._last_value == pytest.approx(lrs[-1])
    assert _lr_during_training(resumed) == pytest.approx([(1 - t / 10000) ** 0.5 for t in range(7, 11)])


def test_the_epoch_unit_needs_the_batch_size(tmp_path):
    ns = _with_trainer(tmp_path, 1)
    run_code(POLYNOMIAL_SHIFT, ns)
    with pytest.raises(ValueError, match="'batchsize' and 'len_dataset' should be specified"):
        run_code("PolynomialShift('lr', 0.5, (10, 'epoch'))", ns)
    shift = ns["PolynomialShift"]("lr", 0.5, (10, "epoch"), batchsize=10, len_dataset=20)
    assert shift._maxiter == 20.0
