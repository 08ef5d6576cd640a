"""``SpecLink``: a Chainer link that computes with a pure ``fnet.nn`` spec (the one adapter of
``fnet.compat.links``).

A link made from a spec holds the spec, and, as Chainer's links do, ``Parameter`` attributes and
persistent values named like the leaves of the spec's params and state trees (child links for
nested entries), so that ``namedparams`` and the keys of saved files are Chainer's. Calling the
link hands the spec the traced values of its Parameters and the link's inputs (``apply`` lifted
by ``fnet.compat.functions.lift``: ``config.train`` and random keys are filled in), and returns
Variables. Running statistics come back from the spec and are written into the persistent
arrays in place, as Chainer's functions update them.

A lazy spec (``in_size=None``, ``in_channels=None``: ``spec.lazy``) says which of its
parameters wait for the input: those its ``shapes()`` leaves None. The others are drawn at
once (from ``fnet.nn.layer.stand_in(spec)``, whose other leaves are the spec's); the waiting
ones stay uninitialized until the first call, when the spec draws them for the size of the
input (exactly the parameters Chainer defers). Each parameter's ``initializer`` draws again
what the spec draws for it, so ``copy('init')`` and ``repeat`` give fresh values as in Chainer.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy

from ... import backend
from ... import initializers as _initializers
from ... import ops as _ops
from ... import tree as _tree
from ...autodiff.tracer import unbox_all
from ...errors import ShapeError
from ...nn.layer import Layer, replaced, rewritten, stand_in
from .. import configuration
from .._migration import keyword_error
from .._random import next_key
from ..functions import lift, unwrap, wrap
from ..functions._tree import CLASSES, LINK_NODES
from ..initializers import as_pure
from ..link import ChainList, Link
from ..variable import Parameter

__all__ = [
    "SpecLink",
    "spec_attribute",
    "spec_view",
    "spec_constructor",
    "as_initial",
    "pure_function",
    "parse_kwargs",
    "replaced",
]


def _without_initial_arrays(spec: Layer) -> Layer:
    """``spec`` with its initial arrays (arrays, or ``Constant`` initializers of one) replaced by
    zeros: a spec that can be drawn for any input size, to learn the parameters' names."""

    def change(layer, field, value):
        initial = value.fill_value if isinstance(value, _initializers.Constant) else value
        if backend.is_array(initial) and numpy.ndim(initial):
            return _initializers.Zero(dtype=value.dtype)
        return value

    return rewritten(spec, change)


@attrs.frozen
class _Pending:
    """A parameter (or statistic) whose shape depends on the input: drawn on the first call."""

    dtype: numpy.dtype


def _known(drawn: dict, shapes: dict) -> dict:
    """``drawn`` with the leaves whose shape is unknown in ``shapes`` (None: they wait for the
    input) replaced by ``_Pending``."""
    out = {}
    for name, a in drawn.items():
        shape = shapes[name]
        if isinstance(a, Mapping):
            out[name] = _known(a, shape)
        else:
            out[name] = _Pending(numpy.asarray(a).dtype) if shape is None else a
    return out


def _all_pending(params: dict) -> dict:
    """``params`` with every leaf replaced by ``_Pending``."""
    return {
        name: _all_pending(a) if isinstance(a, Mapping) else _Pending(numpy.asarray(a).dtype)
        for name, a in params.items()
    }


def _abstract(value):
    """An example input reduced to what specs read from it, its shape and dtype (a zero-size
    broadcast view, kept by the parameters' initializers without holding the batch)."""
    value = unbox_all(value)
    if not hasattr(value, "shape"):
        return value
    return numpy.broadcast_to(numpy.zeros((), value.dtype), value.shape)


@attrs.frozen
class _Redraw(_initializers.Initializer):
    """A link parameter's initializer: the value at ``path`` of ``spec.init(key, *example)``.

    A parameter the link has not sized yet (its shape differs from the one asked) is filled
    with NaN, as the array of an uninitialized Chainer parameter before a file is loaded into it.
    """

    spec: Layer = attrs.field(default=None, eq=False)
    path: tuple = ()
    example: tuple = attrs.field(default=(), eq=False)

    def at(self, name: str) -> _Redraw:
        """The initializer of the entry ``name`` below this one."""
        return attrs.evolve(self, path=self.path + (name,))

    def _generate(self, key, shape, dtype):
        with _initializers.default_dtype(dtype if dtype.kind == "f" else None):
            value = self.spec.init(key, *self.example)
        for name in self.path:
            value = value[name]
        if numpy.shape(value) != shape:
            return numpy.full(shape, numpy.nan, dtype)
        return numpy.asarray(value, dtype)


def _persistent(value):
    """A state leaf of a spec as Chainer keeps the persistent: a count as an int, an array as is,
    a statistic not drawn yet as None."""
    if isinstance(value, _Pending):
        return None
    value = unbox_all(value)
    dtype = getattr(value, "dtype", None)  # a device array's own: numpy.asarray would copy it to the host
    kind = numpy.result_type(value).kind if dtype is None else dtype.kind
    if numpy.ndim(value) == 0 and kind in "iu":
        return int(value)
    return value


def _install(link: Link, params: dict, state: dict, redraw: _Redraw, child_specs: Mapping) -> None:
    """Give ``link`` a Parameter per array leaf of ``params``, a persistent per leaf of ``state``,
    and a child link per nested entry (the ``SpecLink`` of its spec in ``child_specs``, or a
    plain ``Link`` holding the parameters)."""
    with link.init_scope():
        for name, value in params.items():
            if isinstance(value, Mapping):
                continue
            param = Parameter(attrs.evolve(redraw.at(name), dtype=value.dtype))
            if not isinstance(value, _Pending):
                param._take(value)  # drawn as by initialize(): with Chainer's NaN grad
            setattr(link, name, param)
    for name, value in state.items():
        if not isinstance(value, Mapping):
            link.add_persistent(name, _persistent(value))
    names = [n for n, v in params.items() if isinstance(v, Mapping)]
    names += [n for n, v in state.items() if isinstance(v, Mapping) and n not in names]
    if isinstance(link, ChainList):
        names.sort(key=int)
    for name in names:
        sub = (params.get(name, {}), state.get(name, {}), redraw.at(name))
        spec = child_specs.get(name)
        if spec is None:
            child = Link()
            _install(child, *sub, {})
        else:
            cls = _LINK_CLASSES[type(spec)]
            child = cls.__new__(cls)
            SpecLink.__init__(child, spec, _given=sub)
        if isinstance(link, ChainList):
            link.add_link(child)
        else:
            link.add_link(name, child)


def _fill(link: Link, params: dict, state: dict, redraw: _Redraw) -> None:
    """Set the uninitialized parameters and statistics of ``link``'s hierarchy from the spec's
    ``params`` and ``state`` (drawn for the input's size); every parameter's initializer now
    redraws for that size."""
    d = link.__dict__
    device = link.device
    for name in link._params:
        param = d[name]
        if param.array is None:
            param._take(device.send(params[name]))
        param.initializer = attrs.evolve(redraw.at(name), dtype=param.dtype)
    for name in link._persistent:
        if d[name] is None and name in state:
            value = _persistent(state[name])
            d[name] = device.send(value) if hasattr(value, "shape") else value
    for child in link.children():
        _fill(child, params.get(child.name, {}), state.get(child.name, {}), redraw.at(child.name))


@functools.cache
def _lifted(cls: type, method: str):
    """The Chainer-layer version of the spec method ``cls.method`` (the spec its first argument),
    named after the layer (``'Linear'``, ``'CRF1d.argmax'``) for function hooks."""
    function = getattr(cls, method)

    @functools.wraps(function)
    def named(*args, **kwargs):
        return function(*args, **kwargs)

    named.__name__ = cls.__name__ if method == "apply" else f"{cls.__name__}.{method}"
    lifted = lift(named)
    if method == "apply" and cls.__name__ in LINK_NODES:  # the call makes Chainer's node (LinearFunction)
        lifted.bind(CLASSES[LINK_NODES[cls.__name__]])
    return lifted


# The link class of each spec class, filled as the classes are defined (the package imports every
# module of links, so composites find the classes of all their children).
_LINK_CLASSES: dict[type, type] = {}


class SpecLink(Link):
    """A link that computes with the pure ``fnet.nn`` spec it holds (``_spec``).

    Subclasses build the spec from Chainer's constructor arguments and pass it to
    ``SpecLink.__init__``; ``spec_type`` names the spec class they wrap (so that composites can
    make their children of the right link class). Calling the link runs ``spec.apply`` on the
    Parameters' traced values and the inputs; a spec with state (running statistics) gets the
    persistent values and gives back the new ones, which are stored in place in training.
    Mix ``Chain`` or ``ChainList`` in after this class for links with children.
    """

    spec_type: type | None = None
    _example_arg = (0, "x")  # the argument of forward whose shape sizes a lazy link
    _keeps_state = True  # the spec's state is persistent values (not a recurrent state)
    _fixes_dtype = False  # the spec is given its dtype (else parameters take config.dtype)
    _mixed16_dtype = None  # the parameters' dtype when config.dtype is mixed16 (None: float16)
    # Chainer's connection links compute in the input's dtype, whatever their parameters' dtype
    _computes_in_input_dtype = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "spec_type" in cls.__dict__:
            _LINK_CLASSES[cls.spec_type] = cls

    _optional_params: tuple = ()  # parameters a link may lack (``b`` with ``nobias``): then None

    def __init__(self, spec: Layer, *, _given: tuple | None = None) -> None:
        super().__init__()
        self._spec = spec
        # the parameters' dtype: config.dtype (mixed16 mapped as the link says), fixed at
        # construction as Chainer's initializers' dtype is: a lazy link sized later keeps it
        self._param_dtype = configuration.get_dtype(map_mixed16=self._mixed16_dtype)
        if _given is None:
            _given = self._draw(spec)
        params, state, redraw = _given
        _install(self, params, state, redraw, self._child_specs())
        for name in self._optional_params:  # Chainer sets None where a link has no such param
            if name not in self.__dict__:
                setattr(self, name, None)
        self._pending = _unsized(self)

    # -- construction ---------------------------------------------------------------------
    def _draw(self, spec: Layer) -> tuple[dict, dict, _Redraw]:
        """The params and state of a new link, drawn from the spec (for two input sizes when it
        infers some: what depends on them is left ``_Pending``)."""
        with self._drawing():
            return self._draw_sized(spec)

    def _drawing(self):
        """A context in which initializers make ``config.dtype`` (Chainer's parameter dtype, drawn
        at its precision), unless the link gives its spec a dtype."""
        if self._fixes_dtype:
            return contextlib.nullcontext()
        return _initializers.default_dtype(self._param_dtype)

    def _draw_sized(self, spec: Layer) -> tuple[dict, dict, _Redraw]:
        """``_draw``'s params, state and initializer, in the current default dtype."""
        key = next_key()
        stateful = spec.stateful and self._keeps_state
        if not spec.lazy:
            return self._in_dtype(spec.init(key)), spec.init_state() if stateful else {}, _Redraw(spec=spec)
        standing = stand_in(spec)
        try:
            params = _known(standing.init(key), spec.shapes())
            state = _known(standing.init_state(), spec.state_shapes()) if stateful else {}
        except ShapeError:  # an initial array fits the input's size only: all wait for the input
            stripped = _without_initial_arrays(spec)
            standing = stand_in(stripped)
            params = _all_pending(standing.init(key))
            # statistics sized by the input wait for it too (BatchNormalization(axis=...,
            # initial_avg_mean=array)); the others (the count N) are there at once
            state = _known(standing.init_state(), stripped.state_shapes()) if stateful else {}
        return self._in_dtype(params), state, _Redraw(spec=standing)

    def _in_dtype(self, params: dict) -> dict:
        """The spec's params in Chainer's dtype: floating parameters take ``config.dtype``, as
        Chainer's initializers make them, unless the link gives its spec a dtype."""
        if self._fixes_dtype:
            return params
        dtype = self._param_dtype

        def cast(value):
            if isinstance(value, Mapping):
                return {k: cast(v) for k, v in value.items()}
            if value.dtype.kind != "f" or value.dtype == dtype:
                return value
            return _Pending(dtype) if isinstance(value, _Pending) else value.astype(dtype)

        return cast(params)

    def _child_specs(self) -> Mapping[str, Layer]:
        """The specs of the child links, by name: the spec's ``sublayers()``."""
        return self._spec.sublayers()

    def _initialize(self, args: tuple, kwargs: dict) -> None:
        """Size the parameters left uninitialized after the input of this call (once)."""
        if not _unsized(self):  # sized by a parent, or loaded from a file
            self._pending = False
            return
        example = tuple(_abstract(unwrap(a)) for a in self._example(args, kwargs))
        spec = self._spec
        with self._drawing():
            params = self._in_dtype(spec.init(next_key(), *example))
        stateful = spec.stateful and self._keeps_state
        state = spec.init_state(*example) if stateful and _missing(self.state_tree()) else {}
        _fill(self, params, state, _Redraw(spec=spec, example=example))
        self._pending = False

    def _example(self, args: tuple, kwargs: dict) -> tuple:
        """The arguments after the key of ``spec.init`` for a lazy link: the example input."""
        index, name = self._example_arg
        if index < len(args):
            return (args[index],)
        if name in kwargs:
            return (kwargs[name],)
        raise TypeError(
            f"{type(self).__name__}.forward: expected the input {name!r} (argument {index}), got "
            f"{len(args)} positional arguments and the keywords {sorted(kwargs)}\n"
            "  hint: call the link with its inputs, e.g. link(x)"
        )

    # -- calling ----------------------------------------------------------------------------
    def _traced_params(self) -> dict:
        """The Parameters' traced values, nested like the spec's params."""
        return self._tree(lambda link: {n: unwrap(link.__dict__[n]) for n in link._params}, True)

    def _apply(self, method: str, *args: Any, **kwargs: Any):
        """``spec.<method>(params, *args, **kwargs)`` on Variables, sizing a lazy link first."""
        if self._pending:
            self._initialize(args, kwargs)
        params = self._traced_params()
        if self._computes_in_input_dtype and args:
            params = _floats_in_dtype(params, self._input_dtype(args))
        return _lifted(type(self._spec), method)(self._spec, params, *args, **kwargs)

    def _input_dtype(self, args: tuple):
        """The dtype a link that computes in its input's dtype computes in: the first input's."""
        return getattr(unbox_all(unwrap(args[0])), "dtype", None)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The spec's computation on the inputs (Variables or arrays); Variables come back.

        A spec with running statistics is given the persistent values; in training (outside
        recomputation) the updated ones are written back into them.
        """
        spec = self._spec
        if not (spec.stateful and self._keeps_state):
            return self._apply("apply", *args, **kwargs)
        if self._pending:
            self._initialize(args, kwargs)
        state = self.state_tree()
        if configuration.config.type_check:
            y, new_state = self._apply("apply", *args, state, **kwargs)
        else:
            y, new_state = self._apply_promoted(args, state, kwargs)
        if configuration.config.train and not configuration.config.in_recomputing:
            self.set_state_tree(_as_persistents(new_state))
        return y

    def _apply_promoted(self, args: tuple, state: dict, kwargs: dict):
        """``apply`` with the float parameters and statistics in their promoted dtype: with type
        checking off (Chainer's numerical gradient checks cast the parameters only), Chainer's
        arithmetic mixes them. The new statistics keep their own dtypes."""
        params = self._traced_params()
        dtypes = [_float_dtype(v) for v in _tree.leaves((params, state))]
        common = numpy.result_type(*filter(None, dtypes)) if any(dtypes) else None
        y, new_state = _lifted(type(self._spec), "apply")(
            self._spec, _floats_in_dtype(params, common), *args, _floats_in_dtype(state, common), **kwargs
        )

        def own_dtype(new, old):
            dtype = _float_dtype(old)
            return new if dtype is None or _float_dtype(new) in (None, dtype) else _ops.astype(new, dtype)

        return y, _tree.map(own_dtype, new_state, state)


def _float_dtype(value):
    """The dtype of ``value`` if it is a float array (traced or not), else None."""
    dtype = getattr(unbox_all(value), "dtype", None)
    return dtype if dtype is not None and dtype.kind == "f" else None


def _floats_in_dtype(params: dict, dtype) -> dict:
    """``params`` with every float leaf of another dtype cast to the float ``dtype`` (a recorded
    cast: its gradient comes back in the parameter's dtype)."""
    if dtype is None or dtype.kind != "f":
        return params

    def cast(value):
        kept = _float_dtype(value)
        return value if kept is None or kept == dtype else _ops.astype(value, dtype)

    return _tree.map(cast, params)


def _missing(state: dict) -> bool:
    """Whether a statistic of the state tree is not drawn yet (None)."""
    return any(_missing(v) if isinstance(v, dict) else v is None for v in state.values())


def _unsized(link: Link) -> bool:
    """Whether a parameter or a statistic of ``link``'s hierarchy waits for an input's size."""
    return any(p.array is None for p in link.params()) or _missing(link.state_tree())


def _as_persistents(state: dict) -> dict:
    """A spec's new state tree with its leaves as Chainer keeps them (arrays, int counts)."""
    return {k: _as_persistents(v) if isinstance(v, dict) else _persistent(v) for k, v in state.items()}


def spec_attribute(field: str, doc: str, *, settable: bool = False) -> property:
    """A link attribute read from the spec's ``field``. A settable one replaces the spec (the
    next call uses the new value), as Chainer's forward reads the attribute on each call."""

    def get(link):
        return getattr(link._spec, field)

    def set_(link, value):
        link._spec = replaced(link._spec, **{field: value})

    return property(get, set_ if settable else None, doc=doc)


def spec_view(view, doc: str) -> property:
    """A read-only link attribute computed from the spec by ``view(spec)`` (e.g. a stride shown
    as a pair, as Chainer keeps it)."""
    return property(lambda link: view(link._spec), doc=doc)


def as_initial(value):
    """A Chainer initial value for a spec: a Chainer-style initializer (``init(array)``)
    becomes an fnet one; None, numbers, arrays and fnet initializers go as they are; a tuple
    of initial values (Bilinear's ``initial_bias``) is converted item by item."""
    if isinstance(value, tuple):
        return tuple(as_initial(v) for v in value)
    return as_pure(value) if callable(value) else value


def pure_function(function):
    """A function given to a link (an activation) as its spec calls it, on traced values: fnet's
    pure functions as they are (also the one behind a ``chainer.functions`` lift), any other
    callable (a user's function, a link) called on Variables."""
    module = getattr(function, "__module__", "") or ""
    if module == "fnet.compat.functions":
        return function.__wrapped__
    if module.startswith("fnet.") and not module.startswith("fnet.compat"):
        return function

    @functools.wraps(function)
    def on_variables(*args):
        return unwrap(function(*wrap(args)))

    return on_variables


def spec_constructor(
    spec_type: type,
    *initializers: str,
    functions: tuple[str, ...] = (),
    dtypes: tuple[str, ...] = (),
    retired: Mapping[str, str] = {},
    retired_positional: str | None = None,
    check: Callable[[dict], None] | None = None,
    keep: tuple[str, ...] = (),
):
    """An ``__init__`` taking the arguments of ``spec_type`` (Chainer's, as the spec mirrors
    them) and building the link around ``spec_type(...)``: the arguments named in
    ``initializers`` are converted by ``as_initial``, those in ``functions`` by
    ``pure_function``, and those in ``dtypes`` by ``get_dtype`` (None: ``config.dtype``).

    A keyword in ``retired`` (an argument Chainer v1 had) raises ValueError with its message; a
    positional argument past the spec's, TypeError with ``retired_positional`` when given.
    ``check(arguments)`` sees the arguments as given (Chainer's own assertions on them), and
    each name in ``keep`` that was given is kept as given on the link as ``_<name>``."""
    signature = inspect.signature(spec_type)
    positional = sum(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in signature.parameters.values())

    def __init__(self, *args, **kwargs):
        parse_kwargs(type(self).__name__, {k: v for k, v in kwargs.items() if k in retired}, {}, retired)
        if retired_positional is not None and len(args) > positional:
            raise TypeError(f"{type(self).__name__}: {retired_positional}")
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:  # a v1 argument (wscale=...) gets Chainer's migration hint
            unknown = [k for k in kwargs if k not in signature.parameters]
            better = keyword_error("chainer.links", type(self).__name__, unknown)
            if better is None:
                raise
            raise better from None
        arguments = bound.arguments
        if check is not None:
            check(arguments)
        given = {name: arguments[name] for name in keep if name in arguments}
        for name in initializers:
            if name in arguments:
                arguments[name] = as_initial(arguments[name])
        for name in functions:
            if name in arguments:
                arguments[name] = pure_function(arguments[name])
        # a link given its dtype (BatchNormalization's statistics): float32 under mixed16
        for name in dtypes:
            arguments[name] = configuration.get_dtype(arguments.get(name), map_mixed16=numpy.float32)
        SpecLink.__init__(self, spec_type(*bound.args, **bound.kwargs))
        for name, value in given.items():
            setattr(self, f"_{name}", value)

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    __init__.__signature__ = signature.replace(
        parameters=[self_param, *signature.parameters.values()], return_annotation=None
    )
    __init__.__doc__ = f"Build the link around ``fnet.nn.{spec_type.__name__}`` with these arguments."
    return __init__


def parse_kwargs(where: str, kwargs: dict, defaults: Mapping[str, Any], retired: Mapping[str, str] = {}):
    """Chainer's keyword parsing for ``**kwargs`` signatures: the values of the ``defaults``
    names, in order; a ``retired`` name raises ValueError with its message, others TypeError."""
    for name, reason in retired.items():
        if name in kwargs:
            raise ValueError(f"{where}: {reason}")
    unknown = sorted(set(kwargs) - set(defaults))
    if unknown:
        raise TypeError(
            f"{where}: got unexpected keyword argument(s) {', '.join(unknown)}\n"
            f"  hint: the keyword arguments accepted are {', '.join(defaults) or 'none'}"
        )
    return tuple(kwargs.get(name, default) for name, default in defaults.items())
