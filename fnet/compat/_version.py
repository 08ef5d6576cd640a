"""``chainer._version``: the Chainer release whose documented API fnet.compat follows."""

__all__ = ["__version__"]

__version__ = "7.8.1"
