"""The lift: a pure function of ``fnet.functions`` made into a ``chainer.functions`` function.

``lift(pure)`` unwraps Variables, fills in what Chainer reads from global state, runs ``pure``
and wraps the result; ``LIFTED`` holds the lift of every pure function, and ``NAMESPACE`` what
``chainer.functions`` shows of them (see the package's text).
"""

from __future__ import annotations

import functools
import inspect
import sys

import numpy

from ... import backend
from ... import functions as _pure
from ... import ops as _ops
from ...autodiff import Tracer, unbox_all
from ...errors import InvalidInputError
from .. import configuration
from .._chx import find, present, to_data
from .._migration import keyword_error
from .._random import next_key
from ..function_hooks import observe as _observe
from ..function_hooks import observing as _observing
from ..utils import type_check
from ..utils.sparse import CooMatrix
from ..variable import Variable

__all__ = ["lift", "unwrap", "wrap", "run_pure", "LIFTED", "NAMESPACE"]

_PACKAGE = __name__.rpartition(".")[0]  # the lifts are ``chainer.functions``' functions


def unwrap(value):
    """``value`` with every Variable replaced by its traced value (or array), and Chainer-layer
    COO matrices by the pure ones."""
    if isinstance(value, Variable):
        return value._data
    if type(value) in (list, tuple):
        return type(value)(unwrap(v) for v in value)
    if type(value) is CooMatrix:
        return value.pure
    return value


def wrap(value):
    """``value`` with every array and traced value made a Variable (inside tuples and lists)."""
    t = type(value)
    if t is Tracer or t is numpy.ndarray or isinstance(value, numpy.generic) or backend.is_array(value):
        return Variable._of(value)
    if t is tuple or t is list:
        return t(wrap(v) for v in value)
    if t is _pure.CooMatrix:
        return CooMatrix.of(value)
    return value


def run_pure(pure, args, kwargs):
    """``pure`` on unwrapped arguments, its input errors raised as Chainer's ``InvalidType`` and
    an argument of Chainer v1 (``use_cudnn=``...) with its migration hint."""
    try:
        return pure(*args, **kwargs)
    except InvalidInputError as error:
        raise _chainer_error(error) from error
    except TypeError:
        parameters = inspect.signature(pure).parameters
        better = keyword_error("chainer.functions", pure.__name__, [k for k in kwargs if k not in parameters])
        if better is None:
            raise
        raise better from None


# The input errors for which Chainer raises another type than InvalidType, by the start of
# fnet's message: Chainer's type, and whether only in debug mode (where Chainer asserts).
_CHAINER_RAISES = {
    "hinge: expected norm ": (NotImplementedError, False),
    "deconvolution_nd: the output size ": (AssertionError, False),
    "bias: expected y.shape == ": (AssertionError, True),
    "scale: expected y.shape == ": (AssertionError, True),
}


def _chainer_error(error: InvalidInputError) -> Exception:
    """The exception Chainer raises for fnet's input error ``error`` (its message kept)."""
    text = str(error)
    for start, (kind, debug_only) in _CHAINER_RAISES.items():
        if text.startswith(start) and (configuration.config.debug or not debug_only):
            return kind(text)
    return type_check.InvalidType.from_error(error)


_CONTAINERS = (list, tuple, CooMatrix)  # arguments that may hold Variables

# Functions whose results after the first are arrays in Chainer (argmax_crf1d's best path).
_ARRAYS_AFTER_THE_FIRST = {"argmax_crf1d"}


def lift(pure):
    """The Chainer-layer version of the pure function ``pure``.

    A call makes the node of the Chainer class bound to it (:meth:`lifted.bind`; ``ReLU`` for
    ``relu``), which becomes the ``creator`` of the outputs; the class's ``apply`` runs the same
    code (``lifted.run``) with the node it is. For one traced output the node is made only when
    first asked for: the output's record notes its class and the call's arguments. While a
    function hook is active, the node has hooks
    or debug mode is on, the call goes through ``function_hooks.observe``, which shows the node to
    the hooks (the pure function's name where no class is bound) and checks the results for NaN
    in debug mode; otherwise that costs one test.
    """
    parameters = inspect.signature(pure).parameters
    keyword_only = {name for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY}
    reads_train = "train" in keyword_only
    takes_key = "key" in keyword_only
    returns_extras = [name for name in parameters if name.startswith("return_")]
    always_extras = pure.__name__ in _ARRAYS_AFTER_THE_FIRST
    label = pure.__name__
    operands = _MIXED_DTYPES.get(label)
    unchecked_operands = _MIXED_DTYPES_UNCHECKED.get(label)
    run = functools.partial(run_pure, pure)
    made = None  # the bound class's ``made``
    keeps = False  # whether its nodes keep results of the call (Dropout's mask)

    def call(node, args, kwargs):
        device = find(args) or (find(kwargs.values()) if kwargs else None)
        if device is None:
            return compute(node, args, kwargs)
        return present(compute(node, to_data(args), to_data(kwargs)), device)  # see ``_chx``

    def compute(node, args, kwargs):
        args = [
            a._data if isinstance(a, Variable) else unwrap(a) if type(a) in _CONTAINERS else a for a in args
        ]
        if kwargs:
            kwargs = {k: unwrap(v) for k, v in kwargs.items()}
        if reads_train and "train" not in kwargs:
            kwargs["train"] = configuration.config.train
        if takes_key and "key" not in kwargs and kwargs.get("train", True):
            kwargs["key"] = next_key()
        if operands is not None:
            args, kwargs = _common_dtype(label, operands, args, kwargs)
        elif unchecked_operands is not None and not configuration.config.type_check:
            args, kwargs = _common_dtype(label, unchecked_operands, args, kwargs)
        observed = _observing()
        if node is None and made is not None and (observed or keeps):
            node = made(None, pure)  # hooks see it, or it keeps results
        if node is None and not observed:  # the common case, kept short
            out = run_pure(pure, args, kwargs)
            if type(out) is Tracer:  # one traced output: its node is made when first asked for
                if made is not None:
                    out.record.note = (made, None, pure, args, kwargs)
                return wrap(out)
            return finish(None if made is None else made(None, pure), args, kwargs, out)
        kept = _keep_results(node, kwargs) if node is not None and node._keeps else None
        if observed or node._local_hooks:
            out = _observe(label if node is None else node, run, args, kwargs)
        else:
            out = run_pure(pure, args, kwargs)
        if kept is not None:
            out = _store_results(node, kept, returns_extras, kwargs, out)
        return finish(node, args, kwargs, out)

    def finish(node, args, kwargs, out):
        """``out`` as Variables (what ``return_*`` flags add stays arrays), ``node`` their creator."""
        extras = always_extras or (returns_extras and any(kwargs.get(k) for k in returns_extras))
        if node is not None and node._attach(args, kwargs, out[0] if extras else out):
            node = None
        result = (wrap(out[0]), *(unbox_all(e) for e in out[1:])) if extras else wrap(out)
        if node is not None and configuration.config.enable_backprop:
            node._attach_untraced(args, kwargs, result[0] if extras else result)
        return result

    @functools.wraps(pure)
    def lifted(*args, **kwargs):
        return call(None, args, kwargs)

    def bind(cls) -> None:
        nonlocal made, keeps
        made, keeps = cls.made, bool(cls._keeps)

    lifted.__module__ = _PACKAGE
    lifted.__doc__ = _lifted_doc(pure)
    lifted.run = call
    lifted.bind = bind
    return lifted


def _keep_results(node, kwargs: dict) -> list:
    """Ask for the results the node keeps as attributes (``return_mask``...); the flags the caller
    did not set."""
    added = []
    for name in node._keeps:
        flag = f"return_{name}"
        if not kwargs.get(flag):
            kwargs[flag] = True
            added.append(flag)
    return added


def _store_results(node, added: list, returns_extras: list, kwargs: dict, out):
    """Set the node's kept attributes from ``out``; ``out`` without the results the caller did
    not ask for."""
    asked = [flag for flag in returns_extras if kwargs.get(flag)]
    extras = dict(zip(asked, out[1:]))
    for name in node._keeps:
        value = extras[f"return_{name}"]
        setattr(node, name, None if value is None else unbox_all(value))
    for flag in added:
        del kwargs[flag]
    left = [extras[flag] for flag in asked if flag not in added]
    return (out[0], *left) if left else out[0]


# Chainer's connection functions take weights of another float dtype and compute in x's; its
# products follow NumPy's promotion. fnet's pure functions refuse mixed float dtypes, so the
# Chainer layer casts first (a recorded cast: each gradient comes back in its operand's dtype).
# name -> the operands cast, by position and name; the first is x (or None: promote them all).
_CONNECTIONS = ("linear", "convolution_1d", "convolution_2d", "convolution_3d", "convolution_nd")
_CONNECTIONS += ("deconvolution_1d", "deconvolution_2d", "deconvolution_3d", "deconvolution_nd")
_CONNECTIONS += ("depthwise_convolution_2d", "dilated_convolution_2d", "local_convolution_2d")
_CONNECTIONS += ("simplified_dropconnect",)
_MIXED_DTYPES = {name: ("x", ((1, "W"), (2, "b"))) for name in _CONNECTIONS}
_MIXED_DTYPES.update(
    {name: (None, ((0, "a"), (1, "b"))) for name in ("matmul", "batch_matmul", "tensordot", "sparse_matmul")}
)
# A dropout mask kept from one call (Chainer's Dropout node applied again, as gradient checks do
# in float64) multiplies x in x's dtype. Keyword-only: read from kwargs (no position).
_MIXED_DTYPES["dropout"] = ("x", ((sys.maxsize, "mask"),))
# Chainer's type check asks for one dtype here; with type checking off (as in its numerical
# gradient checks, which move x to float64) its arithmetic promotes.
_MIXED_DTYPES_UNCHECKED = {
    "fixed_decorrelated_batch_normalization": (None, ((0, "x"), (1, "mean"), (2, "projection"))),
    "fixed_batch_normalization": (None, ((1, "gamma"), (2, "beta"), (3, "mean"), (4, "var"))),
}


def _common_dtype(label: str, operands, args: list, kwargs: dict):
    """``args`` and ``kwargs`` with the float operands of ``label`` in one dtype (see above)."""
    first, others = operands
    slots = ([(0, first)] if first else []) + list(others)
    values = [args[i] if i < len(args) else kwargs.get(name) for i, name in slots]
    dtypes = [getattr(unbox_all(v.data if type(v) is _pure.CooMatrix else v), "dtype", None) for v in values]
    floats = {d for d in dtypes if d is not None and d.kind == "f"}
    if len(floats) < 2:
        return args, kwargs
    target = dtypes[0] if first else numpy.result_type(*floats)
    if target is None or target.kind != "f":
        return args, kwargs
    args, kwargs = list(args), dict(kwargs)
    for (i, name), value, dtype in zip(slots, values, dtypes):
        if dtype is None or dtype.kind != "f" or dtype == target:
            continue
        if type(value) is _pure.CooMatrix:  # its data, recorded as given
            cast = _pure.CooMatrix(
                _ops.astype(value.data, target),
                value.row,
                value.col,
                value.shape,
                value.order,
                requires_grad=True,
            )
        else:
            cast = _ops.astype(value, target)
        if i < len(args):
            args[i] = cast
        else:
            kwargs[name] = cast
    return args, kwargs


def _lifted_doc(pure) -> str:
    """The pure function's summary, and what the lift adds (its examples stay with it)."""
    summary = (pure.__doc__ or "").strip().split("\n\n")[0]
    return (
        f"{summary}\n\nThe Chainer layer's form of ``fnet.functions.{pure.__name__}``: Variables or "
        "arrays in, Variables out (see its documentation for the details and examples)."
    )


def _in_place_statistics(lifted, names: tuple[str, ...]):
    """A lifted normalization that returns new running statistics, made to write them into the
    arrays given (by keyword or position), in place, as Chainer's function does, and return only
    the output. Nothing is updated where the call asks for no update (``update_statistics``)."""
    pure = lifted.__wrapped__
    signature = inspect.signature(pure)

    @functools.wraps(pure)
    def with_statistics(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:  # the lift explains the wrong arguments
            return lifted(*args, **kwargs)
        given = [bound.arguments.get(n) for n in names]
        if any(g is None for g in given):
            return lifted(*args, **kwargs)
        out = lifted(*args, **kwargs)
        if not isinstance(out, tuple):  # no statistics to update (batch_renormalization's default)
            return out
        y, updated = out
        for target, new in zip(given, updated):
            target = target.array if isinstance(target, Variable) else target
            target[...] = new.array
        return y

    with_statistics.__module__ = _PACKAGE
    with_statistics.__doc__ = lifted.__doc__
    return with_statistics


_STATISTICS = {
    "batch_normalization": ("running_mean", "running_var"),
    "batch_renormalization": ("running_mean", "running_var"),
    "decorrelated_batch_normalization": ("running_mean", "running_projection"),
}

LIFTED: dict = {}  # name -> the lift of the pure function (node classes bind to these)
NAMESPACE: dict = {}  # what ``chainer.functions`` holds of the pure functions, by name
for _name in _pure.__all__:
    if _name in ("CooMatrix", "to_coo"):  # the Chainer layer's own (data as a Variable)
        continue
    _f = getattr(_pure, _name)
    if not callable(_f) or isinstance(_f, type):
        NAMESPACE[_name] = _f
        continue
    LIFTED[_name] = lift(_f)
    if _name in _STATISTICS:
        NAMESPACE[_name] = _in_place_statistics(LIFTED[_name], _STATISTICS[_name])
    else:
        NAMESPACE[_name] = LIFTED[_name]
del _name, _f
