"""fnet.distributed.Communicator on 2 ranks (the checks are in checks_communicator.py)."""

import os

import pytest

from tests import _mpi

CHECKS = os.path.join(os.path.dirname(__file__), "checks_communicator.py")


@pytest.fixture(scope="module")
def results():
    return _mpi.run_checks(CHECKS, 2)


@pytest.mark.mpi
@pytest.mark.parametrize("name", _mpi.check_names(CHECKS))
def test_communicator(results, name):
    _mpi.assert_passed(results, name)
