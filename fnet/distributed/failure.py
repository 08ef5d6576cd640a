"""One rank's uncaught exception ends the whole job, instead of leaving the others waiting.

Without this, a rank that raises leaves the job: the other ranks wait in their next collective
for a partner that never comes, forever. ``abort_on_exception()`` installs a ``sys.excepthook``
that prints a line naming the rank, then the traceback, and calls ``MPI_Abort``: mpiexec then
ends every rank within a second or so. (A rank killed outright, by SIGKILL or the OOM killer,
needs no hook: mpiexec sees it die and ends the others.)
"""

from __future__ import annotations

import sys
import time

from . import _mpi

__all__ = ["abort_on_exception", "remove_abort_on_exception"]

_previous_hook = None
_DRAIN_SECONDS = 0.2


def _abort_hook(kind, value, tb) -> None:
    world = _mpi.load().COMM_WORLD
    try:
        # the line naming the rank goes first: mpiexec stops forwarding a rank's output when the
        # abort reaches it, and what was written last could be lost
        sys.stderr.write(
            f"\nfnet.distributed: uncaught {kind.__name__} on rank {world.rank} of {world.size}; "
            "aborting every rank (MPI_Abort)\n"
        )
        sys.stderr.flush()
        (_previous_hook or sys.__excepthook__)(kind, value, tb)
    finally:
        sys.stderr.flush()
        time.sleep(_DRAIN_SECONDS)  # mpiexec forwards what was written before it ends every rank
        world.Abort(1)


def abort_on_exception() -> bool:
    """Install the hook (once); False if it was installed already."""
    global _previous_hook
    if sys.excepthook is _abort_hook:
        return False
    _previous_hook = sys.excepthook
    sys.excepthook = _abort_hook
    return True


def remove_abort_on_exception() -> None:
    """Put back the hook that ``abort_on_exception`` replaced."""
    global _previous_hook
    if sys.excepthook is _abort_hook:
        sys.excepthook = _previous_hook or sys.__excepthook__
        _previous_hook = None
