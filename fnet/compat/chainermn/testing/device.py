"""``get_device``: a device object from a GPU number (or the CPU), as ChainerMN's tests ask."""

from __future__ import annotations

from ...backend import get_device as _get_device

__all__ = ["get_device"]


def get_device(device_id=None, use_chainerx=False):
    """``chainer.get_device`` of GPU ``device_id`` (CuPy, or ChainerX's ``cuda``), or of the CPU
    when it is None (NumPy, or ChainerX's ``native``)."""
    if device_id is None:
        spec = "native:0" if use_chainerx else "@numpy"
    else:
        spec = f"cuda:{device_id}" if use_chainerx else f"@cupy:{device_id}"
    return _get_device(spec)
