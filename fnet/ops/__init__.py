"""Array operations with NumPy's names and conventions, differentiable through the tape.

Each works on NumPy or CuPy arrays, Python scalars and traced values alike; differentiable ones
have VJPs written in these same operations, so gradients of any order come free.
"""

from . import _operators
from .broadcast import *  # noqa: F403
from .broadcast import __all__ as _broadcast_all
from .compare import *  # noqa: F403
from .compare import __all__ as _compare_all
from .decompositions import *  # noqa: F403
from .decompositions import __all__ as _decompositions_all
from .elementwise import *  # noqa: F403
from .elementwise import __all__ as _elementwise_all
from .indexing import *  # noqa: F403
from .indexing import __all__ as _indexing_all
from .linalg import *  # noqa: F403
from .linalg import __all__ as _linalg_all
from .reduction import *  # noqa: F403
from .reduction import __all__ as _reduction_all
from .shape import *  # noqa: F403
from .shape import __all__ as _shape_all

__all__ = [
    *_broadcast_all,
    *_compare_all,
    *_decompositions_all,
    *_elementwise_all,
    *_indexing_all,
    *_linalg_all,
    *_reduction_all,
    *_shape_all,
]

_operators.install()
