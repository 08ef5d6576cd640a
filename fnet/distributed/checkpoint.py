"""Checkpoints of a data-parallel run: written by one rank, read by all.

``save(comm, path, tree)`` writes on ``root`` only (``fnet.io.save``: atomic, so a run killed
mid-write leaves the previous file), and returns on every rank once the file is complete.
``load(comm, path, like)`` reads on ``root`` only and sends the leaves to the others, so the
other ranks need not see the file. An error on ``root`` (a full disk, a corrupt file) is raised
as the same ``CheckpointError`` on every rank, instead of leaving the others waiting.
"""

from __future__ import annotations

from .. import io as _io
from .. import tree as _tree
from ..errors import CheckpointError, FnetError

__all__ = ["save", "load"]


def _outcome(comm, root: int, work):
    """``work()``'s result on ``root``, sent to every rank; its error raised on every rank."""
    message, result = None, None
    if comm.rank == root:
        try:
            result = work()
        except (OSError, FnetError) as error:
            message = f"{type(error).__name__}: {error}"
    message, result = comm.bcast_obj((message, result), root)
    if message is not None:
        raise CheckpointError(f"on rank {root}: {message}")
    return result


def save(comm, path, tree, root: int = 0) -> None:
    """Write ``tree`` to ``path`` on rank ``root``; every rank returns when the file is complete."""
    _outcome(comm, root, lambda: _io.save(path, tree))


def load(comm, path, like=None, root: int = 0):
    """The tree saved at ``path``, read on rank ``root`` and given to every rank; with ``like``,
    checked against it and rebuilt in its structure (see ``fnet.io.load``)."""
    if like is None:
        return _outcome(comm, root, lambda: _io.load(path))
    leaves = _outcome(comm, root, lambda: _tree.leaves(_io.load(path, like)))
    return _tree.unflatten(_tree.structure(like), leaves)
