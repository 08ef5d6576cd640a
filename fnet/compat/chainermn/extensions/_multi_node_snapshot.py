"""``multi_node_snapshot``: a snapshot extension per set of replica ranks.

The ranks are grouped in replica sets, whose members hold the same state (e.g. rank 0, which
alone has the reporting extensions, and all the others). The lowest rank of each set (its
master) writes the snapshot, with its rank appended to the file name; on start-up, with
``autoload``, the master loads the latest one and sends it (npz bytes, no pickle) to the other
members of its set, which load it too.
"""

from __future__ import annotations

import io

from ...serializers import load_npz, save_npz
from ...training.extension import Extension
from ...training.extensions import _find_latest_snapshot

__all__ = ["multi_node_snapshot"]


def _parse_replica_sets(replica_sets, size: int) -> list[set]:
    """The replica sets as sets of ranks, the ranks no set names added as one more set."""
    sets = [{s} if isinstance(s, int) else set(s) for s in replica_sets]
    named = set().union(*sets) if sets else set()
    if any(not 0 <= r < size for r in named) or sum(len(s) for s in sets) != len(named):
        raise ValueError(
            f"multi_node_snapshot: replica sets must be disjoint sets of ranks in [0, {size}), "
            f"got {replica_sets}"
        )
    rest = set(range(size)) - named
    return sets + [rest] if rest else sets


class _MultiNodeSnapshot(Extension):
    def __init__(self, comm, snapshot, replica_sets):
        self.comm = comm
        self.snapshot = snapshot
        if callable(snapshot.filename):
            inner = snapshot.filename
            snapshot.filename = lambda trainer: f"{inner(trainer)}.{comm.rank}"
        else:
            snapshot.filename = f"{snapshot.filename}.{comm.rank}"
        self.replica_set = next(s for s in _parse_replica_sets(replica_sets, comm.size) if comm.rank in s)
        self.master = min(self.replica_set)

    @property
    def is_master(self) -> bool:
        return self.master == self.comm.rank

    def initialize(self, trainer):
        if self.is_master:
            self.snapshot.initialize(trainer)
        if not self.snapshot.autoload:
            return
        target = trainer if self.snapshot._target is None else self.snapshot._target
        if self.is_master:
            data = None
            if _find_latest_snapshot(self.snapshot.filename, trainer.out) is not None:
                buffer = io.BytesIO()
                save_npz(buffer, target)
                data = buffer.getvalue()
            for rank in sorted(self.replica_set - {self.comm.rank}):
                self.comm.send_obj(data, rank)
        else:
            data = self.comm.recv_obj(self.master)
            if data is not None:
                load_npz(io.BytesIO(data), target)

    def on_error(self, trainer, exc, tb):
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def __call__(self, trainer):
        if self.is_master:
            self.snapshot(trainer)

    def finalize(self):
        if self.is_master:
            self.snapshot.finalize()


def multi_node_snapshot(comm, snapshot, replica_sets):
    """Wrap ``snapshot`` (from ``extensions.snapshot()``) for ranks grouped in ``replica_sets``
    (ranks or iterables of ranks; the ranks not named form one more set)."""
    return _MultiNodeSnapshot(comm, snapshot, replica_sets)
