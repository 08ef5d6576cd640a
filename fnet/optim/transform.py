"""Gradient transformations: ``Transform(init, update)``, ``step``, ``apply_updates``, ``chain``, ``masked``.

A transformation is a pair of pure functions. ``init(params)`` makes its state; ``update(grads,
state, params)`` returns ``(updates, new_state)``, where ``updates`` is the pytree that
``apply_updates(params, updates)`` adds to the parameters. Nothing is mutated: every call
returns new arrays (or passes unchanged ones through) and a new state.

``step(tx, grads, state, params) -> (new_params, new_state)`` is ``update`` followed by
``apply_updates`` (the same sums, written into the arrays of fresh updates where NumPy can);
``step_in_place`` is ``update`` followed by ``apply_updates_in_place``, for callers that own
the parameter arrays. The parameters change in these two functions only, by one addition
``p + u``, so all the ways give the same bits. ``tx.step(...)`` and ``tx.step_in_place(...)``
are the same functions, as methods.

>>> import numpy
>>> from fnet import optim
>>> tx = optim.chain(optim.WeightDecay(0.1), optim.SGD(lr=0.5))
>>> params = {"w": numpy.array([1.0, -2.0])}
>>> state = tx.init(params)
>>> params, state = optim.step(tx, {"w": numpy.array([0.5, 0.5])}, state, params)
>>> params["w"]
array([ 0.7 , -2.15])

The transformations made by fnet's factories describe themselves: their repr is the call that
made them, and ``tx.hyperparams(state)`` gives the hyperparameter values in effect at a state
(schedules read at its update count):

>>> tx
chain(WeightDecay(rate=0.1), SGD(lr=0.5))
>>> tx.hyperparams(state)
({'rate': 0.1}, {'lr': 0.5})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from .. import backend, tree
from ..errors import InvalidInputError, message

__all__ = ["Transform", "step", "step_in_place", "apply_updates", "apply_updates_in_place", "chain", "masked"]

# ``values(state, last_update) -> hyperparameter values``: what ``Transform.hyperparams`` returns
_Values = Callable[[Any, bool], Any]


def _check_transform(op: str, name: str, value) -> None:
    if not isinstance(value, Transform):
        raise InvalidInputError(
            message(
                op,
                f"expected {name} to be a fnet.optim.Transform, got {type(value).__name__}",
                hint="build one with an optimizer or hook factory, e.g. fnet.optim.Adam() or "
                "fnet.optim.WeightDecay(1e-4)",
            )
        )


@attrs.frozen(repr=False)
class Transform:
    """A pure gradient transformation (an optimizer, a hook, or a chain of them).

    Attributes:
        init: ``init(params) -> state``.
        update: ``update(grads, state, params) -> (updates, new_state)``.
        description: the repr, e.g. ``'Adam(alpha=0.001, ...)'`` (the factories set it).
        values: optional ``values(state, last_update) -> hyperparameter values``, what
            ``hyperparams`` returns (the factories set it).

    ``init`` and ``update`` are the whole contract; the other two only describe.
    """

    init: Callable[[Any], Any]
    update: Callable[[Any, Any, Any], tuple[Any, Any]]
    description: str | None = attrs.field(default=None, kw_only=True, eq=False)
    values: _Values | None = attrs.field(default=None, kw_only=True, eq=False)

    def __repr__(self) -> str:
        if self.description is not None:
            return self.description
        return f"Transform(init={_show(self.init)}, update={_show(self.update)})"

    def hyperparams(self, state: Any, *, last_update: bool = False) -> Any:
        """The hyperparameter values in effect at ``state``: a dict by name, with every schedule
        read at the state's update count (the values the next update uses). A ``chain`` gives
        a tuple with an entry per member; a transformation built directly as
        ``Transform(init, update)`` declares none (``{}``).

        Args:
            state: a state of this transformation (from ``init`` or an update).
            last_update: give the values of the update that made ``state`` instead (a schedule
                read one count earlier; the first update's values when none was made yet).

        >>> import numpy
        >>> from fnet import optim
        >>> tx = optim.SGD(lr=optim.schedules.step(0.1, 0.5, 1))
        >>> params = {"w": numpy.zeros(2)}
        >>> state = tx.init(params)
        >>> _, state = optim.step(tx, {"w": numpy.ones(2)}, state, params)
        >>> tx.hyperparams(state), tx.hyperparams(state, last_update=True)
        ({'lr': 0.05}, {'lr': 0.1})
        """
        if self.values is None:
            return {}
        return self.values(state, bool(last_update))

    def step(self, grads: Any, state: Any, params: Any) -> tuple[Any, Any]:
        """``step(self, grads, state, params)``: the new params and the new state."""
        return step(self, grads, state, params)

    def step_in_place(self, grads: Any, state: Any, params: Any) -> Any:
        """``step_in_place(self, grads, state, params)``: the new state (``params`` written)."""
        return step_in_place(self, grads, state, params)


def _show(value) -> str:
    """A value as shown in a transformation's repr: functions by name, without their address."""
    if callable(value) and repr(value).startswith("<"):
        return f"<function {getattr(value, '__qualname__', type(value).__name__)}>"
    return repr(value)


def _describe(name: str, *args, **kwargs) -> str:
    """The repr of a transformation: the call that makes it, ``name(arg, key=value, ...)``
    (keyword arguments that are None are left out)."""
    shown = [_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items() if v is not None]
    return f"{name}({', '.join(shown)})"


def _constant(values: dict) -> _Values:
    """The ``values`` of a transformation whose hyperparameters do not change."""
    return lambda state, last_update: dict(values)


def _flatten_pair(op: str, grads, params, names=("grads", "params")) -> tuple[list, tree.Structure]:
    """The leaves and structure of ``params``, checked to have the structure of ``grads``."""
    leaves, structure = tree.flatten(params)
    if tree.structure(grads) != structure:
        raise tree.structure_mismatch(op, grads, params, names)
    return leaves, structure


def _leaves(op: str, params, updates) -> tuple[list, list, tree.Structure]:
    """The leaves of ``params`` and of ``updates``, checked to be trees of one structure."""
    p_leaves, structure = tree.flatten(params)
    u_leaves, u_structure = tree.flatten(updates)
    if u_structure != structure:
        raise tree.structure_mismatch(op, updates, params, ("updates", "params"))
    return p_leaves, u_leaves, structure


def _add(p_leaves: list, u_leaves: list) -> list:
    """``p + u`` for each pair, each sum of its parameter's dtype: the one addition of ``apply_updates``.

    It empties ``u_leaves``, dropping each update as it is added: an update that nothing else
    holds (a kernel's fresh array, once ``step`` has let go of the updates tree) is then a
    temporary, and NumPy writes the sum into it (its temporary elision) instead of a new array.
    An update that anything else holds (a state array, a caller's gradient) is never written.
    """
    u_leaves.reverse()
    out = []
    for p in p_leaves:
        new = p + u_leaves.pop()
        if backend.is_array(p) and (type(new) is not type(p) or new.dtype != p.dtype):
            new = backend.xp(p).asarray(new, dtype=p.dtype)  # a 0-d array stays an array
        out.append(new)
    return out


def apply_updates(params: Any, updates: Any) -> Any:
    """``params + updates`` leaf by leaf, in new arrays; each keeps its parameter's dtype.

    The sum is computed in the dtype that NumPy gives the pair (float32 for a float16 parameter
    with float32 updates) and rounded once to the parameter's dtype, as ``p += u`` does.

    >>> import numpy
    >>> apply_updates({"w": numpy.array([1.0, 2.0])}, {"w": numpy.array([0.5, -1.0])})
    {'w': array([1.5, 1. ])}
    """
    p_leaves, u_leaves, structure = _leaves("apply_updates", params, updates)
    return tree.unflatten(structure, _add(p_leaves, u_leaves))


def apply_updates_in_place(params: Any, updates: Any) -> None:
    """``p += u`` for every leaf: the parameters' own arrays change (each must be writeable).

    The one in-place addition of fnet: bit for bit what ``apply_updates`` returns.

    >>> import numpy
    >>> w = numpy.array([1.0, 2.0])
    >>> apply_updates_in_place({"w": w}, {"w": numpy.array([0.5, -1.0])})
    >>> w
    array([1.5, 1. ])
    """
    p_leaves, u_leaves, _ = _leaves("apply_updates_in_place", params, updates)
    for p, u in zip(p_leaves, u_leaves):
        p += u


def step(tx: Transform, grads: Any, state: Any, params: Any) -> tuple[Any, Any]:
    """One step of ``tx``: ``update``, then ``apply_updates``; returns ``(new_params, new_state)``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.SGD(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> new_params, state = optim.step(tx, {"w": numpy.array([2.0])}, tx.init(params), params)
    >>> new_params["w"], state.t
    (array([0.8]), 1)
    """
    if type(tx) is not Transform:
        _check_transform("step", "tx", tx)
    updates, state = tx.update(grads, state, params)
    p_leaves, u_leaves, structure = _leaves("apply_updates", params, updates)
    del updates  # held by u_leaves alone: the sums may reuse the arrays of fresh updates (see _add)
    return tree.unflatten(structure, _add(p_leaves, u_leaves)), state


def step_in_place(tx: Transform, grads: Any, state: Any, params: Any) -> Any:
    """One step of ``tx`` written into the arrays of ``params``: ``update``, then
    ``apply_updates_in_place``; returns the new state.

    Not pure: for callers that own the parameter buffers (the Chainer layer, whose Parameters
    are updated in place as Chainer's are). It saves the arrays of the new parameters. Every
    leaf of ``params`` must be a writeable array.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.SGD(lr=0.1)
    >>> w = numpy.array([1.0])
    >>> state = optim.step_in_place(tx, {"w": numpy.array([2.0])}, tx.init({"w": w}), {"w": w})
    >>> w, state.t
    (array([0.8]), 1)
    """
    if type(tx) is not Transform:
        _check_transform("step_in_place", "tx", tx)
    updates, state = tx.update(grads, state, params)
    apply_updates_in_place(params, updates)
    return state


def chain(*transforms: Transform) -> Transform:
    """Compose transformations: each one's updates are the next one's gradients.

    Chainer's optimizer hooks run on the gradients before the update rule, so they go first:
    ``chain(WeightDecay(1e-4), GradientClipping(5.0), MomentumSGD())``. The state is the tuple
    of the members' states.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.chain(optim.GradientHardClipping(-1.0, 1.0), optim.SGD(lr=1.0))
    >>> params = {"w": numpy.array([0.0, 0.0])}
    >>> optim.step(tx, {"w": numpy.array([3.0, -0.5])}, tx.init(params), params)[0]
    {'w': array([-1. ,  0.5])}
    """
    for i, tx in enumerate(transforms):
        _check_transform("chain", f"transforms[{i}]", tx)

    def init(params):
        return tuple(tx.init(params) for tx in transforms)

    def check_state(state) -> None:
        if not isinstance(state, tuple) or len(state) != len(transforms):
            raise InvalidInputError(
                message(
                    "chain.update",
                    f"expected the state to be a tuple of {len(transforms)} member states, "
                    f"got {type(state).__name__}",
                    hint="pass the state that this chain's init(params) (or its last update) returned",
                )
            )

    def update(grads, state, params=None):
        check_state(state)
        states = []
        for tx, s in zip(transforms, state):
            grads, s = tx.update(grads, s, params)
            states.append(s)
        return grads, tuple(states)

    def values(state, last_update):
        check_state(state)
        return tuple(tx.hyperparams(s, last_update=last_update) for tx, s in zip(transforms, state))

    return Transform(
        init,
        update,
        description=_describe("chain", *transforms),
        values=values,
    )


def masked(inner: Transform, mask: Callable[[str], bool]) -> Transform:
    """Apply ``inner`` only to the leaves whose path ``mask`` accepts; pass the others through.

    ``mask`` gets a leaf's path as a string (``"l1/W"``, Chainer's parameter name) and returns
    whether ``inner`` applies to it; ``inner`` sees a tree in which the other leaves are
    ``None``. This is Chainer's per-parameter hook (``param.update_rule.add_hook(hook)``), e.g.
    weight decay on weights but not biases::

        chain(masked(WeightDecay(1e-4), lambda path: path.endswith("W")), MomentumSGD())

    To keep parameters from being updated, use the optimizers' ``per_param`` overrides
    (``{"enabled": False}``) instead: a masked optimizer would pass raw gradients through.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.masked(optim.WeightDecay(1.0), lambda path: path == "W")
    >>> params = {"W": numpy.array([2.0]), "b": numpy.array([2.0])}
    >>> tx.update({"W": numpy.array([0.5]), "b": numpy.array([0.5])}, tx.init(params), params)[0]
    {'W': array([2.5]), 'b': array([0.5])}
    """
    _check_transform("masked", "inner", inner)
    if not callable(mask):
        raise InvalidInputError(
            message(
                "masked",
                f"expected mask to be a function of a path string, got {type(mask).__name__}",
                hint="e.g. mask=lambda path: path.endswith('/W')",
            )
        )

    def keeps(t) -> list[bool]:
        return [bool(mask(tree.path_str(path))) for path, _ in tree.flatten_with_paths(t)]

    def select(leaves, structure, keep):
        return tree.unflatten(structure, [x if k else None for x, k in zip(leaves, keep)])

    def init(params):
        leaves, structure = tree.flatten(params)
        return inner.init(select(leaves, structure, keeps(params)))

    def update(grads, state, params=None):
        keep = keeps(grads)
        g_leaves, structure = tree.flatten(grads)
        selected_params = None
        if params is not None:
            p_leaves, p_structure = _flatten_pair("masked.update", grads, params)
            selected_params = select(p_leaves, p_structure, keep)
        inner_updates, state = inner.update(select(g_leaves, structure, keep), state, selected_params)
        it = iter(tree.leaves(inner_updates))
        return tree.unflatten(structure, [next(it) if k else g for k, g in zip(keep, g_leaves)]), state

    return Transform(
        init,
        update,
        description=_describe("masked", inner, mask=mask),
        values=lambda state, last_update: inner.hyperparams(state, last_update=last_update),
    )
