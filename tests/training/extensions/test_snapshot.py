"""snapshot and snapshot_object: file names, what is saved, autoload (the resume path),
n_retains, condition, snapshot_on_error, the background writers, and argument errors."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time

import numpy
import pytest

from fnet.compat.serializers import load_npz
from fnet.training.extensions import snapshot, snapshot_object, snapshot_writers


class Model:
    """An object with state, saved by the serializer protocol."""

    def __init__(self, value=0.0):
        self.W = numpy.full(3, value, numpy.float32)
        self.steps = 0

    def serialize(self, serializer):
        serializer("W", self.W)
        self.steps = serializer("steps", self.steps)


def _train(trainer, ext, iterations, model=None):
    trainer.extend(ext, "snapshot", trigger=(1, "iteration"))
    trainer.initialize()
    for _ in range(iterations):
        if model is not None:
            model.W += 1
            model.steps += 1
        trainer.step()
        time.sleep(0.002)  # distinct modification times
    ext.finalize()


def test_snapshot_saves_the_trainer_under_the_iteration(make_trainer):
    trainer = make_trainer()
    ext = snapshot()
    assert (ext.trigger, ext.priority, ext.default_name) == ((1, "epoch"), -100, "_Snapshot")
    _train(trainer, ext, 2)
    assert sorted(os.listdir(trainer.out)) == ["snapshot_iter_1", "snapshot_iter_2"]
    with numpy.load(os.path.join(trainer.out, "snapshot_iter_2")) as f:
        assert int(f["updater/iteration"]) == 2


def test_snapshot_object_with_a_callable_filename(make_trainer):
    trainer, model = make_trainer(), Model()
    _train(trainer, snapshot_object(model, lambda t: f"model_{t.updater.iteration * 10}.npz"), 2, model)
    assert sorted(os.listdir(trainer.out)) == ["model_10.npz", "model_20.npz"]
    loaded = Model()
    load_npz(os.path.join(trainer.out, "model_10.npz"), loaded)
    assert (loaded.W == 1).all() and loaded.steps == 1


def test_autoload_loads_the_newest_matching_snapshot(make_trainer):
    trainer, model = make_trainer(), Model()
    _train(trainer, snapshot_object(model, "model_{.updater.iteration}"), 3, model)
    (open(os.path.join(trainer.out, "unrelated"), "w")).close()
    os.mkdir(os.path.join(trainer.out, "model_dir"))

    resumed_model = Model()
    resumed = make_trainer()
    resumed.extend(snapshot_object(resumed_model, "model_{.updater.iteration}", autoload=True), "snapshot")
    resumed.initialize()
    assert (resumed_model.W == 3).all() and resumed_model.steps == 3


def test_autoload_in_debug_mode_logs_what_it_loaded(make_trainer, caplog):
    import fnet.compat as chainer

    caplog.set_level(logging.INFO, logger="fnet.training.extensions._snapshot")
    trainer, model = make_trainer(), Model()
    _train(trainer, snapshot_object(model, "model_{.updater.iteration}"), 2, model)
    with chainer.using_config("debug", True):
        for out in (trainer.out, trainer.out + "_empty"):
            resumed = make_trainer(out=out)
            resumed.extend(snapshot_object(Model(), "model_{.updater.iteration}", autoload=True), "snapshot")
            resumed.initialize()
    assert caplog.messages == [
        f"Snapshot loaded from {os.path.join(trainer.out, 'model_2')}",
        "No snapshot file that matches model_{.updater.iteration} was found",
    ]


def _resume(make_trainer, out, **kwargs):
    model = Model(-1.0)
    trainer = make_trainer(out=out)
    trainer.extend(snapshot_object(model, "model_{.updater.iteration}", autoload=True, **kwargs), "snapshot")
    trainer.initialize()
    return model


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty", "not a zip"])
def test_autoload_skips_a_damaged_newest_snapshot_and_says_so(make_trainer, damage):
    trainer, model = make_trainer(), Model()
    _train(trainer, snapshot_object(model, "model_{.updater.iteration}"), 4, model)
    newest = os.path.join(trainer.out, "model_4")
    data = open(newest, "rb").read()
    stat = os.stat(newest)
    damaged = {
        "truncated": data[: len(data) // 2],
        "flipped": data[:60] + bytes([data[60] ^ 0xFF]) + data[61:],  # in W's compressed data
        "empty": b"",
        "not a zip": b"not a zip file",
    }[damage]
    with open(newest, "wb") as f:
        f.write(damaged)
    os.utime(newest, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # still the newest
    with pytest.warns(
        UserWarning,
        match=f"snapshot: autoload skips a snapshot that cannot be read: load_npz: '{newest}' .*; "
        "loading 'model_3' instead",
    ):
        resumed = _resume(make_trainer, trainer.out)
    assert (resumed.W == 3).all() and resumed.steps == 3


def test_autoload_raises_when_no_snapshot_can_be_read(make_trainer):
    from fnet.errors import CheckpointError

    trainer, model = make_trainer(), Model()
    _train(trainer, snapshot_object(model, "model_{.updater.iteration}"), 2, model)
    for name in ("model_1", "model_2"):
        with open(os.path.join(trainer.out, name), "r+b") as f:
            f.truncate(100)
    with pytest.warns(UserWarning, match="there is no older snapshot"):
        with pytest.raises(CheckpointError, match="model_2' is not a readable npz file"):
            _resume(make_trainer, trainer.out)


def test_autoload_does_not_skip_a_snapshot_that_does_not_fit(make_trainer):
    trainer, model = make_trainer(), Model()
    _train(trainer, snapshot_object(model, "model_{.updater.iteration}"), 2, model)
    resumed = Model()
    resumed.W = numpy.zeros(4, numpy.float32)
    trainer = make_trainer(out=trainer.out)
    trainer.extend(snapshot_object(resumed, "model_{.updater.iteration}", autoload=True), "snapshot")
    with pytest.raises(ValueError, match="cannot load 'W' from '.*model_2': the saved array has shape"):
        trainer.initialize()


def test_autoload_without_a_snapshot_or_an_output_directory_does_nothing(make_trainer, tmp_path):
    model = Model(5.0)
    trainer = make_trainer(out=tmp_path / "missing")
    trainer.extend(snapshot_object(model, "model_{.updater.iteration}", autoload=True), "snapshot")
    trainer.initialize()
    assert (model.W == 5).all()


def test_autoload_needs_a_string_filename():
    with pytest.raises(TypeError, match="autoload=True needs filename to be a format string"):
        snapshot(filename=lambda trainer: "x", autoload=True)


@pytest.mark.parametrize("writer", [None, snapshot_writers.ThreadWriter, snapshot_writers.ProcessQueueWriter])
def test_n_retains_keeps_the_newest(make_trainer, writer):
    trainer = make_trainer()
    kwargs = {} if writer is None else {"writer": writer()}
    _train(trainer, snapshot_object(Model(), "model_{.updater.iteration}", n_retains=2, **kwargs), 4)
    assert sorted(os.listdir(trainer.out)) == ["model_3", "model_4"]


def test_num_retain_is_the_deprecated_name(make_trainer):
    with pytest.warns(DeprecationWarning, match="Please use `n_retains` instead"):
        ext = snapshot_object(Model(), "m_{.updater.iteration}", num_retain=1)
    assert ext.n_retains == 1


def test_condition_and_snapshot_on_error(make_trainer):
    trainer = make_trainer()
    ext = snapshot(filename="s_{.updater.iteration}", condition=lambda: trainer.updater.iteration == 2)
    _train(trainer, ext, 3)
    assert os.listdir(trainer.out) == ["s_2"]
    on_error = snapshot(filename="err_{.updater.iteration}", snapshot_on_error=True)
    on_error.on_error(trainer, RuntimeError("boom"), None)
    snapshot(filename="never").on_error(trainer, RuntimeError("boom"), None)
    assert sorted(os.listdir(trainer.out)) == ["err_3", "s_2"]


def test_background_writers_save_the_values_of_the_moment(make_trainer):
    trainer, model = make_trainer(), Model()
    writer = snapshot_writers.ThreadQueueWriter(savefun=_slow_save)
    ext = snapshot_object(model, "m_{.updater.iteration}", writer=writer)
    trainer.extend(ext, "snapshot", trigger=(1, "iteration"))
    trainer.step()
    model.W[...] = 100  # changed in place while the write is pending
    ext.finalize()
    loaded = Model()
    load_npz(os.path.join(trainer.out, "m_1"), loaded)
    assert (loaded.W == 0).all()


def _slow_save(path, target):
    time.sleep(0.05)
    from fnet.compat.serializers import save_npz

    save_npz(path, target)


def test_argument_errors():
    with pytest.raises(TypeError, match="savefun and writer arguments cannot be specified together"):
        snapshot(savefun=lambda p, t: None, writer=snapshot_writers.SimpleWriter())
    with pytest.raises(TypeError, match=r"snapshot\(\) got unexpected keyword argument\(s\) 'trigger'"):
        snapshot(trigger=(1, "epoch"))
    with pytest.raises(TypeError, match="filename must be a format string or a callable"):
        snapshot(filename=3)


STALLED_WRITE = """
import sys, time
from fnet.training.extensions import snapshot_writers

def stall(path, target):  # half a file written, then killed before the rename
    with open(path, "wb") as f:
        f.write(b"half a snapshot")
    print("writing", flush=True)
    time.sleep(600)

snapshot_writers.SimpleWriter(savefun=stall)("snapshot_iter_1", sys.argv[1], {})
"""


@pytest.mark.skipif(sys.platform == "win32", reason="temporary folders are owned through fcntl locks")
def test_the_next_write_removes_the_folders_of_killed_writes_and_only_those(tmp_path):
    # folders of other names, and one with a user's file but no lock file: not fnet's
    decoys = [".tmpsnapshot_iter_10.0123456789abcdef", ".tmpsnapshot_iter_1.backup", ".tmpsnapshot_iter_1x"]
    for name in decoys:
        (tmp_path / name).mkdir()
        (tmp_path / name / "notes").touch()
    (tmp_path / ".tmpsnapshot_iter_0.fedcba9876543210").mkdir()  # a write killed after its rename
    (tmp_path / ".tmpsnapshot_iter_0.fedcba9876543210" / ".lock").touch()
    (tmp_path / ".tmpsnapshot_iter_0.0123456789abcdef").mkdir()  # killed as it removed its folder
    children = [
        subprocess.Popen(
            [sys.executable, "-c", STALLED_WRITE, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    try:
        for child in children:
            assert child.stdout.readline() == "writing\n"
        assert len(list(tmp_path.glob(".tmpsnapshot_iter_1.*"))) == 4  # with the backup
        for child in children[:2]:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
        snapshot_writers.SimpleWriter()("snapshot_iter_1", str(tmp_path), {"W": numpy.ones(2)})
        assert len(list(tmp_path.glob(".tmpsnapshot_iter_1.*"))) == 2  # the live write's, and the backup
    finally:
        for child in children:
            child.kill()
            child.wait(timeout=30)
            child.stdout.close()
    snapshot_writers.SimpleWriter()("snapshot_iter_1", str(tmp_path), {"W": numpy.ones(2)})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*decoys, "snapshot_iter_1"])
