"""``chainer.gradient_check``: test backward passes against finite differences.

:func:`numerical_grad` differentiates a function of arrays by central differences, one element
at a time. :func:`check_backward` tests a function of Variables along one random direction:
the backprop gradients dotted with the direction must match the numerical derivative of
``delta -> f(x + delta * direction)`` at 0. :func:`check_double_backward` does the same for
the gradients themselves (the function ``x, gy -> grad(f)(x) * gy``). The direction is drawn
from NumPy's global random state, as Chainer does, so ``numpy.random.seed`` repeats a check.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy

from .. import backend
from ..errors import FnetError
from . import configuration
from . import functions as F
from ._chx import find, to_data
from .backend import from_chx
from .testing import array as _array
from .variable import Variable, as_array
from .variable import backward as _backward

__all__ = [
    "NondifferentiableError",
    "numerical_grad",
    "check_backward",
    "check_double_backward",
    "assert_allclose",
]


class NondifferentiableError(FnetError):
    """:func:`numerical_grad` was asked for a gradient at a point where the function has none."""


class _InvalidEps(ValueError, AssertionError):
    """A step ``eps`` that is not positive."""


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _props(arrays) -> str:
    """``shape:dtype`` of each array (or Variable), for messages."""
    return ", ".join("None" if a is None else f"{a.shape}:{a.dtype.name}" for a in arrays)


def assert_allclose(x, y, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True) -> None:
    """Deprecated (as in Chainer): ``chainer.testing.assert_allclose``, with a DeprecationWarning."""
    warnings.warn(
        "chainer.gradient_check.assert_allclose is deprecated. Use chainer.testing.assert_allclose instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    _array.assert_allclose(x, y, atol, rtol, verbose)


# -- numerical gradients ---------------------------------------------------------------------------
def _sample(f: Callable, xp, grad_outputs: tuple) -> list:
    """``f()``'s outputs as float64 copies, checked against ``grad_outputs``."""
    ys = f()
    if not isinstance(ys, (tuple, list)):
        raise TypeError(
            f"numerical_grad: f must return a tuple of arrays, got {type(ys).__name__}\n"
            "  hint: return (y,) for a single output"
        )
    if len(ys) != len(grad_outputs):
        raise ValueError(
            f"numerical_grad: f returned {len(ys)} outputs for {len(grad_outputs)} grad_outputs\n"
            "  hint: pass one output gradient (or None) per output of f"
        )
    outputs = [None if y is None else xp.array(as_array(y), dtype=numpy.float64) for y in ys]
    for i, (y, gy) in enumerate(zip(outputs, grad_outputs)):
        if y is not None and gy is not None and not numpy.isscalar(gy) and y.shape != gy.shape:
            raise ValueError(
                f"numerical_grad: output {i} has shape {y.shape}, but its grad_output has shape {gy.shape}"
            )
    return outputs


def _nondifferentiable(reason: str, point: dict, i_out: int, samples: list, more: dict | None = None):
    """The error for a non-differentiable point: where it is, and the outputs sampled around it."""
    details = {"i_in": point["i_in"], "i_out": i_out, **point, **(more or {})}
    lines = [f"Tried to compute the numeric gradient on a non-differentiable point ({reason}).", ""]
    lines += [f"{name}: {value}" for name, value in details.items()]
    labels = ("x-eps  ", "x-eps/2", "x      ", "x+eps/2", "x+eps  ")
    lines += [f"y[{label}]: {ys[i_out]}" for label, ys in zip(labels, samples)]
    return NondifferentiableError("\n".join(lines) + "\n")


def _check_differentiable(samples: list, point: dict, diff_atol: float, diff_rtol: float) -> None:
    """Raise NondifferentiableError when the five samples around ``point`` show a kink or a jump:
    outputs turning finite or infinite, or not following a quadratic within the tolerance."""
    outputs = [i for i, y in enumerate(samples[0]) if y is not None]
    all_finite = True
    for i in outputs:
        finite = [backend.to_cpu(backend.xp(ys[i]).isfinite(ys[i])) for ys in samples]
        if any((f != finite[0]).any() for f in finite[1:]):
            raise _nondifferentiable("the output changes finiteness", point, i, samples)
        all_finite = all_finite and all(f.all() for f in finite)
    if not all_finite:  # consistently infinite somewhere (like log for x < 0): no fit possible
        return
    for i in outputs:
        stack = numpy.stack([backend.to_cpu(ys[i]).ravel() for ys in samples])
        _, (residuals, *_) = numpy.polynomial.polynomial.polyfit(
            numpy.arange(len(samples)), stack, 2, full=True
        )
        fit_error = numpy.sqrt(residuals / len(samples)).reshape(samples[0][i].shape)
        high, low = stack.max(axis=0).reshape(fit_error.shape), stack.min(axis=0).reshape(fit_error.shape)
        tolerance = diff_atol + diff_rtol * (high - low)
        if ((tolerance < fit_error) & (high != low)).any():
            more = {"diff_rtol": diff_rtol, "diff_atol": diff_atol, "ymax": high, "ymin": low}
            more |= {"diff_atol + diff_rtol * (ymax-ymin)": tolerance, "fitting errors": fit_error}
            raise _nondifferentiable("the output is not smooth", point, i, samples, more)


def numerical_grad(
    f: Callable,
    inputs: Sequence,
    grad_outputs: Sequence,
    eps: float = 1e-3,
    detect_nondifferentiable: bool = False,
    diff_atol: float = 0,
    diff_rtol: float = 1e-2,
    center_outputs=None,
) -> list:
    """The gradients of ``sum(f()[i] * grad_outputs[i])`` with respect to ``inputs``, by finite
    differences.

    ``f`` takes no arguments and returns a tuple of arrays computed from the arrays ``inputs``,
    which are moved in place one element at a time by ``eps`` either way (central differences,
    error of order ``eps**2``). ``grad_outputs`` holds one array, scalar or None per output.
    With ``detect_nondifferentiable``, each element is sampled at five points: the estimate is
    of order ``eps**4``, and a :class:`NondifferentiableError` is raised where the outputs jump,
    change finiteness, or do not fit a quadratic within ``diff_atol + diff_rtol * (max - min)``.
    ``center_outputs`` is accepted for Chainer's signature; as in Chainer 7, the outputs at the
    centre are always computed again (in float64). Returns one gradient per input, of its dtype.

    >>> x = numpy.array([1.0, 2.0, 3.0])
    >>> numerical_grad(lambda: (x * x,), (x,), (numpy.ones(3),))[0]
    array([2., 4., 6.])
    """
    if eps <= 0:  # an AssertionError too, the type Chainer's ``assert eps > 0`` raises
        raise _InvalidEps(f"numerical_grad: eps must be positive, got {eps}\n  hint: e.g. eps=1e-3")
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(
            f"numerical_grad: inputs must be a tuple or list of arrays, got {type(inputs).__name__}"
        )
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if x.dtype.kind != "f":
            raise RuntimeError(
                "numerical_grad: the dtype of input arrays must be kind of float, "
                f"got {x.dtype} for inputs[{i}]\n"
                "  hint: integer inputs have no gradient; leave them out of inputs"
            )
    grad_outputs = tuple(
        None if g is None else numpy.float64(g) if numpy.isscalar(g) else g.astype(numpy.float64)
        for g in grad_outputs
    )
    arrays = [a for a in inputs + grad_outputs if a is not None and not numpy.isscalar(a)]
    if len({backend.xp(a) for a in arrays}) > 1:
        raise RuntimeError("numerical_grad: do not mix GPU and CPU arrays in inputs and grad_outputs")
    xp = backend.xp(*arrays)
    steps = (-eps, -eps / 2, 0.0, eps / 2, eps) if detect_nondifferentiable else (-eps, eps)
    grads = [xp.zeros(x.shape, numpy.float64) for x in inputs]
    with configuration.using_config("type_check", False):
        center = _sample(f, xp, grad_outputs) if detect_nondifferentiable else None
        for i_in, (x, gx) in enumerate(zip(inputs, grads)):
            for index in numpy.ndindex(x.shape):
                original = x[index].copy()
                samples = []
                for step in steps:
                    if step == 0.0:
                        samples.append(center)
                        continue
                    x[index] = float(original) + step
                    samples.append(_sample(f, xp, grad_outputs))
                    x[index] = original
                if detect_nondifferentiable and any(y is not None and y.size for y in center):
                    point = {"i_in": i_in, "x": x, "index on x": index, "eps": eps}
                    _check_differentiable(samples, point, diff_atol, diff_rtol)
                for i_out, gy in enumerate(grad_outputs):
                    if gy is None or samples[0][i_out] is None:
                        continue
                    ys = [s[i_out] for s in samples]
                    if detect_nondifferentiable:  # five points: (-y(2h) + 8 y(h) - 8 y(-h) + y(-2h)) / 12h
                        gx[index] += ((-ys[4] + 8 * ys[3] - 8 * ys[1] + ys[0]) * gy).sum() / (6 * eps)
                    else:
                        gx[index] += ((ys[1] - ys[0]) * gy).sum() / (2 * eps)
    return [g.astype(x.dtype, copy=False) for g, x in zip(grads, inputs)]


# -- checking backward -----------------------------------------------------------------------------
def _presenting(func: Callable, device) -> Callable:
    """``func`` given its Variables presenting ChainerX arrays on ``device``."""

    def on_chainerx(*variables):
        return func(*(v if v is None else v._present(device) for v in variables))

    return on_chainerx


def _call(func: Callable, args) -> tuple:
    """``func(*args)`` as a tuple, checked to hold Variables (or None)."""
    ys = _as_tuple(func(*args))
    for y in ys:
        if y is not None and not isinstance(y, Variable):
            raise TypeError(
                "check_backward: func must return a Variable or a tuple of Variables, "
                f"got {type(y).__name__}\n"
                "  hint: build the output with chainer.functions (or wrap arrays with chainer.Variable)"
            )
    return ys


def _clear_grads(variables) -> None:
    for v in variables:
        if v is not None:
            v.grad_var = None


def _check_output_grads(ys, gys) -> None:
    """Chainer's rule: one output gradient per output, of its shape and dtype."""
    props = (
        f"Output shapes and dtypes         : {_props(ys)}\nOutput gradient shapes and dtypes: {_props(gys)}"
    )
    if len(ys) != len(gys):
        raise ValueError(
            "Output gradients must contain equally as many elements as the number of output elements.\n"
            + props
        )
    for y, gy in zip(ys, gys):
        if gy is None or (y is None and not as_array(gy).any()):
            continue
        if y is None or y.shape != gy.shape or y.dtype != gy.dtype:
            raise ValueError(f"Shapes and/or dtypes of outputs and output gradients do not match.\n{props}")


def _backprop(ys, gys, **options) -> None:
    """Chainer's ``backward(ys, gys)``, leaving out outputs that are None or have no gradient."""
    pairs = [(y, gy) for y, gy in zip(ys, gys) if y is not None and gy is not None]
    _backward([y for y, _ in pairs], [gy for _, gy in pairs], **options)


def _unit_direction(xp, shapes: list) -> list:
    """A random direction of norm about 1 over arrays of ``shapes`` (None: no array).

    Each component keeps at least ``0.1 / sqrt(size)`` of magnitude (a 1% mix of the uniform
    vector), so that no input is left almost untested.
    """
    sizes = [0 if s is None else int(numpy.prod(s)) for s in shapes]
    flat = _CheckBackward._sample_unit_vector(sum(sizes), xp)
    pieces, start = [], 0
    for shape, size in zip(shapes, sizes):
        pieces.append(None if shape is None else flat[start : start + size].reshape(shape))
        start += size
    return pieces


def check_backward(
    func: Callable,
    x_data,
    y_grad,
    params=(),
    eps: float = 1e-3,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    no_grads: Sequence[bool] | None = None,
    dtype=None,
    detect_nondifferentiable: bool = False,
) -> None:
    """Test the backward pass of ``func`` against numerical gradients; AssertionError if they differ.

    ``func`` takes one Variable per array of ``x_data`` (an array or a tuple of them) and returns
    a Variable or a tuple of them; ``y_grad`` gives the output gradients (None for a loss with
    one scalar output). The gradients of the inputs and of ``params`` (Variables or Parameters
    that ``func`` uses) are dotted with a random unit direction and compared with the
    derivative of ``func`` along it by :func:`numerical_grad`, within ``atol + rtol * |value|``.
    Inputs flagged in ``no_grads`` (by default the non-float ones) must get no gradient.
    ``dtype`` casts inputs and parameters for the numerical gradient (e.g. float64 for more
    precision).

    >>> import fnet.compat.functions as F
    >>> x = numpy.random.uniform(-1, 1, (3, 2))
    >>> check_backward(F.tanh, x, numpy.ones((3, 2)))
    """
    xs, params = _as_tuple(x_data), _as_tuple(params)
    chx = find(xs)
    if chx is not None:  # checked on the data; func sees Variables presenting ChainerX arrays
        xs, y_grad, func = to_data(xs), to_data(y_grad), _presenting(func, chx)
    if dtype is not None and numpy.dtype(dtype).kind != "f":
        raise ValueError(f"check_backward: dtype must be a float type or None, got {numpy.dtype(dtype)}")
    if no_grads is None:
        no_grads = [None if x is None else x.dtype.kind != "f" for x in xs]
    elif len(no_grads) != len(xs):
        raise ValueError(
            f"Length of no_grads param and xs should be same.\nActual: {len(no_grads)} != {len(xs)}\n"
            "  hint: give one flag per input array"
        )
    present = [x for x in xs if x is not None]
    device = backend.get_device_from_array(present[0]) if present else backend.CPU
    with backend.using_device(device):
        check = _CheckBackward(func, xs, params, no_grads, device.xp)
        ys = check.forward()
        gys = check.output_grads(ys, y_grad)
        directions = _unit_direction(device.xp, check.direction_shapes())
        by_backprop = check.backprop(ys, gys, directions)
        numerically = check.numerically(gys, directions, eps, dtype, detect_nondifferentiable, rtol)
    try:
        _array.assert_allclose(numerically, by_backprop, atol=atol, rtol=rtol)
    except AssertionError as error:
        lines = [f"check_backward failed (eps={eps} atol={atol} rtol={rtol})"]
        for label, arrays in (("inputs", xs), ("grad_outputs", gys), ("directions", directions)):
            for i, a in enumerate(arrays):
                lines += [f"{label}[{i}]:", str(a)]
        lines += [f"gradients (numeric):  {numerically}", f"gradients (backward): {by_backprop}", ""]
        lines.append(f"x: numeric gradient, y: backward gradient{error}")
        raise AssertionError("\n".join(lines)) from None


class _CheckBackward:
    """The state of one :func:`check_backward`: the function, its inputs and parameters."""

    def __init__(self, func: Callable, xs: tuple, params: tuple, no_grads: Sequence, xp):
        self.func, self.xs, self.params, self.no_grads, self.xp = func, xs, params, no_grads, xp
        self.variables: list = []

    @staticmethod
    def _sample_unit_vector(size: int, xp):
        """A random vector of norm 1 and ``size`` elements (Chainer's private name): normal
        draws, each component mixed with 1% of the uniform vector so that its magnitude is
        at least ``0.1 / sqrt(size)``."""
        flat = xp.random.normal(size=(size,))
        if size:
            squares = xp.square(flat)
            flat = xp.copysign(xp.sqrt((0.99 / squares.sum()) * squares + 0.01 / size), flat)
        return flat

    def forward(self) -> tuple:
        """Run ``func`` on Variables of the inputs (this also initializes lazy parameters)."""
        self.variables = [
            None if x is None else Variable(x, requires_grad=x.dtype.kind == "f") for x in self.xs
        ]
        ys = _call(self.func, self.variables)
        _clear_grads(self.variables + list(self.params))  # func may have run a backward pass itself
        return ys

    def output_grads(self, ys: tuple, y_grad) -> tuple:
        """The output gradients: ``y_grad`` checked, or ones for a scalar loss; None for None outputs."""
        if y_grad is None:
            if len(ys) != 1 or ys[0] is None or ys[0].shape != ():
                raise ValueError(
                    "y_grad argument cannot be omitted if the target function is not a loss function, which "
                    f"has a single output with shape ().\nActual output shapes: "
                    f"{', '.join(str(None if y is None else y.shape) for y in ys)}\n"
                    "  hint: pass one output gradient array per output"
                )
            gys = (self.xp.ones_like(ys[0].array),)
        else:
            gys = _as_tuple(y_grad)
            _check_output_grads(ys, gys)
        return tuple(None if y is None else gy for y, gy in zip(ys, gys))

    def _checked(self, items) -> list:
        return [item for item, skip in zip(items, self.no_grads) if not skip]

    def direction_shapes(self) -> list:
        return [None if x is None else x.shape for x in self._checked(self.xs)] + [
            p.shape for p in self.params
        ]

    def backprop(self, ys: tuple, gys: tuple, directions: list):
        """The gradients by backprop, dotted with ``directions``."""
        seeds = [None if gy is None else Variable(gy.copy(), requires_grad=False) for gy in gys]
        # an output that is an input itself (broadcast_to to its own shape) passes its gradient
        # on through a node of its own, as Chainer's check_backward joins the outputs in one node
        ys = tuple(F.identity(y) if y is not None and any(y is v for v in self.variables) else y for y in ys)
        _backprop(ys, seeds)
        for i, (v, skip) in enumerate(zip(self.variables, self.no_grads)):
            if skip and v is not None and v.grad is not None:
                raise RuntimeError(
                    f"check_backward: gradient of int variable must be None, but inputs[{i}] ({_props([v])}) "
                    "got one\n  hint: a backward must return None for inputs in no_grads"
                )
        grads = [None if v is None else from_chx(v.grad) for v in self._checked(self.variables)]
        grads += [from_chx(p.grad) for p in self.params]
        total = 0.0
        for g, d in zip(grads, directions):
            if g is not None:
                total += (g.astype(numpy.float64) * d).sum()
        return total

    def numerically(self, gys: tuple, directions: list, eps: float, dtype, detect: bool, rtol: float):
        """The derivative of ``func`` along ``directions``, by :func:`numerical_grad`."""
        xp = self.xp

        def cast(a):
            return a if dtype is None or a is None or a.dtype.kind != "f" else a.astype(dtype, copy=False)

        fixed = [
            Variable(cast(x), requires_grad=False) if skip else None
            for x, skip in zip(self.xs, self.no_grads)
        ]
        originals = [p.array for p in self.params]
        starts = [cast(a) for a in self._checked(self.xs) + originals]
        delta = xp.zeros((), numpy.float64)  # numerical_grad moves it to -eps and +eps

        def along_direction():
            moved = iter(
                None if a is None else xp.asarray((a.astype(numpy.float64) + delta * d).astype(a.dtype))
                for a, d in zip(starts, directions)
            )
            inputs = [f if skip else _variable_or_none(next(moved)) for f, skip in zip(fixed, self.no_grads)]
            _clear_grads(self.params)
            for p in self.params:
                p.array = next(moved)
            try:
                ys = _call(self.func, inputs)
            finally:
                for p, original in zip(self.params, originals):
                    p.array = original
            return tuple(None if y is None else from_chx(y.array) for y in ys)

        (derivative,) = numerical_grad(
            along_direction,
            (delta,),
            gys,
            eps=eps,
            detect_nondifferentiable=detect,
            diff_atol=0,
            diff_rtol=rtol,
        )
        return derivative


def _variable_or_none(array):
    return None if array is None else Variable(array)


def check_double_backward(
    func: Callable,
    x_data,
    y_grad,
    x_grad_grad,
    params=(),
    params_grad_grad=(),
    eps: float = 1e-3,
    atol: float = 1e-4,
    rtol: float = 1e-3,
    no_grads: Sequence[bool] | None = None,
    dtype=None,
    detect_nondifferentiable: bool = False,
) -> None:
    """Test the second derivatives of ``func``: :func:`check_backward` on the function that maps
    the inputs and output gradients ``y_grad`` to the input (and ``params``) gradients, computed
    with ``enable_double_backprop``, seeded with ``x_grad_grad`` and ``params_grad_grad``.

    The first derivatives are taken as correct: test them with :func:`check_backward` first.
    ``no_grads`` has one flag per input and output gradient (``x_data + y_grad``).

    >>> import fnet.compat.functions as F
    >>> x = numpy.random.uniform(-1, 1, (3,))
    >>> check_double_backward(F.tanh, x, numpy.ones(3), numpy.ones(3))
    """
    if y_grad is None:
        raise ValueError(
            "check_double_backward: y_grad must be given: it is an input of the first-order gradient\n"
            "  hint: for a scalar loss pass numpy.ones((), dtype) (or an array like the output)"
        )
    xs, gys = _as_tuple(x_data), _as_tuple(y_grad)
    ggxs, params, ggparams = _as_tuple(x_grad_grad), _as_tuple(params), _as_tuple(params_grad_grad)
    first_order_skip = [x.dtype.kind != "f" for x in xs]

    def first_order_grad(*inputs):
        x_vars, gy_vars = inputs[: len(xs)], inputs[len(xs) :]
        ys = _call(func, x_vars)
        # numerical_grad may have cast the output gradients to float64: give them the outputs' dtypes
        gy_vars = [None if gy is None or y is None else F.cast(gy, y.dtype) for y, gy in zip(ys, gy_vars)]
        _check_output_grads(ys, gy_vars)
        _backprop(ys, gy_vars, enable_double_backprop=True)
        wrong = [
            i for i, (x, skip) in enumerate(zip(x_vars, first_order_skip)) if skip and x.grad is not None
        ]
        if wrong:
            raise RuntimeError(
                "There are errors retrieving first-order gradients:\n"
                f"Inputs: {_props(x_vars)}\nSkip: {', '.join(map(str, first_order_skip))}\nErrors:\n"
                + "".join(f"[{i}]: Gradient was calculated while expected to not.\n" for i in wrong)
            )
        gxs = [
            None if x.grad is None else x.grad_var for x, skip in zip(x_vars, first_order_skip) if not skip
        ]
        return tuple(gxs + [p.grad_var for p in params])

    try:
        check_backward(
            first_order_grad,
            xs + gys,
            ggxs + ggparams,
            params=params,
            eps=eps,
            atol=atol,
            rtol=rtol,
            no_grads=no_grads,
            dtype=dtype,
            detect_nondifferentiable=detect_nondifferentiable,
        )
    except AssertionError as error:
        lines = [f"check_double_backward failed (eps={eps} atol={atol} rtol={rtol})"]
        sections = (
            ("input", xs),
            ("grad_output", gys),
            ("grad_grad_input", ggxs),
            ("grad_grad_param", ggparams),
        )
        for label, arrays in sections:
            for i, a in enumerate(arrays):
                lines += [f"{label}[{i}]:", str(a)]
        lines += ["", str(error), "", "(caused by)", f"AssertionError: {error}", ""]
        raise AssertionError("\n".join(lines)) from error
