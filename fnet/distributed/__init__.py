"""Training on several processes over MPI (mpi4py): communicators, collectives, data-parallel steps.

>>> from fnet import distributed  # doctest: +SKIP
>>> comm = distributed.Communicator()  # MPI.COMM_WORLD; run under mpiexec -n N  # doctest: +SKIP
>>> params = comm.bcast(params)  # every rank starts from rank 0's parameters  # doctest: +SKIP
>>> step = distributed.make_train_step(loss_fn, optim.Adam(), comm)  # doctest: +SKIP

The modules: ``communicator`` (``Communicator``: ranks and collectives over pytrees),
``packing`` (the packed allreduce), ``functions`` (differentiable collectives for model
parallelism, as ``distributed.functions``), ``normalization`` (batch normalization over
every rank's batch), ``data`` (datasets split between ranks),
``train_step`` (data-parallel training), ``checkpoint`` (saved by one rank, loaded by
all) and ``failure`` (one rank's error ends the job). ``register_message_type`` lets a type of
a layer above travel in the ``*_obj`` messages, as plain values.
mpi4py is imported when the first communicator is made.
"""

from . import checkpoint, communicator, data, failure, functions, normalization, packing, train_step
from ._codec import register_message_type
from .communicator import *  # noqa: F403
from .data import *  # noqa: F403
from .failure import *  # noqa: F403
from .train_step import *  # noqa: F403

__all__ = [
    "checkpoint",
    "packing",
    "functions",
    "normalization",
    "register_message_type",
    *communicator.__all__,
    *data.__all__,
    *failure.__all__,
    *train_step.__all__,
]
