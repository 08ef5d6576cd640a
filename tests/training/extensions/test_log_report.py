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
    # as in Chainer, the warning comes from the DictSummary, which finds no names of statistics
    with pytest.warns(UserWarning, match="holds no names of statistics"):
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


# -- the CSV and JSON-lines row files ----------------------------------------------------------------


def _rows_run(trainer, start, stop, validation_from=None):
    for i in range(start, stop + 1):
        observation = {"main/loss": float(i)}
        if validation_from is not None and i >= validation_from:
            observation["validation/main/loss"] = i / 10
        trainer.step(observation)


def _read(path):
    with open(path, newline="") as f:
        return f.read()


def test_csv_and_jsonl_get_one_row_per_entry_flushed_as_it_is_made(make_trainer):
    import csv

    trainer = make_trainer()
    log = LogReport(trigger=(2, "iteration"), csv_filename="log.csv", jsonl_filename="log.jsonl")
    trainer.extend(log, "LogReport", trigger=(1, "iteration"))
    _rows_run(trainer, 1, 4)
    csv_path, jsonl_path = (os.path.join(trainer.out, name) for name in ("log.csv", "log.jsonl"))
    assert _read(csv_path) == (
        "main/loss,epoch,iteration,elapsed_time\r\n1.5,0,2,2.0\r\n3.5,0,4,4.0\r\n"
    )  # readable while training runs: each row is written when its entry is made
    assert [json.loads(line) for line in _read(jsonl_path).splitlines()] == log.log

    # a key that appears later widens the header; the earlier rows get empty cells
    _rows_run(trainer, 5, 6, validation_from=5)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["main/loss", "epoch", "iteration", "elapsed_time", "validation/main/loss"]
    assert [row["validation/main/loss"] for row in rows] == ["", "", "0.55"]
    assert [json.loads(line) for line in _read(jsonl_path).splitlines()] == log.log
    assert not [name for name in os.listdir(trainer.out) if name.startswith(".tmp")]


def test_row_files_have_each_entry_once_after_a_resume(make_trainer, tmp_path):
    """Snapshot at iteration 3, rows written up to 5, a crash in the middle of a row; the run
    resumed from the snapshot leaves the same files as a run that never stopped."""
    from fnet.compat.serializers import DictionarySerializer, NpzDeserializer

    def build(out):
        trainer = make_trainer(out=out)
        trainer.extend(
            LogReport(trigger=(1, "iteration"), csv_filename="log.csv", jsonl_filename="log.jsonl"),
            "LogReport",
            trigger=(1, "iteration"),
        )
        return trainer

    straight = build(tmp_path / "straight")
    _rows_run(straight, 1, 8, validation_from=7)

    stopped = build(tmp_path / "resumed")
    _rows_run(stopped, 1, 3)
    snapshot = DictionarySerializer()
    stopped.serialize(snapshot)
    _rows_run(stopped, 4, 5)
    for name in ("log.csv", "log.jsonl"):
        with open(tmp_path / "resumed" / name, "a") as f:
            f.write('6.0,0,6,6.0\r\n{"main/lo')  # a row torn by the crash
    resumed = build(tmp_path / "resumed")
    resumed.serialize(NpzDeserializer(snapshot.target))
    assert resumed.updater.iteration == 3
    _rows_run(resumed, 4, 8, validation_from=7)
    for name in ("log.csv", "log.jsonl"):
        assert _read(tmp_path / "resumed" / name) == _read(tmp_path / "straight" / name)
    assert [row.split(",")[2] for row in _read(tmp_path / "resumed" / "log.csv").splitlines()[1:]] == [
        str(i) for i in range(1, 9)
    ]

    fresh = build(tmp_path / "resumed")  # a new run in the same place replaces the files
    _rows_run(fresh, 1, 1)
    assert _read(tmp_path / "resumed" / "log.csv").splitlines()[1:] == ["1.0,0,1,1.0"]
