"""``chainerx`` as a Chainer build without ChainerX shows it: ``is_available()`` is False.

Chainer's examples ``import chainerx`` and test ``chainerx.is_available()`` before choosing a
device; ``install_alias()`` makes that import find this module. fnet has no ChainerX.
"""

__all__ = ["is_available", "ndarray"]


def is_available() -> bool:
    """Whether ChainerX can be used: never, in fnet."""
    return False


class ndarray:  # noqa: N801  (ChainerX's name)
    """ChainerX's array type, for ``isinstance`` checks only: no array is one, and making one fails
    (as in a Chainer built without ChainerX)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "chainerx.ndarray: ChainerX is not available in fnet\n"
            "  hint: use NumPy arrays (or CuPy arrays on a GPU); check chainerx.is_available() first"
        )
