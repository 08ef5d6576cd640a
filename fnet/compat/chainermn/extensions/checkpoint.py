"""``create_multi_node_checkpointer``: generational snapshots of every rank, resumed at the
latest iteration that all ranks saved (ChainerMN's deprecated fault-tolerance helper).

Files are ``<name>.<rank>.<iteration>`` in the trainer's output folder, each written atomically
by ``save_npz``; the checkpointer keeps the ``cp_interval`` newest iterations common to all
ranks and removes older ones.
"""

from __future__ import annotations

import os
import time
import warnings

from ...serializers import load_npz, save_npz
from ...training import extension

__all__ = ["create_multi_node_checkpointer"]


class _CheckpointStats:
    """The durations of the snapshots: ``start()`` and ``end()`` around each, ``report()``."""

    def __init__(self):
        self.timings = []
        self.begin = None

    def start(self):
        self.begin = time.time()

    def end(self):
        if self.begin is not None:
            self.timings.append({"b": self.begin, "d": time.time() - self.begin})
            self.begin = None

    def report(self):
        durations = [t["d"] for t in self.timings]
        if not durations:
            return "No stats available"
        average = sum(durations) / len(durations)
        return (
            f"Snapshot duration stats (sec): avg={average:f}, min={min(durations):f}, max={max(durations):f}"
        )


class _MultiNodeCheckpointer(extension.Extension):
    def __init__(self, name, comm, cp_interval, gc_interval, path):
        if name is None or comm is None or cp_interval <= 0 or gc_interval <= 0:
            raise ValueError(
                "create_multi_node_checkpointer: expected a name, a communicator and positive intervals, "
                f"got name={name!r}, cp_interval={cp_interval}, gc_interval={gc_interval}"
            )
        self.name = name
        self.comm = comm
        self.cp_interval = cp_interval
        self.gc_interval = gc_interval
        self.path = path
        self.files = []
        self.stats = _CheckpointStats()
        if path is not None:
            os.makedirs(path, exist_ok=True)

    def __call__(self, trainer):
        if self.path is None:
            self.path = trainer.out
        self.save(trainer, trainer.updater.iteration)

    def save(self, target, iteration):
        """Snapshot ``target`` for ``iteration`` (every rank at the same iteration)."""
        os.makedirs(self.path, exist_ok=True)
        self.stats.start()
        save_npz(os.path.join(self.path, self._filename(iteration)), target)
        self.stats.end()
        self.files.append(self._filename(iteration))
        if len(self.files) - self.cp_interval > 5:
            self._sync_file_list(remove_remainder=True)

    def finalize(self):
        """Remove this rank's snapshots."""
        for file in self.files:
            try:
                os.remove(os.path.join(self.path, file))
            except OSError:
                pass
        self.files = []

    def get_stats(self):
        """The average, minimum and maximum time of a snapshot."""
        return self.stats.report()

    def _filename(self, iteration):
        return f"{self.name}.{self.comm.rank}.{iteration}"

    def _filenames(self, iterations):
        """This rank's snapshot names of ``iterations`` (ChainerMN's helper, as its tests use it)."""
        return [self._filename(i) for i in iterations]

    def _parse(self, filename):
        parts = filename.split(".")
        if len(parts) != 3 or parts[0] != self.name or not (parts[1].isdigit() and parts[2].isdigit()):
            return None
        return parts[0], int(parts[1]), int(parts[2])

    def _parse_filenames(self, filenames):
        """``(name, rank, iteration)`` of each of ``filenames`` that is a snapshot of this
        checkpointer; the others are passed over."""
        return [p for p in map(self._parse, filenames) if p]

    def _sync_file_list(self, remove_remainder=False):
        """Keep the ``cp_interval`` newest iterations that every rank has."""
        mine = {p[2] for p in self._parse_filenames(self.files)}
        common = sorted(set.intersection(*[set(i) for i in self.comm.allgather_obj(sorted(mine))]))
        files = self._filenames(common[-self.cp_interval :])
        if remove_remainder:
            for file in set(self.files) - set(files):
                try:
                    os.remove(os.path.join(self.path, file))
                except OSError:
                    pass
        self.files = files

    def maybe_load(self, trainer, optimizer=None, path=None):
        """Load the latest snapshot that every rank has, if there is one."""
        if self.path is None:
            self.path = path if path is not None else trainer.out
        try:
            local = os.listdir(self.path)
        except OSError:
            local = []
        self.files = self._filenames(
            i for _, rank, i in self._parse_filenames(local) if rank == self.comm.rank
        )
        self._sync_file_list()
        iterations = [p[2] for p in self._parse_filenames(self.files)]
        if iterations:
            load_npz(os.path.join(self.path, self._filename(max(iterations))), trainer)
            if optimizer is not None:
                optimizer.__setattr__("needs_broadcast", False)


def create_multi_node_checkpointer(name, comm, cp_interval=5, gc_interval=5, path=None):
    """A checkpointer extension: ``trainer.extend(checkpointer)``, and
    ``checkpointer.maybe_load(trainer, optimizer)`` before ``trainer.run()`` to resume.
    Deprecated in ChainerMN in favour of ``multi_node_snapshot``."""
    warnings.warn(
        "Checkpointer is deprecated. Use chainer.extensions.multi_node_snapshot instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)
