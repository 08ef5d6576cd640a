"""``chainermn.nccl``: NCCL through CuPy, which fnet's communicators do not use.

As in ChainerMN on a machine without CuPy's NCCL, ``_available`` is False; the communicators
that need NCCL (``pure_nccl``, ``non_cuda_aware``) say so when made.
"""

__all__ = []

_available = False
