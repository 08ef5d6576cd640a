"""``chainerx`` as a Chainer build without ChainerX shows it: ``is_available()`` is False.

Chainer's examples ``import chainerx`` and test ``chainerx.is_available()`` before choosing a
device; ``install_alias()`` makes that import find this module. fnet has no ChainerX. As in
such a build, ``ndarray`` is a class for ``isinstance`` tests that no array belongs to.
"""

__all__ = ["is_available", "ndarray"]


def is_available() -> bool:
    """Whether ChainerX can be used: never, in fnet."""
    return False


class ndarray:  # noqa: N801 - ChainerX's name
    """ChainerX's array type, for ``isinstance`` tests only: it cannot be made."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "chainerx.ndarray: chainerx is not available.\n"
            "  hint: fnet has no ChainerX; use NumPy or CuPy arrays"
        )
