"""``chainerx`` as a Chainer build without ChainerX shows it: ``is_available()`` is False.

Chainer's examples ``import chainerx`` and test ``chainerx.is_available()`` before choosing a
device; ``install_alias()`` makes that import find this module. fnet has no ChainerX.
"""

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether ChainerX can be used: never, in fnet."""
    return False
