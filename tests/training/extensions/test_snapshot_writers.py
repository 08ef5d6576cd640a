"""Snapshot writers: every writer writes the file atomically, runs the cleanup hooks, waits in
finalize, and reports a failed write instead of losing it or hanging."""

from __future__ import annotations

import os
import queue
import time
from unittest import mock

import numpy
import pytest

from fnet.compat.serializers import save_npz
from fnet.training.extensions import snapshot_writers
from fnet.training.extensions.snapshot_writers import write_atomically

WRITERS = {
    "simple": snapshot_writers.SimpleWriter,
    "thread": snapshot_writers.ThreadWriter,
    "process": snapshot_writers.ProcessWriter,
    "thread_queue": snapshot_writers.ThreadQueueWriter,
    "process_queue": snapshot_writers.ProcessQueueWriter,
}


def _load(path):
    with numpy.load(path) as f:
        return {key: f[key] for key in f.files}


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_writers_write_every_snapshot_and_run_the_hooks(kind, tmp_path):
    writer = WRITERS[kind]()
    calls = []
    writer._add_cleanup_hook(lambda: calls.append(sorted(os.listdir(tmp_path))))
    for i in range(3):
        writer(f"snap_{i}", str(tmp_path), {"W": numpy.full(3, i, numpy.float32), "t": numpy.asarray(i)})
    writer.finalize()
    writer.finalize()  # finalizing twice is harmless
    assert sorted(os.listdir(tmp_path)) == ["snap_0", "snap_1", "snap_2"]
    for i in range(3):
        loaded = _load(tmp_path / f"snap_{i}")
        assert loaded["t"] == i and (loaded["W"] == i).all()
    assert calls and calls[-1] == ["snap_0", "snap_1", "snap_2"]


def test_savefun_and_its_keywords(tmp_path):
    seen = []

    def savefun(path, target, **kwargs):
        seen.append((os.path.basename(path), kwargs))
        save_npz(path, target, **kwargs)

    snapshot_writers.SimpleWriter(savefun, compression=False)("a.npz", str(tmp_path), {"x": numpy.ones(2)})
    assert seen == [("a.npz", {"compression": False})]


def test_the_call_savefun_replaces_the_writers(tmp_path):
    def text(path, target):
        with open(path, "w") as f:
            f.write(str(target))

    writer = snapshot_writers.ThreadQueueWriter()
    writer("a.txt", str(tmp_path), [1, 2], savefun=text)
    writer.finalize()
    assert (tmp_path / "a.txt").read_text() == "[1, 2]"


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary(tmp_path):
    write_atomically("snap", str(tmp_path), {"x": numpy.zeros(2)}, None)

    def crash(path, target):
        with open(path, "wb") as f:
            f.write(b"PK\x03\x04 half a file")
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError, match="crash mid-write"):
        write_atomically("snap", str(tmp_path), {"x": numpy.ones(2)}, crash)
    assert os.listdir(tmp_path) == ["snap"]
    assert (_load(tmp_path / "snap")["x"] == 0).all()


def test_a_killed_writer_process_keeps_the_previous_file(tmp_path):
    """A process that dies in the middle of writing (as with a power cut) leaves the old file."""
    write_atomically("snap", str(tmp_path), {"x": numpy.zeros(2)}, None)
    writer = snapshot_writers.ProcessWriter(savefun=_die_mid_write)
    writer("snap", str(tmp_path), {"x": numpy.ones(2)})
    with pytest.raises(
        RuntimeError, match=r"ProcessWriter: writing the snapshot 'snap' failed.*exited with code 3"
    ):
        writer.finalize()
    assert (_load(tmp_path / "snap")["x"] == 0).all()
    leftovers = [name for name in os.listdir(tmp_path) if name != "snap"]
    assert all(name.startswith(".tmp") for name in leftovers)


def _die_mid_write(path, target):
    with open(path, "wb") as f:
        f.write(b"PK\x03\x04 half")
        f.flush()
    os._exit(3)


def test_a_savefun_that_writes_another_name_is_explained(tmp_path):
    with pytest.raises(RuntimeError, match=r"did not write the file it was given \('snap'\).*'snap.npz'"):
        write_atomically("snap", str(tmp_path), {"x": numpy.zeros(2)}, lambda p, t: numpy.savez(p, **t))
    assert os.listdir(tmp_path) == []


def test_thread_writer_error_surfaces_at_the_next_call(tmp_path):
    def failing(path, target):
        raise ValueError("no space")

    writer = snapshot_writers.ThreadWriter(savefun=failing)
    writer("a", str(tmp_path), {})
    with pytest.raises(RuntimeError, match="ThreadWriter: writing the snapshot 'a' failed: no space"):
        writer("b", str(tmp_path), {})


def test_queue_writer_goes_on_after_a_failed_task(tmp_path, caplog):
    calls = []

    def flaky(path, target):
        calls.append(path)
        if len(calls) == 1:
            raise ValueError("first one fails")
        save_npz(path, target)

    writer = snapshot_writers.ThreadQueueWriter(savefun=flaky)
    writer("a", str(tmp_path), {"x": numpy.zeros(1)})
    writer("b", str(tmp_path), {"x": numpy.zeros(1)})
    start = time.monotonic()
    writer.finalize()  # no hang
    assert time.monotonic() - start < 5
    assert os.listdir(tmp_path) == ["b"]
    (record,) = caplog.records
    assert (record.levelname, record.getMessage()) == ("ERROR", "snapshot writer: writing 'a' failed")
    assert "ValueError: first one fails" in caplog.text  # the traceback comes with it


def test_a_subdirectory_in_the_name_is_created(tmp_path):
    snapshot_writers.SimpleWriter()("models/m.npz", str(tmp_path), {"x": numpy.zeros(1)})
    assert os.listdir(tmp_path / "models") == ["m.npz"]


def test_writer_base_classes_are_made_but_refuse_to_write():
    # as in Chainer: the base classes can be made (tests mock their methods); what a subclass
    # must define raises NotImplementedError
    with pytest.raises(NotImplementedError, match="expected Writer to define __call__"):
        snapshot_writers.Writer()("f", "d", {})
    with pytest.raises(NotImplementedError, match="define create_worker"):
        snapshot_writers.StandardWriter()("f", "d", {})

    class Queue(snapshot_writers.QueueWriter):
        def create_queue(self):
            return queue.Queue()

    with pytest.raises(NotImplementedError, match="define create_consumer"):
        Queue()


def test_queue_writer_consume_reads_its_tasks_by_index():
    # Chainer's consume indexes each task (task[0](task[1], ...)); its tests hand it mocks
    class Queue(snapshot_writers.QueueWriter):
        def create_queue(self):
            return mock.MagicMock()

        def create_consumer(self, q):
            return mock.MagicMock()

    task = mock.MagicMock()
    q = mock.MagicMock()
    q.get = mock.MagicMock(side_effect=[task, task, None])
    Queue().consume(q)
    assert q.get.call_count == 3 and task[0].call_count == 2 and q.task_done.call_count == 3
