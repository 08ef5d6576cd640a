"""``PureNcclCommunicator``: ChainerMN's all-NCCL communicator (needs CuPy with NCCL)."""

from ._nccl_required import NcclRequired

__all__ = ["PureNcclCommunicator"]


class PureNcclCommunicator(NcclRequired):
    """ChainerMN's ``pure_nccl`` communicator: not available without CuPy's NCCL."""
