"""LogReport: entries at its trigger, the JSON file (atomic, named by a template), the options,
the writer, and serialization (the layout is checked against Chainer in test_golden.py)."""

from __future__ import annotations

import json
import os

import numpy
import pytest

from fnet.compat.serializers import load_npz, save_npz
from fnet.training.extensions import LogReport, snapshot_writers


def _run(trainer, log, n, value=lambda i: float(i)):
    trainer.extend(log, "LogReport", trigger=(1, "iteration"))
    for i in range(1, n + 1):
        trainer.step({"main/loss": value(i), "main/acc": numpy.float32(0.5)})


def test_entries_are_means_over_the_trigger_interval(make_trainer):
    trainer = make_trainer()
    log = LogReport(trigger=(2, "iteration"))
    _run(trainer, log, 5)
    assert log.log == [
        {"main/loss": 1.5, "main/acc": 0.5, "epoch": 0, "iteration": 2, "elapsed_time": 2.0},
        {"main/loss": 3.5, "main/acc": 0.5, "epoch": 0, "iteration": 4, "elapsed_time": 4.0},
    ]
    with open(os.path.join(trainer.out, "log")) as f:
        assert json.load(f) == log.log


def test_default_trigger_is_one_epoch_and_the_file_is_indented_json(make_trainer):
    trainer = make_trainer(iters_per_epoch=3)
    log = LogReport()
    _run(trainer, log, 7)
    assert [entry["iteration"] for entry in log.log] == [3, 6]
    with open(os.path.join(trainer.out, "log")) as f:
        text = f.read()
    assert text.startswith('[\n    {\n        "main/loss": 2.0,')
    assert all(type(entry[key]) is int for entry in log.log for key in ("epoch", "iteration"))


def test_keys_postprocess_and_filename_template(make_trainer):
    trainer = make_trainer()
    log = LogReport(
        keys=["main/loss", "absent"],
        trigger=(2, "iteration"),
        postprocess=lambda e: e.update(n=1),
        filename="log_{iteration}",
    )
    _run(trainer, log, 4)
    assert log.log[0] == {"main/loss": 1.5, "epoch": 0, "iteration": 2, "elapsed_time": 2.0, "n": 1}
    assert sorted(os.listdir(trainer.out)) == ["log_2", "log_4"]
    with open(os.path.join(trainer.out, "log_4")) as f:
        assert len(json.load(f)) == 2


def test_log_name_is_the_old_name_of_filename_and_none_writes_nothing(make_trainer):
    trainer = make_trainer()
    _run(trainer, LogReport(trigger=(1, "iteration"), log_name="old"), 1)
    assert os.listdir(trainer.out) == ["old"]
    other = make_trainer(out=os.path.join(trainer.out, "sub"))
    os.makedirs(other.out)
    _run(other, LogReport(trigger=(1, "iteration"), filename=None), 2)
    assert os.listdir(other.out) == []


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match=r"LogReport\(\) got unexpected keyword argument\(s\) 'file_name'"):
        LogReport(file_name="x")


def test_an_entry_is_made_when_called_before_training(make_trainer):
    trainer = make_trainer()
    log = LogReport(filename=None)
    trainer.observation = {"x": 1.0}
    log(trainer)
    assert log.log == [{"x": 1.0, "epoch": 0, "iteration": 0, "elapsed_time": 0.0}]


def test_a_failed_write_keeps_the_previous_log(make_trainer, monkeypatch):
    trainer = make_trainer()
    log = LogReport(trigger=(1, "iteration"))
    _run(trainer, log, 1)
    path = os.path.join(trainer.out, "log")
    before = open(path).read()

    def broken_dump(obj, f, **kwargs):
        f.write('[{"half": ')
        raise OSError("disk full")

    monkeypatch.setattr("fnet.training.extensions.log_report.json.dump", broken_dump)
    with pytest.raises(OSError, match="disk full"):
        trainer.step({"main/loss": 2.0})
    assert open(path).read() == before
    assert os.listdir(trainer.out) == ["log"]  # no temporary file is left


def test_writer_writes_the_log(make_trainer):
    trainer = make_trainer()
    writer = snapshot_writers.ThreadWriter()
    log = LogReport(trigger=(1, "iteration"), writer=writer)
    _run(trainer, log, 3)
    writer.finalize()
    with open(os.path.join(trainer.out, "log")) as f:
        assert [entry["iteration"] for entry in json.load(f)] == [1, 2, 3]


def test_serialize_round_trip_resumes_the_log_and_the_pending_sums(make_trainer, tmp_path):
    trainer = make_trainer()
    log = LogReport(trigger=(2, "iteration"), filename=None)
    _run(trainer, log, 3)  # one entry, and iteration 3 pending
    save_npz(tmp_path / "snap.npz", trainer)

    resumed = make_trainer()
    new_log = LogReport(trigger=(2, "iteration"), filename=None)
    resumed.extend(new_log, "LogReport", trigger=(1, "iteration"))
    load_npz(tmp_path / "snap.npz", resumed)
    assert new_log.log == log.log
    resumed.step({"main/loss": 4.0, "main/acc": numpy.float32(0.5)})
    trainer.step({"main/loss": 4.0, "main/acc": numpy.float32(0.5)})
    assert new_log.log == log.log
    assert new_log.log[-1]["main/loss"] == 3.5


def test_loading_a_snapshot_without_statistics_warns(make_trainer):
    from fnet.compat.serializers import NpzDeserializer

    log = LogReport()
    with pytest.warns(UserWarning, match="The statistics are not saved"):
        log.serialize(
            NpzDeserializer(
                {
                    "_log": numpy.asarray("[]"),
                    "_trigger/previous_iteration": numpy.asarray(0),
                    "_trigger/previous_epoch_detail": numpy.asarray(0.0),
                }
            )
        )
    assert log.log == []
