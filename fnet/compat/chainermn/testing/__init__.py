"""``chainermn.testing``: the device helper of ChainerMN's tests."""

from .device import get_device

__all__ = ["get_device"]
