"""``chainer.backends``: the CuPy (``cuda``) and iDeep (``intel64``) backend modules."""

from . import cuda, intel64

__all__ = ["cuda", "intel64"]
