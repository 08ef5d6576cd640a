"""``chainer.functions``: every function of ``fnet.functions``, taking and returning Variables.

Each is a lift of the pure function of the same name: Variables in the arguments (also inside
lists and tuples) are replaced by their traced values, the pure function runs, and arrays in
the result come back as Variables. What Chainer reads from global state is read here:
``config.train`` for noise and recurrent functions (where the pure function takes ``train``
as a keyword), and a random key from NumPy's global random state (``numpy.random.seed``
repeats it). Functions that update running statistics in place in Chainer do so here too.
fnet's typed input errors come out as Chainer's ``InvalidType``. What a ``return_*`` flag adds
to the result (a dropout mask, max pooling's indexes) stays an array, as in Chainer.

The package also holds Chainer's module tree (``chainer.functions.activation.relu``...) and the
FunctionNode class of each built-in function (``ReLU``, ``LinearFunction``), made from one table
in ``_tree.py``: a call's outputs have a node of that class as their ``creator``.
"""

from __future__ import annotations

import functools

import numpy

from ... import backend
from ... import functions as _pure
from ...autodiff import unbox_all
from .. import configuration
from ..backends.cuda import DummyDevice
from ..utils.sparse import CooMatrix, to_coo  # noqa: F401  (to_coo: in __all__, the Chainer layer's)
from ..variable import Variable, as_variable
from ._lift import LIFTED as _LIFTED
from ._lift import NAMESPACE as _NAMESPACE
from ._lift import lift, unwrap, wrap  # noqa: F401  (the Chainer layer's links lift with them)
from ._lift import run_pure as _run  # noqa: F401  (the operators run with it)

__all__ = list(_pure.__all__) + ["forget"]

globals().update(_NAMESPACE)


def _given_back_unchanged(name: str, unchanged):
    """The lift of ``name``, giving ``x`` itself back (as a Variable) when ``unchanged(x, *args)``
    says the call would not change it, as Chainer's function does (no node is made then)."""
    lifted = _LIFTED[name]

    @functools.wraps(getattr(_pure, name), assigned=())  # its signature is the pure function's
    def call(x, *args, **kwargs):
        if unchanged(x, *args, **kwargs):
            return as_variable(x)
        return lifted(x, *args, **kwargs)

    call.__module__, call.__name__, call.__qualname__, call.__doc__ = __name__, name, name, lifted.__doc__
    return call


def _shape_of(x):
    return getattr(unbox_all(unwrap(x)), "shape", None)


def _as_shape(shape) -> tuple:
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


reshape = _given_back_unchanged("reshape", lambda x, shape: _shape_of(x) == _as_shape(shape))
broadcast_to = _given_back_unchanged("broadcast_to", lambda x, shape: _shape_of(x) == _as_shape(shape))
# a cast to x's own dtype makes a node of its own unless no graph is being built
cast = _given_back_unchanged(
    "cast",
    lambda x, typ: (
        not configuration.config.enable_backprop
        and getattr(unbox_all(unwrap(x)), "dtype", None) == numpy.dtype(typ)
    ),
)


_lifted_copy = _LIFTED["copy"]


@functools.wraps(_pure.copy, assigned=())  # its signature is the pure function's
def copy(x, dst):
    """``x`` copied onto the device ``dst``; Chainer's old ``cuda.DummyDevice`` means the CPU.

    See ``fnet.functions.copy``."""
    return _lifted_copy(x, "@numpy" if dst is DummyDevice else dst)


_lifted_zoneout = _LIFTED["zoneout"]


@functools.wraps(_pure.zoneout, assigned=())  # its signature is the pure function's
def zoneout(h, x, ratio: float = 0.5, **kwargs):
    """``h`` where a drawn flag says so, else ``x``; in training the flag is drawn as Chainer
    draws it, ``xp.random.rand(*x.shape) >= ratio`` (NumPy's global random state, looked up at
    each call), unless ``flag_x`` is given.

    See ``fnet.functions.zoneout``."""
    if kwargs.get("train", configuration.config.train) and kwargs.get("flag_x") is None:
        xp = backend.xp(unbox_all(unwrap(x)))
        kwargs = {**kwargs, "flag_x": xp.random.rand(*x.shape) >= ratio, "key": None}
    return _lifted_zoneout(h, x, ratio, **kwargs)


# -- Variable's methods that are Chainer functions ------------------------------------------------
def _transposed(self) -> Variable:
    """The transposed variable."""
    return transpose(self)  # noqa: F821  (bound from the namespace above)


def _reshape_method(self, *shape) -> Variable:
    """The variable in another shape (``v.reshape(2, 3)`` or ``v.reshape((2, 3))``)."""
    return reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)


def _transpose_method(self, *axes) -> Variable:
    """The variable with its axes permuted (reversed when none are given)."""
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
        axes = axes[0]
    return transpose(self, axes or None)  # noqa: F821  (bound from the namespace above)


def _mean_method(self, axis=None, *, weights=None, keepdims: bool = False) -> Variable:
    """The mean over ``axis``, weighted by ``weights`` when given."""
    return average(self, axis=axis, weights=weights, keepdims=keepdims)  # noqa: F821


Variable.T = property(_transposed)
Variable.reshape = _reshape_method
Variable.transpose = _transpose_method
Variable.mean = _mean_method


from .. import _modules  # noqa: E402
from . import _tree  # noqa: E402  (Chainer's classes and module tree, made from the lifts above)
from ._forget import forget  # noqa: E402  (a node of its own, not a lift)

_tree._declare(__name__, globals())
_modules.adopt(globals())
