"""fnet.distributed under mpiexec: each checks_*.py file runs in one launch on its number of ranks.

A check is a function ``check_*(comm)`` that every rank runs; a test here passes when it passed
on every rank (``tests/_mpi.py``).
"""

import functools
import os

import pytest

from tests import _mpi

HERE = os.path.dirname(__file__)
RANKS = {  # checks file -> the number of ranks it runs on
    "checks_communicator.py": 2,
    "checks_functions.py": 2,
    "checks_data.py": 3,  # shards of uneven length
    "checks_train_step.py": 2,
}
CASES = [(file, name) for file in RANKS for name in _mpi.check_names(os.path.join(HERE, file))]


@functools.cache
def _results(file: str) -> dict:
    return _mpi.run_checks(os.path.join(HERE, file), RANKS[file])


@pytest.mark.mpi
@pytest.mark.parametrize(("file", "name"), CASES, ids=[f"{f[7:-3]}-{n[6:]}" for f, n in CASES])
def test_check_passes_on_every_rank(file, name):
    _mpi.assert_passed(_results(file), name)
