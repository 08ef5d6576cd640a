"""Launch programs under the venv's mpiexec from pytest, each launch bounded by a timeout.

``run_checks(path, n)`` runs every ``check_*(comm)`` function of the file ``path`` on ``n``
ranks in one launch and returns, for each check, each rank's outcome (None when it passed,
the traceback otherwise): one MPI start serves a whole module of tests.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "_mpi_worker.py")


def mpiexec() -> str:
    """The mpiexec that the mpi extra installs beside this interpreter (the MPICH wheel's)."""
    pytest.importorskip("mpi4py", reason="the mpi extra is not installed: pip install 'fnet-chainer[mpi]'")
    path = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(path):
        pytest.skip(f"mpi4py is installed but no MPI runtime wheel put mpiexec at {path}")
    return path


def environment(**extra: str) -> dict:
    """The environment of a launched rank: this one, with the repository first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def launch(n: int, argv: list, *, timeout: float = 60, env: dict | None = None, cwd: str | None = None):
    """``mpiexec -n n python *argv``; the completed process (text output), killed after ``timeout`` s."""
    return subprocess.run(
        [mpiexec(), "-n", str(n), sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment() if env is None else env,
        cwd=cwd or ROOT,
    )


def run_checks(path: str, n: int, *, timeout: float = 90) -> dict:
    """``{check name: [outcome of rank 0, ..., rank n-1]}`` for the ``check_*`` functions of ``path``."""
    with tempfile.TemporaryDirectory() as out:
        done = launch(n, [WORKER, path, out], timeout=timeout)
        results = {}
        for rank in range(n):
            report = os.path.join(out, f"rank{rank}.json")
            if not os.path.exists(report):
                raise AssertionError(
                    f"rank {rank} wrote no report (exit {done.returncode}):\n{done.stderr[-4000:]}"
                )
            with open(report) as f:
                for name, outcome in json.load(f).items():
                    results.setdefault(name, [None] * n)[rank] = outcome
        return results


def check_names(path: str) -> list:
    """The ``check_*`` functions defined in the file ``path``, in the order they appear."""
    with open(path) as f:
        return [line[4:].split("(")[0] for line in f if line.startswith("def check_")]


def assert_passed(results: dict, name: str) -> None:
    failures = [f"rank {r}:\n{tb}" for r, tb in enumerate(results[name]) if tb is not None]
    assert not failures, "\n".join(failures)


@functools.cache
def cached_checks(path: str, n: int) -> dict:
    """``run_checks(path, n)``, launched once per test session."""
    return run_checks(path, n)


def cases(folder: str, ranks: dict) -> list:
    """One ``pytest.param(path, n, name)`` per check of each file of ``ranks`` (file name ->
    number of ranks) in ``folder``; test them with ``assert_passed(cached_checks(path, n), name)``."""
    out = []
    for file, n in ranks.items():
        path = os.path.join(folder, file)
        out += [pytest.param(path, n, name, id=f"{file[7:-3]}-{name[6:]}") for name in check_names(path)]
    return out
