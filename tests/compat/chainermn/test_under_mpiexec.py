"""fnet.compat.chainermn under mpiexec (the checks are in checks_chainermn.py)."""

import os

import pytest

from tests import _mpi


@pytest.mark.mpi
@pytest.mark.parametrize(
    ("path", "n", "name"), _mpi.cases(os.path.dirname(__file__), {"checks_chainermn.py": 2})
)
def test_check_passes_on_every_rank(path, n, name):
    _mpi.assert_passed(_mpi.cached_checks(path, n), name)
