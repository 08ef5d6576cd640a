"""A rank that fails ends the job quickly (every launch bounded by a timeout), and the check
launcher reports a failure on the rank where it happened."""

import time

import pytest

from tests import _mpi

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
    assert "finished" not in done.stdout
    assert seconds < 30


@pytest.mark.mpi
def test_a_rank_killed_with_sigkill_ends_the_job():
    done, seconds = _run("", "os.kill(os.getpid(), signal.SIGKILL)")
    assert done.returncode != 0
    assert "finished" not in done.stdout
    assert "Killed (signal 9)" in done.stdout + done.stderr  # mpiexec's report of the killed rank
    assert seconds < 30


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
