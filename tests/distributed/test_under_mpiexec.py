"""fnet.distributed under mpiexec: each checks_*.py file runs in one launch on its number of ranks.

A check is a function ``check_*(comm)`` that every rank runs; a test here passes when it passed
on every rank (``tests/_mpi.py``).
"""

import os

import pytest

from tests import _mpi

RANKS = {  # checks file -> the number of ranks it runs on
    "checks_communicator.py": 2,
    "checks_functions.py": 2,
    "checks_data.py": 3,  # shards of uneven length
    "checks_train_step.py": 2,
    "checks_checkpoint.py": 2,
}


@pytest.mark.mpi
@pytest.mark.parametrize(("path", "n", "name"), _mpi.cases(os.path.dirname(__file__), RANKS))
def test_check_passes_on_every_rank(path, n, name):
    _mpi.assert_passed(_mpi.cached_checks(path, n), name)
