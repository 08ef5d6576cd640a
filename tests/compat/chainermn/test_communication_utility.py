"""chainermn.communicators._communication_utility imports mpi4py.MPI, as ChainerMN's does."""

import subprocess
import sys

import pytest

from tests import _mpi


@pytest.mark.mpi
def test_importing_it_makes_mpi4py_mpi_available_after_a_bare_import():
    _mpi.mpiexec()  # skips, saying why, without the mpi extra
    program = (
        "import mpi4py\n"
        "from fnet.compat.chainermn.communicators._communication_utility import INT_MAX\n"
        "print(mpi4py.MPI.COMM_WORLD.size, INT_MAX)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, env=_mpi.environment()
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "2147483647"]
