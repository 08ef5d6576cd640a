"""Trainer: the loop, extension registration and order, errors, serialization and exact resume.

The training of a small classifier (observations, epoch bookkeeping, extension order, final
parameters, snapshot keys) is compared with Chainer 7.8.1 (``tests/golden/make_training.py``).
"""

from __future__ import annotations

import json
import pathlib

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.training  # noqa: F401 - chainer.training
from fnet.compat import optimizers
from fnet.compat.serializers import DictionarySerializer, load_npz, save_npz
from fnet.data.iterators import SerialIterator
from fnet.training import (
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_WRITER,
    Extension,
    Trainer,
    make_extension,
    report,
)
from fnet.training.triggers import ManualScheduleTrigger, OnceTrigger
from fnet.training.updaters import StandardUpdater

from .._scripts import GOLDEN, load_golden


class CountingUpdater:
    """A minimal updater: counts iterations, reports them, and an epoch is 4 iterations."""

    def __init__(self, fail_at=None):
        self.iteration = 0
        self.fail_at = fail_at
        self.finalized = 0

    @property
    def epoch(self):
        return self.iteration // 4

    @property
    def epoch_detail(self):
        return self.iteration / 4

    @property
    def previous_epoch_detail(self):
        return (self.iteration - 1) / 4

    def update(self):
        if self.iteration == self.fail_at:
            raise ZeroDivisionError("update failed")
        self.iteration += 1
        report({"count": self.iteration})

    def get_all_optimizers(self):
        return {}

    def finalize(self):
        self.finalized += 1

    def serialize(self, serializer):
        self.iteration = serializer("iteration", self.iteration)


def _trainer(tmp_path, stop=(8, "iteration"), **kwargs):
    return Trainer(CountingUpdater(**kwargs), stop, out=str(tmp_path / "result"))


# -- registration --------------------------------------------------------------------------------


def test_extend_names_from_name_default_name_and_function_name(tmp_path):
    trainer = _trainer(tmp_path)

    class Named(Extension):
        name = "explicit"

        def __call__(self, trainer):
            pass

    class Plain(Extension):
        def __call__(self, trainer):
            pass

    def my_function(trainer):
        pass

    trainer.extend(Named())
    trainer.extend(Plain())
    trainer.extend(my_function)
    trainer.extend(Plain(), name="custom")
    trainer.extend(Plain())
    plain = Plain()
    trainer.extend(plain)
    assert list(trainer._extensions) == ["explicit", "Plain", "my_function", "custom", "Plain_1", "Plain_2"]
    assert plain.name == "Plain_2"
    assert trainer.get_extension("Plain_2") is plain
    with pytest.raises(ValueError, match="extension nothing not found"):
        trainer.get_extension("nothing")


def test_extend_errors(tmp_path):
    trainer = _trainer(tmp_path)

    def ext(trainer):
        pass

    with pytest.raises(ValueError, match='the name "training" is prohibited'):
        trainer.extend(ext, name="training")
    with pytest.raises(ValueError, match="invoke_before_training was removed"):  # as Chainer's
        trainer.extend(ext, invoke_before_training=True)
    with pytest.raises(TypeError, match="unexpected keyword argument.*'when'"):
        trainer.extend(ext, when=3)
    with pytest.raises(TypeError, match="an extension must be callable"):
        trainer.extend("LogReport")

    class Nameless:
        def __call__(self, trainer):
            pass

    with pytest.raises(TypeError, match="name is not given for the extension"):
        trainer.extend(Nameless())
    with pytest.raises(TypeError, match=r"expected a \(period, unit\) pair"):
        trainer.extend(ext, trigger=3)


def test_constructor_checks_the_updater_and_registers_extensions(tmp_path):
    with pytest.raises(TypeError, match=r"Trainer: the updater must have a method update\(\), got a object"):
        Trainer(object())

    def ext(trainer):
        pass

    trainer = Trainer(CountingUpdater(), extensions=[ext], out=str(tmp_path))
    assert trainer.get_extension("ext") is ext
    assert not trainer.stop_trigger(trainer)  # None: never stops by itself


def test_extension_base_and_make_extension():
    with pytest.raises(NotImplementedError, match="expected the extension to define __call__"):
        Extension()(None)  # made as in Chainer; its __call__ is the subclasses' to define

    class Ext(Extension):
        def __call__(self, trainer):
            pass

    ext = Ext()
    assert (ext.trigger, ext.priority, ext.name, ext.default_name) == (
        (1, "iteration"),
        PRIORITY_READER,
        None,
        "Ext",
    )
    assert ext.initialize(None) is None and ext.finalize() is None and ext.serialize(None) is None
    assert ext.on_error(None, None, None) is None
    with pytest.raises(AttributeError, match="invoke_before_training was removed"):
        getattr(ext, "invoke_before_training")  # noqa: B009 - the attribute access is the test
    with pytest.raises(AttributeError, match="Ext object has no attribute foo"):
        getattr(ext, "foo")  # noqa: B009 - the attribute access is the test
    assert (PRIORITY_WRITER, PRIORITY_EDITOR, PRIORITY_READER) == (300, 200, 100)

    @make_extension()
    def plain(trainer):
        pass

    assert (plain.trigger, plain.default_name, plain.priority) == ((1, "iteration"), "plain", PRIORITY_READER)
    assert plain.initialize is None and plain.finalize is None and plain.on_error is None

    @make_extension(trigger=(2, "epoch"), default_name="renamed", priority=PRIORITY_EDITOR, finalizer=print)
    def fancy(trainer):
        pass

    assert (fancy.trigger, fancy.default_name, fancy.priority, fancy.finalize) == (
        (2, "epoch"),
        "renamed",
        PRIORITY_EDITOR,
        print,
    )
    with pytest.raises(ValueError, match="invoke_before_training was removed"):  # as Chainer's
        make_extension(invoke_before_training=True)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        make_extension(trigers=(1, "epoch"))


# -- the loop ------------------------------------------------------------------------------------


def test_run_calls_extensions_by_priority_on_their_triggers(tmp_path):
    trainer = _trainer(tmp_path)
    calls = []

    def recorder(tag):
        def call(trainer):
            calls.append((trainer.updater.iteration, tag, dict(trainer.observation)))

        return call

    trainer.extend(recorder("reader"), name="reader", trigger=(4, "iteration"))
    trainer.extend(recorder("writer"), name="writer", trigger=(2, "iteration"), priority=PRIORITY_WRITER)
    trainer.extend(recorder("editor"), name="editor", trigger=(1, "epoch"), priority=PRIORITY_EDITOR)
    trainer.extend(recorder("reader2"), name="reader2", trigger=(4, "iteration"))
    trainer.run()
    assert [(i, tag) for i, tag, _ in calls] == [
        (2, "writer"),
        (4, "writer"),
        (4, "editor"),
        (4, "reader"),
        (4, "reader2"),
        (6, "writer"),
        (8, "writer"),
        (8, "editor"),
        (8, "reader"),
        (8, "reader2"),
    ]
    assert all(obs == {"count": i} for i, _, obs in calls)  # a fresh observation per iteration
    assert trainer.observation == {"count": 8}
    assert (tmp_path / "result").is_dir()
    assert trainer.updater.finalized == 1
    assert trainer.elapsed_time == trainer.elapsed_time > 0  # frozen after the run
    with pytest.raises(RuntimeError, match="cannot run training loop multiple times"):
        trainer.run()


def test_initialize_and_call_before_training(tmp_path):
    events = []

    @make_extension(initializer=lambda trainer: events.append(("init", trainer.updater.iteration)))
    def ext(trainer):
        events.append(("call", trainer.updater.iteration, dict(trainer.observation)))

    def before(trainer):
        report({"before": 1})
        events.append(("before", trainer.updater.iteration, dict(trainer.observation)))

    finished = ManualScheduleTrigger(1, "iteration")
    finished.finished = True
    skipped = make_extension(initializer=lambda trainer: events.append("never"))(lambda trainer: None)

    trainer = _trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(ext)
    trainer.extend(before, call_before_training=True, trigger=(10, "iteration"))
    trainer.extend(skipped, name="skipped", trigger=finished)
    trainer.run()
    assert events == [("init", 0), ("before", 0, {"before": 1}), ("call", 1, {"count": 1})]

    # after a resume (iteration > 0) the call before training is skipped
    events.clear()
    trainer = _trainer(tmp_path, stop=(2, "iteration"))
    trainer.updater.iteration = 1
    trainer.extend(before, call_before_training=True, trigger=(10, "iteration"))
    assert not trainer.is_before_training
    trainer.run()
    assert events == []


def test_errors_call_on_error_and_finalize_then_propagate(tmp_path, caplog):
    events = []

    class Ext(Extension):
        def __call__(self, trainer):
            pass

        def on_error(self, trainer, exc, tb):
            events.append(("on_error", type(exc).__name__, tb is not None))
            raise ValueError("handler broke")

        def finalize(self):
            events.append("finalize")

    trainer = _trainer(tmp_path, fail_at=2)
    trainer.extend(Ext())
    trainer.extend(
        make_extension(on_error=lambda t, e, tb: events.append("second"))(lambda t: None), name="x"
    )
    with pytest.raises(ZeroDivisionError, match="update failed"):
        trainer.run()
    assert events == [("on_error", "ZeroDivisionError", True), "second", "finalize"]
    assert trainer.updater.finalized == 1
    # the messages go through logging, with the tracebacks
    records = [r for r in caplog.records if r.name == "fnet.training.trainer"]
    assert [(r.levelname, r.getMessage().splitlines()[0]) for r in records] == [
        ("ERROR", "Exception in main training loop: update failed"),
        ("ERROR", "Exception in error handler: handler broke"),
    ]
    assert (
        records[0]
        .getMessage()
        .endswith("Will finalize trainer extensions and updater before reraising the exception.")
    )
    assert records[0].exc_info[0] is ZeroDivisionError and records[1].exc_info[0] is ValueError

    caplog.clear()
    quiet = _trainer(tmp_path, fail_at=0)
    with pytest.raises(ZeroDivisionError):
        quiet.run(show_loop_exception_msg=False)
    assert not [r for r in caplog.records if r.name == "fnet.training.trainer"]


def test_the_error_of_the_loop_reaches_stderr_when_logging_is_not_configured(tmp_path):
    """Python shows an ERROR record on stderr when no handler is configured: a failing training
    still says what failed, with its traceback, as Chainer's printed message did."""
    import subprocess
    import sys

    script = (
        "from fnet.training import Trainer\n"
        "class Failing:\n"
        "    iteration = 0\n"
        "    def update(self):\n"
        "        raise ZeroDivisionError('update failed')\n"
        "    def get_all_optimizers(self):\n"
        "        return {}\n"
        "    def finalize(self):\n"
        "        pass\n"
        f"Trainer(Failing(), (1, 'iteration'), out={str(tmp_path)!r}).run()\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stdout == ""
    first, *rest = result.stderr.split("Traceback (most recent call last):")
    assert first == (
        "Exception in main training loop: update failed\n"
        "Will finalize trainer extensions and updater before reraising the exception.\n"
    )
    assert "ZeroDivisionError: update failed" in rest[0]


def test_elapsed_time_before_training(tmp_path):
    with pytest.raises(RuntimeError, match="training has not been started yet"):
        getattr(_trainer(tmp_path), "elapsed_time")  # noqa: B009 - the attribute access is the test


def test_once_trigger_runs_an_extension_once(tmp_path):
    calls = []
    trainer = _trainer(tmp_path)
    trainer.extend(lambda t: calls.append(t.updater.iteration), name="once", trigger=OnceTrigger())
    trainer.run()
    assert calls == [1]


# -- the Chainer layer ---------------------------------------------------------------------------


def _classifier_trainer(out, stop=(2, "epoch"), shuffle=False):
    make = load_golden("make_training")
    model = make.make_model(chainer)
    optimizer = optimizers.MomentumSGD(lr=0.1)
    optimizer.setup(model)
    iterator = SerialIterator(make.make_dataset(), 4, shuffle=shuffle)
    updater = StandardUpdater(iterator, optimizer)
    trainer = chainer.training.Trainer(updater, stop, out=str(out))
    log = []
    trainer.extend(lambda t: log.append({k: float(v.array) for k, v in t.observation.items()}), name="log")
    return trainer, model, log


def test_reporter_observers_are_named_as_in_chainer(tmp_path):
    trainer, model, log = _classifier_trainer(tmp_path)
    names = trainer.reporter._observer_names
    assert names[id(model)] == "main" and names[id(model.predictor)] == "main/predictor"
    trainer.run()
    assert set(log[0]) == {"main/loss", "main/accuracy"}


def test_compat_trainer_reports_variables_without_their_graph(tmp_path):
    trainer, model, _ = _classifier_trainer(tmp_path, stop=(1, "iteration"))
    trainer.run()
    loss = trainer.observation["main/loss"]
    assert isinstance(loss, chainer.Variable) and loss.creator is None


@pytest.mark.parametrize("kind", ["standard", "parallel"])
def test_training_matches_chainer(kind):
    make = load_golden("make_training")
    want = json.loads((GOLDEN / "training.json").read_text())[kind]
    got = make.training_run(chainer, kind)
    assert got["calls"] == want["calls"]
    assert got["epochs"] == want["epochs"]
    assert got["snapshot_keys"] == want["snapshot_keys"]
    assert got["extension_names"] == want["extension_names"]
    assert got["iteration"] == want["iteration"]
    assert len(got["observations"]) == len(want["observations"])
    for g, w in zip(got["observations"], want["observations"]):
        assert g == pytest.approx(w, rel=1e-5, abs=1e-6)
    numpy.testing.assert_allclose(got["W"], want["W"], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(got["b"], want["b"], rtol=1e-5, atol=1e-6)


def test_serialize_saves_the_elapsed_time_and_loads_it(tmp_path):
    trainer, _, _ = _classifier_trainer(tmp_path, stop=(1, "epoch"))
    trainer.run()
    serializer = DictionarySerializer()
    serializer.save(trainer)
    assert float(serializer.target["_snapshot_elapsed_time"]) == pytest.approx(trainer.elapsed_time)
    path = tmp_path / "snapshot.npz"
    save_npz(path, trainer)
    resumed, _, _ = _classifier_trainer(tmp_path, stop=(2, "epoch"))
    load_npz(path, resumed)
    assert resumed._snapshot_elapsed_time == pytest.approx(trainer.elapsed_time)
    assert resumed.updater.iteration == trainer.updater.iteration


@pytest.mark.parametrize("shuffle", [False, True])
def test_resume_in_process_is_exact(tmp_path, shuffle):
    # shuffled with NumPy's global generator, whose state the snapshot holds (not in Chainer)
    numpy.random.seed(0)
    straight, straight_model, straight_log = _classifier_trainer(tmp_path / "a", (3, "epoch"), shuffle)
    straight.run()

    numpy.random.seed(0)
    first, _, first_log = _classifier_trainer(tmp_path / "b", (1, "epoch"), shuffle)
    first.run()
    save_npz(tmp_path / "snapshot.npz", first)
    numpy.random.seed(1)
    resumed, resumed_model, resumed_log = _classifier_trainer(tmp_path / "c", (3, "epoch"), shuffle)
    load_npz(tmp_path / "snapshot.npz", resumed)
    resumed.run()

    assert first_log + resumed_log == straight_log
    for (name, a), (_, b) in zip(sorted(straight_model.namedparams()), sorted(resumed_model.namedparams())):
        numpy.testing.assert_array_equal(a.array, b.array, err_msg=name)


RESUME_SCRIPT = """
import os, sys, time
import numpy
import fnet.compat as chainer
import fnet.compat.training
from fnet.compat import links as L, optimizers, serializers
from fnet.compat.training import extensions
from fnet.data.iterators import SerialIterator

mode, out = sys.argv[1], sys.argv[2]
numpy.random.seed(0)
rng = numpy.random.RandomState(1)
x = rng.randn(40, 5).astype(numpy.float32)
t = (rng.rand(40) * 3).astype(numpy.int32)
model = L.Classifier(L.Linear(5, 3))
optimizer = optimizers.Adam()
optimizer.setup(model)
iterator = SerialIterator(list(zip(x, t)), 12, shuffle=False)
updater = chainer.training.updaters.StandardUpdater(iterator, optimizer)
trainer = chainer.training.Trainer(updater, (2, "epoch"), out=out)
trainer.extend(extensions.LogReport(trigger=(2, "iteration"), filename="log"))
trainer.extend(extensions.snapshot(autoload=mode == "resume"), trigger=(1, "epoch"))


@chainer.training.make_extension(trigger=(1, "epoch"), priority=-1000)
def pause(trainer):  # after the snapshot (priority -100): wait there to be killed
    if mode == "kill":
        open(os.path.join(out, "ready"), "w").close()
        time.sleep(600)


trainer.extend(pause)
trainer.run()
serializers.save_npz(os.path.join(out, "model.npz"), model)
"""


def _without_time(log):
    return [{k: v for k, v in entry.items() if k != "elapsed_time"} for entry in log]


def test_resume_after_the_process_is_killed_is_exact(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "train.py"
    script.write_text(RESUME_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[2])}
    straight_out, killed_out = tmp_path / "straight", tmp_path / "killed"
    straight = subprocess.Popen([sys.executable, str(script), "straight", str(straight_out)], env=env)
    killed = subprocess.Popen([sys.executable, str(script), "kill", str(killed_out)], env=env)
    try:
        deadline = time.monotonic() + 120
        while not (killed_out / "ready").exists():
            assert killed.poll() is None, "the run to be killed ended by itself"
            assert time.monotonic() < deadline, "the run to be killed did not reach its first snapshot"
            time.sleep(0.05)
        killed.send_signal(signal.SIGKILL)
        assert killed.wait(timeout=60) == -signal.SIGKILL
    finally:
        killed.kill()
    assert sorted(p.name for p in killed_out.iterdir()) == ["log", "ready", "snapshot_iter_4"]
    subprocess.run([sys.executable, str(script), "resume", str(killed_out)], env=env, check=True, timeout=120)
    assert straight.wait(timeout=120) == 0

    straight_params = numpy.load(straight_out / "model.npz")
    resumed_params = numpy.load(killed_out / "model.npz")
    assert sorted(straight_params) == sorted(resumed_params) == ["predictor/W", "predictor/b"]
    for key in straight_params:
        numpy.testing.assert_array_equal(resumed_params[key], straight_params[key], err_msg=key)
    straight_log = json.loads((straight_out / "log").read_text())
    resumed_log = json.loads((killed_out / "log").read_text())
    assert [entry["iteration"] for entry in straight_log] == [2, 4, 6]  # 2 epochs: 7 iterations
    assert _without_time(resumed_log) == _without_time(straight_log)
