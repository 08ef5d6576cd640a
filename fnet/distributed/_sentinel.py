"""The sentinel of one rank: names the rank when it ends without finishing (SIGKILL, the OOM killer).

``python _sentinel.py RANK SIZE PID LOCK`` (standard library only: it starts in milliseconds)
says ``ready`` on its standard output, then reads its standard input, the pipe from its rank,
until the rank closes it. A rank that finishes writes ``done`` first
(``fnet.distributed.failure``); one that reports its own failure writes ``failed``. A pipe that
closes without either means the rank was killed: the sentinel names it on standard error, the
stream of mpiexec that the rank shared. mpiexec then kills the other ranks, and their sentinels
would blame them too: the first sentinel on the machine to create the ``LOCK`` file speaks, the
others stay silent. The sentinel runs in its own session, so mpiexec's clean-up of the rank's
process group leaves it time to speak. (Across machines each machine's first is named.)
"""

import os
import sys
import time


def main(rank: str, size: str, pid: str, lock: str) -> None:
    try:
        os.write(1, b"ready")  # the rank waits for this (and the end of file): no death goes unwatched
    except BrokenPipeError:
        pass  # the rank has ended already; its pipe below says how
    os.close(1)
    said = sys.stdin.buffer.read()
    if said == b"done":
        return
    if said == b"failed":  # the rank named itself and made the lock; it is this sentinel's to remove
        os.close(2)
        _remove_later(lock)
        return
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return  # another rank on this machine failed first: mpiexec is ending this one
    try:
        sys.stderr.write(
            f"\nfnet.distributed: rank {rank} of {size} (pid {pid}, host {os.uname().nodename}) ended "
            "without finishing: killed by a signal (SIGKILL, the OOM killer) or by os._exit; "
            "mpiexec ends the other ranks\n"
        )
        sys.stderr.flush()
    finally:
        os.close(2)  # mpiexec's stream: it waits for every writer before it ends
        _remove_later(lock)


def _remove_later(lock: str) -> None:
    """The other sentinels find the lock while mpiexec ends their ranks; then it goes."""
    try:
        time.sleep(5)
    finally:
        os.unlink(lock)


if __name__ == "__main__":
    main(*sys.argv[1:5])
