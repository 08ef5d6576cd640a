"""The watcher of one machine's ranks: names the first of them to end without finishing.

``python -S _watcher.py ADDRESS LOCAL_SIZE WORLD_SIZE`` (standard library only: it starts in
milliseconds) listens on the abstract Unix socket ``ADDRESS``, says ``ready`` on its standard
output and closes it. Each rank of the machine connects, says ``RANK PID`` and a newline, and
waits for the watcher's ``ok``. A rank that finishes says ``done`` before it exits; one that
names its own failure says ``failed``. A connection that closes without either belongs to a rank
that was killed (SIGKILL, the OOM killer) or left by ``os._exit``: the watcher names it on its
standard error (mpiexec's stream of the rank that started it), then ends.

Which rank ended first is read from the kernel, not guessed from which process woke first: an
edge-triggered epoll hands out ready connections in the order they became ready, and mpiexec
kills the other ranks only after it has seen the first one end. So however late the watcher runs
on a loaded machine, the first connection it is handed is the first rank to end. (That is why a
rank waits for ``ok``: a greeting still unread when a rank ends would hold its connection's
place in the queue, ahead of the rank that ended first.) The watcher speaks only when every rank
of the machine has connected: a rank that never did could have ended first. Across machines,
each machine's watcher names the first of its own ranks to end, and its line says so.
"""

import os
import select
import socket
import sys

_WAIT_SECONDS = 30
_EVENTS = select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLET


def main(address: str, local_size: str, world_size: str) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0" + address)
    listener.listen(int(local_size))
    listener.setblocking(False)
    os.write(1, b"ready")
    os.close(1)
    poll = select.epoll()
    poll.register(listener.fileno(), select.EPOLLIN)
    ranks = {}  # fd -> [connection, what it said]
    connected = 0
    while connected < int(local_size) or ranks:
        # the ranks connect right after the watcher is ready; one that never does (killed on the
        # way) is waited for a while, not for ever: mpiexec waits for this process's stderr
        events = poll.poll(_WAIT_SECONDS if not ranks else None)
        if not events:
            return
        for fd, _ in events:
            if fd == listener.fileno():
                connected += _accept(listener, poll, ranks)
                continue
            connection, said = ranks[fd]
            greeted = b"\n" in said
            closed = _read(connection, said)
            if not greeted and b"\n" in said and not closed:
                connection.sendall(b"ok")
            if not closed:
                continue
            poll.unregister(fd)
            connection.close()
            del ranks[fd]
            words = bytes(said).split()
            if words[2:3] in ([b"done"], [b"failed"]):
                continue
            if connected == int(local_size) and len(words) >= 2:
                _name(words[0].decode(), world_size, words[1].decode(), int(local_size))
            return


def _accept(listener, poll, ranks) -> int:
    """Take every waiting connection; how many there were."""
    taken = 0
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return taken
        connection.setblocking(False)
        poll.register(connection.fileno(), _EVENTS)
        ranks[connection.fileno()] = [connection, bytearray()]
        taken += 1


def _read(connection, said: bytearray) -> bool:
    """Read what ``connection`` has (edge-triggered: all of it); True once it has closed."""
    while True:
        try:
            chunk = connection.recv(256)
        except BlockingIOError:
            return False
        except ConnectionResetError:
            return True
        if not chunk:
            return True
        said += chunk


def _name(rank: str, world_size: str, pid: str, local_size: int) -> None:
    host = os.uname().nodename
    first = "" if local_size == int(world_size) else f", the first of the {local_size} ranks on {host} to end"
    try:
        sys.stderr.write(
            f"\nfnet.distributed: rank {rank} of {world_size} (pid {pid}, host {host}) ended without "
            f"finishing{first}: killed by a signal (SIGKILL, the OOM killer) or left by os._exit; "
            "mpiexec ends the other ranks\n"
        )
        sys.stderr.flush()
    finally:
        os.close(2)  # mpiexec's stream: it waits for every writer before it ends


if __name__ == "__main__":
    main(*sys.argv[1:4])
