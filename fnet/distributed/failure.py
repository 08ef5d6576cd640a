"""One rank's failure ends the whole job, with a line naming the rank, instead of a hang.

Without a hook, a rank that raises leaves the job: the other ranks wait in their next collective
for a partner that never comes, forever. ``abort_on_exception()`` installs a ``sys.excepthook``
that prints the traceback, then a line naming the rank, and calls ``MPI_Abort``: mpiexec then
ends every rank within a second or so.

A rank killed outright (SIGKILL, the OOM killer) needs no hook to end the job: mpiexec sees it
die and ends the others, but its report names only a process id. So the first communicator over
``MPI.COMM_WORLD`` starts a sentinel process beside each rank (``_sentinel.py``, in its own
session) that names the rank when it ends without having said ``done``. Set
``FNET_DISTRIBUTED_SENTINEL=0`` to go without.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile

from . import _mpi

__all__ = ["abort_on_exception", "remove_abort_on_exception"]

_previous_hook = None
_sentinel: subprocess.Popen | None = None
_sentinel_asked = False
_lock_path: str | None = None


def sentinel_wanted() -> bool:
    """True until the first communicator over the world has asked for the sentinel (every rank
    asks at the same point, so that the job's token is shared by one collective on all)."""
    return not _sentinel_asked


def start_sentinel(rank: int, size: int, job: str) -> bool:
    """Start this process's sentinel (once; ``job`` is a token shared by the job's ranks, which
    names the lock that lets one sentinel per machine speak). False when it was asked for already
    or ``FNET_DISTRIBUTED_SENTINEL=0``."""
    global _sentinel, _sentinel_asked, _lock_path
    if _sentinel_asked:
        return False
    _sentinel_asked = True
    if os.environ.get("FNET_DISTRIBUTED_SENTINEL", "1") == "0":
        return False
    _lock_path = os.path.join(tempfile.gettempdir(), f"fnet-distributed-{job}.failed")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sentinel.py")
    argv = [sys.executable, "-S", script, str(rank), str(size), str(os.getpid()), _lock_path]
    _sentinel = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    _sentinel.stdout.read()  # "ready", then end of file: the sentinel is watching
    _sentinel.stdout.close()
    os.register_at_fork(after_in_child=_forget_sentinel_in_child)
    atexit.register(_tell_sentinel_done)
    return True


def _forget_sentinel_in_child() -> None:
    """A forked child (a data loader's worker) must not hold the pipe: the rank's death would go
    unseen while the child lives."""
    global _sentinel
    if _sentinel is not None:
        _sentinel.stdin.close()
        _sentinel = None


def _tell_sentinel_done(*, failed_here: bool = False) -> None:
    """The rank ends as planned (or reports its own failure: then the sentinels of the ranks
    that mpiexec ends next stay silent)."""
    global _sentinel
    if _sentinel is None:
        return
    word = b"done"
    if failed_here:
        try:
            os.close(os.open(_lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            word = b"failed"  # the lock is ours: the sentinel removes it when the job is over
        except FileExistsError:
            pass  # another rank of this machine failed first
    try:
        _sentinel.stdin.write(word)
        _sentinel.stdin.close()
    except OSError:
        pass
    _sentinel = None


def _abort_hook(kind, value, tb) -> None:
    try:
        (_previous_hook or sys.__excepthook__)(kind, value, tb)
    finally:
        _tell_sentinel_done(failed_here=True)
        world = _mpi.load().COMM_WORLD
        sys.stderr.write(
            f"\nfnet.distributed: uncaught {kind.__name__} on rank {world.rank} of {world.size}; "
            "aborting every rank (MPI_Abort)\n"
        )
        sys.stderr.flush()
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
