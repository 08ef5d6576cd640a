"""A rank that fails ends the job quickly (every launch bounded by a timeout), and the check
launcher reports a failure on the rank where it happened."""

import os
import time

import pytest

from tests import _mpi

_NAMED = "ended without finishing"  # the watcher's line for a killed rank

PROGRAM = """
import os, signal, sys, numpy
from fnet import distributed
{setup}
comm = distributed.Communicator()
if comm.rank == 1:
    {failure}
comm.allreduce({{"x": numpy.ones(3)}})  # rank 0 waits here for rank 1
print("rank", comm.rank, "finished", flush=True)
"""


def _run(setup: str, failure: str):
    start = time.monotonic()
    done = _mpi.launch(2, ["-c", PROGRAM.format(setup=setup, failure=failure)], timeout=60)
    return done, time.monotonic() - start


@pytest.mark.mpi
def test_a_rank_that_raises_aborts_every_rank_naming_itself():
    done, seconds = _run("distributed.abort_on_exception()", "raise RuntimeError('rank one failed')")
    assert done.returncode != 0
    assert "RuntimeError: rank one failed" in done.stderr
    assert "fnet.distributed: uncaught RuntimeError on rank 1 of 2; aborting every rank" in done.stderr
    assert _NAMED not in done.stderr  # the watcher leaves it to the rank, and blames nobody else
    assert "finished" not in done.stdout
    assert seconds < 30


# the killed rank first stops the job's watcher (rank 0 started it), which runs again only after
# mpiexec has ended every rank: the rank it names cannot come from which process woke first
STOP_THE_WATCHER = """
for pid in watchers_of(leader):
    os.kill(pid, signal.SIGSTOP)
    subprocess.Popen([f"sleep 3; kill -CONT {pid}"], shell=True, start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
"""

KILLED = """
import os, signal, subprocess, sys, numpy
from fnet import distributed


def watchers_of(parent):
    # the watcher processes that ``parent`` started (other jobs' watchers are left alone)
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{{pid}}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{{pid}}/cmdline", "rb") as f:
                args = f.read().split(bytes(1))
        except OSError:
            continue
        if ppid == parent and any(arg.endswith(b"_watcher.py") for arg in args):
            found.append(int(pid))
    return found


comm = distributed.Communicator()
leader = comm.bcast_obj(os.getpid())  # rank 0, the first rank of the machine
if comm.rank == 0:
    print("watchers", *watchers_of(leader), flush=True)
comm.allreduce({{"x": numpy.ones(3)}})
if comm.rank == {victim}:
    {stop}
    os.kill(os.getpid(), signal.SIGKILL)
comm.allreduce({{"x": numpy.ones(3)}})  # the others wait here for the killed rank
print("rank", comm.rank, "finished", flush=True)
"""


def _killed(n: int, victim: int, *, stop_the_watcher: bool = False, **env):
    start = time.monotonic()
    stop = STOP_THE_WATCHER.replace("\n", "\n    ") if stop_the_watcher else "pass"
    program = KILLED.format(victim=victim, stop=stop)
    done = _mpi.launch(n, ["-c", program], timeout=60, env=_mpi.environment(**env))
    assert done.returncode != 0
    assert "finished" not in done.stdout
    assert time.monotonic() - start < 30
    return done.stdout + done.stderr


@pytest.mark.mpi
@pytest.mark.parametrize(("n", "victim"), [(2, 1), (3, 0), (3, 2)])
def test_a_rank_killed_with_sigkill_ends_the_job_naming_the_rank(n, victim):
    said = _killed(n, victim)
    assert "Killed (signal 9)" in said  # mpiexec's own report, which names a process id
    assert said.count(_NAMED) == 1, said  # the ranks that mpiexec then kills are not blamed
    assert f"fnet.distributed: rank {victim} of {n} (pid " in said


@pytest.mark.mpi
@pytest.mark.parametrize("victim", [0, 1, 2])
def test_the_rank_named_is_the_first_to_end_however_late_the_watcher_runs(victim):
    said = _killed(3, victim, stop_the_watcher=True)
    assert said.count(_NAMED) == 1, said
    assert f"fnet.distributed: rank {victim} of 3 (pid " in said


@pytest.mark.mpi
def test_a_rank_that_calls_abort_is_named_by_mpi_and_nobody_is_blamed():
    program = KILLED.format(victim=1, stop="comm.abort(3)")
    done = _mpi.launch(3, ["-c", program], timeout=60)
    # mpiexec ends with the aborting rank's code. MPICH's own line ("MPI_Abort(MPI_COMM_WORLD, 3)
    # - process 1") is not asserted: its launcher drops it in about a third of the runs, with or
    # without the watcher (measured 2026-11-26: 5 of 12, and 3 of 12 with FNET_DISTRIBUTED_WATCHER=0)
    assert done.returncode == 3, done.stdout + done.stderr
    assert _NAMED not in done.stdout + done.stderr


@pytest.mark.mpi
def test_the_watcher_can_be_turned_off():
    said = _killed(2, 1, FNET_DISTRIBUTED_WATCHER="0")
    assert "Killed (signal 9)" in said
    assert _NAMED not in said


@pytest.mark.mpi
def test_a_job_that_finishes_says_nothing_and_leaves_no_watcher():
    program = KILLED.format(victim=-1, stop="pass")
    done = _mpi.launch(2, ["-c", program], timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("finished") == 2
    assert _NAMED not in done.stderr
    (watcher,) = (line.split()[1:] for line in done.stdout.splitlines() if line.startswith("watchers"))
    assert len(watcher) == 1  # one per machine
    # mpiexec has returned, and the watcher, which held its stream, has ended with the job
    assert (
        not os.path.exists(f"/proc/{watcher[0]}/cmdline")
        or b"_watcher.py" not in open(f"/proc/{watcher[0]}/cmdline", "rb").read()
    )


@pytest.mark.mpi
def test_the_launcher_reports_the_rank_where_a_check_failed(tmp_path):
    checks = tmp_path / "checks_demo.py"
    checks.write_text(
        "def check_passes(comm):\n    pass\n\n\n"
        "def check_fails_on_rank_one(comm):\n    assert comm.rank != 1, 'rank one says no'\n"
    )
    results = _mpi.run_checks(str(checks), 2)
    assert results["check_passes"] == [None, None]
    rank0, rank1 = results["check_fails_on_rank_one"]
    assert rank0 is None and "AssertionError: rank one says no" in rank1
    with pytest.raises(AssertionError, match="rank 1:"):
        _mpi.assert_passed(results, "check_fails_on_rank_one")


@pytest.mark.mpi
def test_chainermn_global_except_hook_aborts_when_the_environment_asks():
    program = (
        "import fnet.compat.chainermn as chainermn\n"
        "comm = chainermn.create_communicator('naive')\n"
        "if comm.rank == 1:\n"
        "    raise ValueError('rank one failed')\n"
        "comm.bcast_obj(None)\n"
    )
    start = time.monotonic()
    env = _mpi.environment(CHAINERMN_FORCE_ABORT_ON_EXCEPTION="1")
    done = _mpi.launch(2, ["-c", program], timeout=60, env=env)
    assert done.returncode != 0
    assert "uncaught ValueError on rank 1 of 2; aborting every rank" in done.stderr
    assert time.monotonic() - start < 30
