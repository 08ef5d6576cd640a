"""``chainer.print_runtime_info``: the versions fnet runs with, in Chainer's format."""

from __future__ import annotations

import platform
import sys

import numpy

from .. import __version__ as _fnet_version
from ._version import __version__ as _chainer_api
from .backends import cuda

__all__ = ["print_runtime_info"]  # chainer._runtime_info also reads _get_runtime_info


def _describe() -> str:
    lines = [
        f"Platform: {platform.platform()}",
        f"Chainer: fnet {_fnet_version} (Chainer {_chainer_api} API)",
        "ChainerX: Not Available",
        f"NumPy: {numpy.__version__}",
    ]
    if cuda.available:
        lines.append("CuPy:")
        lines.extend(f"  {line}" for line in str(cuda.cupyx.get_runtime_info()).splitlines())
    else:
        lines.append("CuPy: Not Available")
    lines.append("iDeep: Not Available")
    return "".join(line + "\n" for line in lines)


class _RuntimeInfo:
    """The versions, taken when made; ``str()`` gives the text ``print_runtime_info`` writes."""

    def __init__(self) -> None:
        self._text = _describe()

    def __str__(self) -> str:
        return self._text


def _get_runtime_info() -> _RuntimeInfo:
    """The versions fnet runs with now (Chainer's ``chainer._runtime_info._get_runtime_info``)."""
    return _RuntimeInfo()


def print_runtime_info(out=None) -> None:
    """Write the platform and the versions of fnet, NumPy and CuPy (with CUDA, cuDNN and NCCL)
    to ``out`` (``sys.stdout`` by default), one per line as Chainer does.

    >>> print_runtime_info()  # doctest: +ELLIPSIS
    Platform: ...
    Chainer: fnet ... (Chainer 7.8.1 API)
    ChainerX: Not Available
    NumPy: ...
    """
    out = sys.stdout if out is None else out
    out.write(str(_get_runtime_info()))
    if hasattr(out, "flush"):
        out.flush()
