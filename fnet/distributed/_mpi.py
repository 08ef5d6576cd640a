"""mpi4py, imported when a communicator is first made (importing it starts MPI)."""

from __future__ import annotations

import importlib

__all__ = ["load"]


def load():
    """The ``mpi4py.MPI`` module; an ``ImportError`` that says how to install it if it is absent."""
    try:
        return importlib.import_module("mpi4py.MPI")
    except ImportError as error:
        raise ImportError(
            "fnet.distributed: expected mpi4py (with an MPI library) to be installed, got "
            f"{error}\n  hint: pip install 'fnet-chainer[mpi]' (mpi4py and the MPICH wheel), and run "
            "the program under mpiexec -n N"
        ) from error
