"""One rank's failure ends the whole job, with a line naming the rank, instead of a hang.

Without a hook, a rank that raises leaves the job: the other ranks wait in their next collective
for a partner that never comes, forever. ``abort_on_exception()`` installs a ``sys.excepthook``
that prints a line naming the rank, then the traceback, and calls ``MPI_Abort``: mpiexec then
ends every rank within a second or so.

A rank killed outright (SIGKILL, the OOM killer) needs no hook to end the job: mpiexec sees it
die and ends the others, but its report names only a process id. So the first communicator over
the world starts one watcher process per machine (``_watcher.py``, in its own session), which
every rank of the machine connects to, and which names the first of them to end without having
said ``done``. Set ``FNET_DISTRIBUTED_WATCHER=0`` to go without.
"""

from __future__ import annotations

import atexit
import os
import secrets
import socket
import subprocess
import sys
import time
import warnings

from . import _mpi

__all__ = ["abort_on_exception", "remove_abort_on_exception"]

_previous_hook = None
_DRAIN_SECONDS = 0.2
_WATCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_watcher.py")
_GREETING_SECONDS = 60
_watch_asked = False
_connection: socket.socket | None = None


def watch(comm) -> bool:
    """Connect this rank to its machine's watcher, which the machine's first rank starts (once per
    process; ``comm`` spans the world, and every rank must call this at the same point: it takes
    collectives). False when it was asked for already or ``FNET_DISTRIBUTED_WATCHER=0``."""
    global _watch_asked, _connection
    if _watch_asked:
        return False
    _watch_asked = True
    job = comm.bcast_obj(secrets.token_hex(8) if comm.rank == 0 else None)  # names the job's sockets
    if os.environ.get("FNET_DISTRIBUTED_WATCHER", "1") == "0":
        return False
    address = f"fnet-distributed-{job}-{comm.inter_rank}"
    if comm.intra_rank == 0:
        argv = [sys.executable, "-S", _WATCHER, address, str(comm.intra_size), str(comm.size)]
        watcher = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True
        )
        watcher.stdout.read()  # "ready", then end of file: the watcher listens
        watcher.stdout.close()
    comm.mpi_comm.Barrier()
    _connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _connection.settimeout(_GREETING_SECONDS)
    try:
        _connection.connect("\0" + address)
        _connection.sendall(f"{comm.rank} {os.getpid()}\n".encode())
        answer = _connection.recv(2)  # the watcher has read the greeting: see _watcher.py
    except OSError as error:
        answer = repr(error)
    if answer != b"ok":
        warnings.warn(
            f"fnet.distributed: rank {comm.rank} could not reach its machine's watcher ({answer!r}); "
            "a rank killed outright will not be named. Set FNET_DISTRIBUTED_WATCHER=0 to go without.",
            RuntimeWarning,
            stacklevel=3,
        )
        _connection.close()
        _connection = None
        return False
    _connection.settimeout(None)
    os.register_at_fork(after_in_child=_forget_watcher_in_child)
    atexit.register(_tell_watcher, b"done")
    return True


def _forget_watcher_in_child() -> None:
    """A forked child (a data loader's worker) must not hold the connection: the rank's death
    would go unseen while the child lives."""
    global _connection
    if _connection is not None:
        _connection.close()
        _connection = None


def leaving_by_abort() -> None:
    """This rank is about to end the job itself (MPI_Abort, which names the rank): its machine's
    watcher must not blame it, nor the ranks that mpiexec then ends."""
    _tell_watcher(b"failed")


def _tell_watcher(word: bytes) -> None:
    """The rank ends as planned (``done``), or has named its own failure (``failed``)."""
    global _connection
    if _connection is None:
        return
    try:
        _connection.sendall(word)
        _connection.close()
    except OSError:
        pass
    _connection = None


def _abort_hook(kind, value, tb) -> None:
    world = _mpi.load().COMM_WORLD
    leaving_by_abort()
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
