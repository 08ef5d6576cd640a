"""TensorBoardReport: the scalars written at its trigger, read back from the event files; the
keys and logdir options; resume; the error when tensorboardX is missing."""

from __future__ import annotations

import glob
import os
import struct
import sys

import numpy
import pytest

from fnet.training.extensions import TensorBoardReport


def _records(path):
    """The records of a TFRecord file (TensorBoard's event file format), their CRCs checked."""
    crc32c = pytest.importorskip("tensorboardX.crc32c")

    def masked(data):
        crc = crc32c.crc32c(data)
        return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF

    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        header = data[at : at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8 : at + 12])
        assert length_crc == masked(header)
        record = data[at + 12 : at + 12 + length]
        (record_crc,) = struct.unpack("<I", data[at + 12 + length : at + 16 + length])
        assert record_crc == masked(record)
        yield record
        at += 16 + length


def _scalars(logdir):
    """``{tag: [(step, value), ...]}`` from every event file in ``logdir``, by step."""
    event_pb2 = pytest.importorskip("tensorboardX.proto.event_pb2")
    scalars: dict = {}
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        for record in _records(path):
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                scalars.setdefault(value.tag, []).append((event.step, value.simple_value))
    return {tag: sorted(values) for tag, values in scalars.items()}


@pytest.fixture
def tensorboardX():
    return pytest.importorskip(
        "tensorboardX",
        reason="TensorBoardReport needs tensorboardX (pip install 'fnet-chainer[tensorboard]')",
    )


def test_means_of_every_reported_scalar_are_written_at_the_trigger(make_trainer, tensorboardX):
    trainer = make_trainer(iters_per_epoch=2)
    board = trainer.extend(TensorBoardReport(), "board", trigger=(1, "iteration"))
    for i in range(1, 5):
        trainer.step({"main/loss": float(i), "main/acc": numpy.float32(0.25 * i)})
    board.finalize()
    scalars = _scalars(os.path.join(trainer.out, "tensorboard"))
    assert sorted(scalars) == ["main/acc", "main/loss"]  # epoch and iteration are the steps
    assert scalars["main/loss"] == [(2, 1.5), (4, 3.5)]  # one epoch of 2 iterations each
    assert scalars["main/acc"] == [(2, 0.375), (4, 0.875)]


def test_keys_trigger_logdir_and_resume(make_trainer, tmp_path, tensorboardX):
    from fnet.compat.serializers import DictionarySerializer, NpzDeserializer

    logdir = str(tmp_path / "board")
    trainer = make_trainer()
    board = TensorBoardReport(keys=["main/loss"], trigger=(3, "iteration"), logdir=logdir)
    trainer.extend(board, "board", trigger=(1, "iteration"))
    for i in range(1, 6):
        trainer.step({"main/loss": float(i), "main/acc": 1.0})
    snapshot = DictionarySerializer()
    trainer.serialize(snapshot)  # at iteration 5: the sums of iterations 4 and 5 are pending
    board.finalize()

    resumed = make_trainer()
    again = TensorBoardReport(keys=["main/loss"], trigger=(3, "iteration"), logdir=logdir)
    resumed.extend(again, "board", trigger=(1, "iteration"))
    resumed.serialize(NpzDeserializer(snapshot.target))
    resumed.step({"main/loss": 6.0})
    again.finalize()
    assert _scalars(logdir) == {"main/loss": [(3, 2.0), (6, 5.0)]}
    assert len(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))) == 2


def test_missing_tensorboardx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)  # import tensorboardX raises ImportError
    expected = r"tensorboardX is not installed.*\n  hint: pip install 'fnet-chainer\[tensorboard\]'"
    with pytest.raises(ImportError, match=expected):
        TensorBoardReport()
