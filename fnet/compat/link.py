"""Chainer's ``Link``, ``Chain`` and ``ChainList``: objects that hold parameters and child links.

A link keeps its ``Parameter``s and *persistent* values (state saved with the model, such as
running statistics) as attributes, and its children (for chains) likewise. Everything Chainer
offers on such a hierarchy is here: ``params``/``namedparams``/``links``/``namedlinks``,
gradients (``cleargrads``, ``addgrads``), ``copy``, ``copyparams``, ``serialize``, devices and
link hooks. The arithmetic is left to ``fnet.functions``; links only hold state.

Bridges to the pure API: ``params_tree()`` is the hierarchy's arrays as a nested dict keyed
like ``namedparams`` (``{'l1': {'W': ..., 'b': ...}}``: the keys ``fnet.nn`` layers and
``fnet.io`` checkpoints use), ``grads_tree()`` the gradients, ``set_params_tree(tree)`` writes
new arrays back, and ``state_tree()``/``set_state_tree(tree)`` do the same for the persistents.
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy as _copy
import warnings
from collections.abc import Iterator
from typing import Any

import numpy

from .. import backend
from .. import tree as _tree
from ..errors import aval
from . import initializers
from .backend import ChainerxDevice, from_chx, get_device
from .backends import intel64
from .backends._cpu import CpuDevice
from .link_hooks.link_hook import (
    ForwardPostprocessCallbackArgs,
    ForwardPreprocessCallbackArgs,
    LinkHook,
    active_link_hooks,
)
from .variable import Parameter, Variable

__all__ = ["Link", "Chain", "ChainList", "persistent_array_slots"]

_COPY_MODES = ("init", "copy", "share")

# The class that ``Link.repeat`` returns: Sequential. It subclasses ChainList, so
# compat/sequential.py stands above this module, and sets this name when it loads.
_Sequential: type | None = None


def _copy_param(param: Parameter, memo: dict | None) -> Parameter:
    """A copy of ``param`` sharing its array and update rule when ``memo`` is None, else a deep
    copy (within the deep copy ``memo`` tracks); both keep the initializer and the update rule,
    which copying a Parameter by pickling does not."""
    if memo is None:
        new = _copy.copy(param)
        new.cleargrad()
        new.initializer = param.initializer
        new.update_rule = param.update_rule
    else:
        new = _copy.deepcopy(param, memo)
        new.initializer = _copy.deepcopy(param.initializer, memo)
        new.update_rule = _copy.deepcopy(param.update_rule, memo)
    return new


def _grad_of(param: Parameter):
    """``param``'s gradient for a grads tree: None for a parameter whose array is not drawn yet
    (whose ``grad`` may not be read)."""
    return None if param.array is None else param.grad


def _check_copy_mode(where: str, mode: str) -> None:
    if mode not in _COPY_MODES:
        raise ValueError(
            f"{where}: the 'mode' argument should be either 'init', 'copy', or 'share', got {mode!r}\n"
            "  hint: 'init' draws new parameters, 'copy' copies them, 'share' shares their arrays"
        )


def _is_ndarray(value) -> bool:
    """Whether ``value`` is a NumPy or CuPy array (not a NumPy scalar): what is copied in place."""
    return backend.is_array(value) and not isinstance(value, numpy.generic)


def _shape_and_dtype(name: str, value) -> tuple[Any, Any]:
    """A ``Link(**params)`` value: a shape (None, an int or a sequence of ints), or ``(shape, dtype)``."""
    if value is None or isinstance(value, (int, numpy.integer)):
        return value, numpy.float32
    if isinstance(value, collections.abc.Sequence):
        if all(isinstance(d, (int, numpy.integer)) for d in value):
            return tuple(value), numpy.float32
        if len(value) == 2:
            return value[0], value[1]
    raise TypeError(
        f"Link: parameter {name!r} must be given as a shape or as (shape, dtype), got {value!r}\n"
        "  hint: e.g. Link(W=(3, 4)) or Link(W=((3, 4), numpy.float64))"
    )


class _ToDevice:
    """Moves the links, parameters and persistent arrays it visits to ``device``.

    ``skip_gpu_arrays`` keeps arrays that already live on a GPU where they are (``to_gpu``).
    A link below ``start`` whose class overrides the deprecated ``to_cpu``/``to_gpu``/
    ``to_intel64`` of the move (``entry``: the method and its arguments, or the one that the
    device implies) has that method called, as Chainer does for old links.
    """

    def __init__(
        self,
        device: backend.Device,
        skip_gpu_arrays: bool = False,
        entry: tuple[str, dict] | None = None,
        start: Link | None = None,
    ):
        self.device = device
        self.skip_gpu_arrays = skip_gpu_arrays
        self.entry = entry or _to_method_of(device)
        self.start = start

    def _skips(self, device) -> bool:
        return self.skip_gpu_arrays and isinstance(device, backend.GpuDevice)

    def visit_device_resident(self, link: Link) -> None:
        link._device = self.device
        method, kwargs = self.entry
        if link is not self.start and method in link._overridden_to_methods:
            getattr(link, method)(**kwargs)

    def visit_array(self, array):
        if self._skips(backend.get_device_from_array(array)):
            return array
        return self.device.send(array)

    def visit_variable(self, variable: Variable) -> None:
        if variable.array is None or not self._skips(variable.device):
            variable.to_device(self.device)


def _to_method_of(device: backend.Device) -> tuple[str, dict]:
    """The deprecated ``to_*`` method (and its arguments) that moves a link to ``device``."""
    if isinstance(device, backend.GpuDevice):
        return "to_gpu", {"device": device.id}
    if isinstance(device, intel64.Intel64Device):
        return "to_intel64", {}
    if isinstance(device, ChainerxDevice):
        return "to_chx", {}  # final: no subclass overrides it, so none is called
    return "to_cpu", {}


# Methods a subclass may not override (Chainer's ``utils.final``), and those it may override
# with a DeprecationWarning (they are then called when the hierarchy moves to their device).
_FINAL_METHODS = ("to_device", "to_chx", "from_chx")
_DEPRECATED_OVERRIDES = ("to_cpu", "to_gpu", "to_intel64")


class Link:
    """A building block of models: it holds parameters and persistent values.

    Parameters are ``Parameter`` objects assigned to attributes inside ``with
    self.init_scope():`` (or added with ``add_param``); persistents are values registered with
    ``add_persistent`` or ``register_persistent`` and saved with the model. Calling a link runs
    its ``forward`` method, with the active link hooks around it. ``Link(W=(3, 4))`` adds
    parameters of those shapes (values ``(shape, dtype)`` give a dtype), as in Chainer v1.

    >>> import numpy
    >>> from fnet.compat import functions as F
    >>> class Affine(Link):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.W = Parameter(numpy.eye(2, dtype=numpy.float32))
    ...             self.b = Parameter(0, (2,))
    ...     def forward(self, x):
    ...         return F.linear(x, self.W, self.b)
    >>> link = Affine()
    >>> [name for name, _ in link.namedparams()]
    ['/W', '/b']
    >>> link(numpy.ones((1, 2), numpy.float32)).array
    array([[1., 1.]], dtype=float32)
    """

    _device: backend.Device = CpuDevice()  # Chainer's device classes (fnet's devices too)
    _local_link_hooks: dict | None = None
    _init_done = False

    def __init__(self, **params: Any) -> None:
        self._params: set[str] = set()
        self._persistent: set[str] = set()
        self._within_init_scope = False
        self.name: str | None = None
        self._init_done = True
        for name, value in params.items():
            shape, dtype = _shape_and_dtype(name, value)
            self.add_param(name, shape, dtype=dtype)

    def _check_init_done(self) -> None:
        if not self._init_done:
            # exactly Chainer's words: its tests match the whole message (so no hint here:
            # the fix is to call super().__init__() at the start of __init__)
            raise RuntimeError("Link.__init__() has not been called.")

    # -- text -----------------------------------------------------------------------------
    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(keyword, value)`` pairs shown by ``str(link)``: none here; links with
        constructor arguments (``in_size=...``) override it."""
        return iter(())

    def __str__(self) -> str:
        specs = ", ".join(f"{k}={v}" for k, v in self.printable_specs)
        return f"{type(self).__name__}({specs})"

    # -- registration ---------------------------------------------------------------------
    @property
    def within_init_scope(self) -> bool:
        """True inside ``with self.init_scope():``, where assigned Parameters (and, for
        chains, links) are registered."""
        return getattr(self, "_within_init_scope", False)

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """A ``with`` block in which assigning a ``Parameter`` (or, in a Chain, a Link) to an
        attribute registers it; outside it, attributes are plain."""
        self._check_init_done()
        old = self.within_init_scope
        self._within_init_scope = True
        try:
            yield
        finally:
            self._within_init_scope = old

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Parameter) and self.within_init_scope:
            value.name = name
            self._params.add(name)
            self._persistent.discard(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._params.discard(name)
        self._persistent.discard(name)
        super().__delattr__(name)

    def add_param(self, name: str, shape=None, dtype=numpy.float32, initializer=None) -> None:
        """Register a new parameter ``name`` of ``shape`` (uninitialized if None), filled by
        ``initializer`` (NaN of ``dtype`` when None; an array or a scalar fills it)."""
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new parameter {name}: attribute exists\n"
                f"  hint: {type(self).__name__}.{name} is already set; choose another name or delete it first"
            )
        if initializer is None:
            initializer = initializers.NaN(dtype)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Register ``value`` as the persistent ``name`` (an attribute saved and loaded with the link)."""
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new persistent value {name}: attribute exists\n"
                f"  hint: use register_persistent({name!r}) to make the existing attribute persistent"
            )
        self._persistent.add(name)
        self._params.discard(name)
        self.__dict__[name] = value

    def register_persistent(self, name: str) -> None:
        """Make the existing attribute ``name`` persistent (it stops being a parameter)."""
        if not hasattr(self, name):
            raise AttributeError(
                f"cannot register non-existent attribute {name} as a persistent value\n"
                f"  hint: set self.{name} first, or use add_persistent({name!r}, value)"
            )
        self._persistent.add(name)
        self._params.discard(name)

    # -- the hierarchy --------------------------------------------------------------------
    def _named_children(self) -> Iterator[tuple[str, Link]]:
        """The child links with their names, in the order of ``namedparams``."""
        return iter(())

    def _child(self, name: str, where: str) -> Link:
        """The child named ``name`` (of the source link of ``copyparams`` or ``addgrads``)."""
        for child_name, child in self._named_children():
            if child_name == name:
                return child
        raise KeyError(f"{where}: the source link {type(self).__name__} has no child link {name!r}")

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """Every parameter of the hierarchy: this link's (sorted by name), then its children's."""
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield d[name]
        for _, child in self._named_children():
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(path, parameter)`` pairs of the hierarchy, paths like ``'/l1/W'``."""
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield "/" + name, d[name]
        for child_name, child in self._named_children():
            prefix = "/" + child_name
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """Every link of the hierarchy, this one first unless ``skipself``."""
        if not skipself:
            yield self
        for _, child in self._named_children():
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """``(path, link)`` pairs of the hierarchy: ``('/', self)`` unless ``skipself``, then ``'/l1'``..."""
        if not skipself:
            yield "/", self
        for child_name, child in self._named_children():
            prefix = "/" + child_name
            yield prefix, child
            for path, link in child.namedlinks(True):
                yield prefix + path, link

    def children(self) -> Iterator[Link]:
        """The child links (none for a plain Link)."""
        for _, child in self._named_children():
            yield child

    def count_params(self) -> int:
        """The number of scalars in all initialized parameters (warns about uninitialized ones)."""
        size = 0
        for path, param in self.namedparams():
            if param.array is None:
                warnings.warn(
                    f"Parameter '{path}' has not been initialized, so the resulting count will not "
                    "include the number of parameters in it.",
                    stacklevel=2,
                )
                continue
            size += param.size
        return size

    # -- copies ---------------------------------------------------------------------------
    def copy(self, mode: str = "share") -> Link:
        """A copy of the hierarchy. ``'share'``: new link objects whose parameters share this
        one's arrays (grads cleared, ``name`` reset); ``'copy'``: a deep copy; ``'init'``: a
        deep copy whose initialized parameters are drawn again from their initializers."""
        _check_copy_mode(f"{type(self).__name__}.copy", mode)
        if mode == "share":
            ret = _copy.copy(self)
            ret._params = set(self._params)
            ret._persistent = set(self._persistent)
            ret.name = None
            if self._local_link_hooks is not None:
                ret._local_link_hooks = dict(self._local_link_hooks)
            d = ret.__dict__
            for name in ret._params:
                d[name] = _copy_param(d[name], None)
            ret._share_children()
            return ret
        # The children are copied first (they may override copy) and the parameters by
        # _copy_param; the deep copy of the rest then refers to those copies.
        memo: dict = {id(child): child.copy(mode) for child in self.children()}
        for name in self._params:
            param = self.__dict__[name]
            memo[id(param)] = _copy_param(param, memo)
        ret = _copy.deepcopy(self, memo)
        if mode == "init":  # the children drew theirs in their own copy
            for name in ret._params:
                param = ret.__dict__[name]
                if param.array is not None:
                    param.initialize(param.shape)
        return ret

    def _share_children(self) -> None:
        """Replace the children of this fresh shallow copy by shared copies of them."""

    def repeat(self, n_repeat: int, mode: str = "init"):
        """A ``Sequential`` of ``n_repeat`` copies of this link, made with ``copy(mode)``."""
        ret = _Sequential()
        if n_repeat <= 0:
            return ret
        _check_copy_mode(f"{type(self).__name__}.repeat", mode)
        for _ in range(n_repeat):
            ret.append(self.copy(mode))
        return ret

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copy the arrays of ``link``'s parameters (same hierarchy) into this one's, across
        devices; also the persistents unless ``copy_persistent`` is False (arrays in place,
        other values deep-copied). Gradients are not copied."""
        src, dst = link.__dict__, self.__dict__
        for name in self._params:
            dst[name].copydata(src[name])
        if copy_persistent:
            for name in self._persistent:
                d, s = dst[name], src[name]
                if _is_ndarray(d) and _is_ndarray(s):
                    d[...] = backend.to_device(s, backend.get_device_from_array(d))
                else:
                    dst[name] = _copy.deepcopy(s)
        for name, child in self._named_children():
            child.copyparams(link._child(name, "copyparams"), copy_persistent)

    # -- gradients and updates ------------------------------------------------------------
    def cleargrads(self) -> None:
        """Set every parameter's gradient to None (call it before each backward)."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Set every parameter's gradient to zeros (deprecated: use ``cleargrads``)."""
        warnings.warn(
            "Link.zerograds is deprecated. Use Link.cleargrads instead.", DeprecationWarning, stacklevel=2
        )
        for param in self.params():
            param.zerograd()

    def addgrads(self, link: Link) -> None:
        """Add the gradients of ``link``'s parameters (same hierarchy) to this one's."""
        src, dst = link.__dict__, self.__dict__
        for name in self._params:
            dst[name].addgrad(src[name])
        for name, child in self._named_children():
            child.addgrads(link._child(name, "addgrads"))

    def enable_update(self) -> None:
        """Turn on the update rules of all parameters (set by an optimizer's ``setup``)."""
        self._set_update(True)

    def disable_update(self) -> None:
        """Turn off the update rules of all parameters: the optimizer leaves them as they are."""
        self._set_update(False)

    def _set_update(self, enabled: bool) -> None:
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = enabled

    @property
    def update_enabled(self) -> bool:
        """True if at least one parameter has an enabled update rule."""
        return any(p.update_rule is not None and p.update_rule.enabled for p in self.params())

    # -- serialization --------------------------------------------------------------------
    def serialize(self, serializer) -> None:
        """Save or load the parameters and persistents with a Chainer serializer.

        ``serializer(name, value)`` returns the value read (when loading); an uninitialized
        parameter is initialized with the loaded shape; each child gets ``serializer[name]``.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                param.initialize(data.shape)
                target = from_chx(param.array)  # a ChainerX array's data takes the assignment
                target[...] = backend.to_device(data, backend.get_device_from_array(target))
        for name in sorted(self._persistent):
            d[name] = serializer(name, d[name])
        for name, child in self._named_children():
            child.serialize(serializer[name])

    # -- bridges to the pure API ----------------------------------------------------------
    def _tree(self, own, keep_empty: bool) -> dict:
        """A nested dict: ``own(link)``'s entries, then each child's subtree under its name
        (children with an empty subtree only if ``keep_empty``)."""
        out = own(self)
        for name, child in self._named_children():
            sub = child._tree(own, keep_empty)
            if sub or keep_empty:
                out[name] = sub
        return out

    def params_tree(self) -> dict:
        """The parameters' arrays as a nested dict keyed like ``namedparams``: ``{'l1': {'W':
        ..., 'b': ...}}``; children of a ChainList or Sequential are keyed ``'0'``, ``'1'``...

        The arrays are the live ones (not copies); an uninitialized parameter gives None.
        ``fnet.tree.path_str`` of a leaf's path is its ``namedparams`` name without the
        leading ``/``, the key of ``fnet.nn`` params and of checkpoints.
        """
        return self._tree(lambda link: {n: link.__dict__[n].array for n in sorted(link._params)}, True)

    def grads_tree(self) -> dict:
        """The parameters' gradients, structured like ``params_tree()`` (None where no grad)."""
        return self._tree(lambda link: {n: _grad_of(link.__dict__[n]) for n in sorted(link._params)}, True)

    def state_tree(self) -> dict:
        """The persistent values as a nested dict (links without persistents left out), like
        the state trees of ``fnet.nn`` layers (``{'bn': {'avg_mean': ..., 'N': ...}}``)."""
        return self._tree(lambda link: {n: link.__dict__[n] for n in sorted(link._persistent)}, False)

    def set_params_tree(self, tree: dict) -> None:
        """Write the arrays of ``tree`` (structured like ``params_tree()``) into the parameters.

        An array of the parameter's shape and dtype is copied into the current array in place
        (so links sharing it with ``copy('share')`` see it); any other array replaces it, and
        an uninitialized parameter takes it. A None leaf leaves the parameter unchanged.
        A tree of another structure raises ``TreeStructureError`` naming the first differing path.
        """
        _check_structure("set_params_tree", self.params_tree(), tree)
        for path, param in self.namedparams():
            value = _get_path(tree, path)
            if value is None:
                continue
            value = _leaf_array("set_params_tree", path, value)
            current = param.array
            if current is not None and current.shape == value.shape and current.dtype == value.dtype:
                current[...] = backend.to_device(value, param.device)
            else:  # a new shape: the old grad means nothing any more
                param.cleargrad()
                param.array = value

    def set_state_tree(self, tree: dict) -> None:
        """Write the values of ``tree`` (structured like ``state_tree()``) into the persistents:
        arrays of the same shape and dtype in place, other values by replacement."""
        _check_structure("set_state_tree", self.state_tree(), tree)
        for path, link in self.namedlinks():
            d = link.__dict__
            for name in link._persistent:
                value = _get_path(tree, f"{path.rstrip('/')}/{name}")
                current = d[name]
                if isinstance(value, Variable):
                    value = value.array
                if (
                    _is_ndarray(current)
                    and _is_ndarray(value)
                    and (current.shape, current.dtype)
                    == (
                        value.shape,
                        value.dtype,
                    )
                ):
                    current[...] = backend.to_device(value, backend.get_device_from_array(current))
                else:
                    d[name] = value

    # -- devices --------------------------------------------------------------------------
    @property
    def device(self) -> backend.Device:
        """The device the link's parameters and persistent arrays live on."""
        return self._device

    @property
    def xp(self):
        """The array module of the link's device (``numpy`` or ``cupy``)."""
        return self._device.xp

    def device_resident_accept(self, visitor) -> None:
        """Let ``visitor`` visit this link, its parameters and persistent arrays, then the
        children. Links holding other arrays (recurrent states) override it to visit them too."""
        visitor.visit_device_resident(self)
        d = self.__dict__
        for name in sorted(self._params):
            visitor.visit_variable(d[name])
        for name in sorted(self._persistent):
            if _is_ndarray(d[name]):
                d[name] = visitor.visit_array(d[name])
        for _, child in self._named_children():
            child.device_resident_accept(visitor)

    def to_device(self, device) -> Link:
        """Move the parameters and persistent arrays of the hierarchy to ``device``
        (``'@numpy'``, ``'@cupy:0'``, a Device...); returns self."""
        self.device_resident_accept(_ToDevice(get_device(device)))
        return self

    def to_cpu(self) -> Link:
        """Move the hierarchy to the host (deprecated: use ``to_device('@numpy')``); returns self."""
        warnings.warn(
            "to_cpu is deprecated. Please use to_device('@numpy') instead.", DeprecationWarning, stacklevel=2
        )
        self.device_resident_accept(_ToDevice(CpuDevice(), entry=("to_cpu", {}), start=self))
        return self

    def to_intel64(self) -> Link:
        """Move the hierarchy to iDeep's arrays (deprecated: use ``to_device('@intel64')``);
        a RuntimeError where iDeep is not installed; returns self."""
        warnings.warn(
            "to_intel64 is deprecated. Please use to_device('@intel64') instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        intel64.check_ideep_available()
        visitor = _ToDevice(intel64.Intel64Device(), entry=("to_intel64", {}), start=self)
        self.device_resident_accept(visitor)
        return self

    def to_chx(self) -> Link:
        """Present the parameters and persistent arrays of the hierarchy as ChainerX arrays over
        the same memory (``native:0`` for NumPy); nothing if they are; returns self."""
        if not isinstance(self._device, ChainerxDevice):
            target = ChainerxDevice.from_fallback_device(self._device)
            self.device_resident_accept(_ToDevice(target, entry=("to_chx", {})))
        return self

    def from_chx(self) -> Link:
        """Present them as NumPy/CuPy arrays again (the same memory); returns self."""
        if isinstance(self._device, ChainerxDevice):
            self.device_resident_accept(_ToDevice(self._device.fallback_device, entry=("from_chx", {})))
        return self

    @property
    def _device_id(self):
        """The id of the GPU the link lives on, or None (deprecated in Chainer: use ``device``)."""
        warnings.warn(
            "Link._device_id is left only for backward compatibility and likely to be removed. "
            "Use Link.device instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        device = self._device
        return device.id if isinstance(device, backend.GpuDevice) else None

    def to_gpu(self, device=None) -> Link:
        """Move the hierarchy to a GPU (the current one if ``device`` is None); arrays already
        on a GPU stay where they are (deprecated: use ``to_device('@cupy:N')``); returns self."""
        warnings.warn(
            "to_gpu is deprecated. Please use to_device('@cupy:N') instead.", DeprecationWarning, stacklevel=2
        )
        cupy = backend.GpuDevice().xp  # a RuntimeError with a hint when CuPy or a GPU is missing
        ident = cupy.cuda.Device().id if device is None else getattr(device, "id", device)
        device = get_device(int(ident))
        visitor = _ToDevice(device, skip_gpu_arrays=True, entry=("to_gpu", {"device": device.id}), start=self)
        self.device_resident_accept(visitor)
        return self

    # -- calling and hooks ----------------------------------------------------------------
    @property
    def local_link_hooks(self) -> dict:
        """The hooks registered to this link with ``add_hook``, by name, in order."""
        if self._local_link_hooks is None:
            self._local_link_hooks = {}
        return self._local_link_hooks

    def add_hook(self, hook: LinkHook, name: str | None = None) -> Link:
        """Register ``hook`` on this link under ``name`` (default: ``hook.name``); returns self."""
        if not isinstance(hook, LinkHook):
            raise TypeError(
                f"{type(self).__name__}.add_hook: Hook must be of type LinkHook, got {type(hook).__name__}\n"
                "  hint: derive the hook from chainer.LinkHook"
            )
        if name is None:
            name = hook.name
        hooks = self.local_link_hooks
        if name in hooks:
            raise KeyError(f"Hook {name} already exists (pass another name to add_hook)")
        hooks[name] = hook
        hook.added(self)
        return self

    def delete_hook(self, name: str) -> None:
        """Unregister the hook registered on this link under ``name``."""
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(f"Hook {name} does not exist (registered: {list(hooks)})")
        hooks[name].deleted(self)
        del hooks[name]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _FINAL_METHODS:
            if name in vars(cls):
                raise TypeError(
                    f"{cls.__name__} overrides Link.{name}, which cannot be overridden (as in Chainer)\n"
                    "  hint: override device_resident_accept to move other arrays along"
                )
        for name in _DEPRECATED_OVERRIDES:
            if name in vars(cls):
                warnings.warn(
                    f"{cls.__name__} overrides Link.{name}, which is deprecated: override "
                    "device_resident_accept instead",
                    DeprecationWarning,
                    stacklevel=2,
                )
        cls._overridden_to_methods = tuple(
            name for name in _DEPRECATED_OVERRIDES if getattr(cls, name) is not getattr(Link, name)
        )
        # a flag, not the method itself: an abstract mixin __call__ in the class dictionary
        # would make the class abstract
        cls._calls_mixin = _mixin_call(cls) is not None

    _overridden_to_methods: tuple = ()
    _calls_mixin = False  # a class after Link in the MRO (a mixin) defines __call__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._init_done:
            self._check_init_done()
        # Chainer runs a mixin's __call__ instead of forward
        forward = super().__call__ if self._calls_mixin else getattr(self, "forward", None)
        if forward is None:
            raise AttributeError(
                f"{type(self).__name__}: calling a link runs its forward method, which it does not define\n"
                "  hint: define forward(self, ...) (or call another method of the link)"
            )
        hooks = active_link_hooks(self._local_link_hooks)
        if not hooks:
            return forward(*args, **kwargs)
        pre = ForwardPreprocessCallbackArgs(self, "forward", args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        out = forward(*args, **kwargs)
        post = ForwardPostprocessCallbackArgs(self, "forward", args, kwargs, out)
        for hook in hooks:
            hook.forward_postprocess(post)
        return out


def _mixin_call(cls: type):
    """A ``__call__`` that a class after Link in ``cls``'s MRO (a mixin) defines: Chainer runs
    it instead of ``forward``."""
    mro = cls.__mro__
    for base in mro[mro.index(Link) + 1 :]:
        if "__call__" in vars(base):
            return vars(base)["__call__"]
    return None


def _get_path(tree: dict, path: str):
    """The entry of a nested dict at a ``namedparams``-style path (``'/l1/W'``)."""
    node = tree
    for key in path.strip("/").split("/"):
        node = node[key]
    return node


def _leaf_array(where: str, path: str, value):
    if isinstance(value, Variable):
        return value.array
    if not _is_ndarray(value):
        raise TypeError(
            f"Link.{where}: expected an array at {path.strip('/')!r}, got {aval(value)}\n"
            "  hint: pass NumPy or CuPy arrays (e.g. the tree params_tree() returns, updated)"
        )
    return value


def _check_structure(where: str, expected: dict, given) -> None:
    """Raise TreeStructureError where ``given`` first differs from ``expected`` (any array,
    Variable, number or None counts as a leaf on both sides)."""

    def is_leaf(x):
        return not isinstance(x, dict)

    if _tree.first_difference(expected, given, is_leaf=is_leaf) is not None:
        raise _tree.structure_mismatch(f"Link.{where}", expected, given, ("link", "tree"), is_leaf=is_leaf)


class Chain(Link):
    """A link with named child links, registered by assignment inside ``init_scope``.

    >>> class Pair(Chain):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.a = Link(W=(2, 3))
    ...             self.b = Link(W=(3,))
    >>> [path for path, _ in Pair().namedparams()]
    ['/a/W', '/b/W']
    >>> sorted(Pair().params_tree())
    ['a', 'b']

    ``Chain(l1=link1, l2=link2)`` registers the keyword arguments as children (Chainer v1 style).
    """

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self._children: set[str] = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __str__(self) -> str:
        return _nested_str(self, ((child.name, child) for child in self.children()))

    def __getitem__(self, name: str) -> Any:
        """The attribute ``name`` (a child link, usually): ``chain['l1']`` is ``chain.l1``."""
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Link) and self.within_init_scope:
            if hasattr(self, name):
                raise AttributeError(
                    f"cannot register a new link {name}: attribute exists\n"
                    f"  hint: {type(self).__name__}.{name} is already set; use another name"
                )
            value.name = name
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def add_link(self, name: str, link: Link) -> None:
        """Register ``link`` as the child ``name`` (also the attribute name)."""
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new link {name}: attribute exists\n"
                f"  hint: {type(self).__name__}.{name} is already set; use another name"
            )
        if not isinstance(link, Link):
            raise TypeError(
                f"cannot register a non-link object as a child: {name!r} is a {type(link).__name__}\n"
                "  hint: wrap plain functions in a Link, or keep them as ordinary attributes"
            )
        with self.init_scope():
            setattr(self, name, link)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        d = self.__dict__
        for name in sorted(self._children):
            yield name, d[name]

    def _share_children(self) -> None:
        self._children = set(self._children)
        d = self.__dict__
        for name in self._children:
            d[name] = d[name].copy("share")
            d[name].name = name


class ChainList(Link, collections.abc.MutableSequence):
    """A link whose children form a list: ``ChainList(link0, link1, ...)``, ``append``,
    ``add_link``, indexing and slicing, ``len`` and iteration. Children are named ``'0'``,
    ``'1'``... by position (the keys of ``namedparams`` and of saved files).

    >>> layers = ChainList(Link(W=(2,)), Link(W=(3,)))
    >>> layers.append(Link(W=(4,)))
    >>> len(layers), [path for path, _ in layers.namedparams()]
    (3, ['/0/W', '/1/W', '/2/W'])
    """

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self._children: list[Link] = []
        for link in links:
            self.add_link(link)

    def __str__(self) -> str:
        return _nested_str(self, enumerate(self._children))

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Link) and self.within_init_scope:
            raise TypeError(
                'cannot register a new link within a "with chainlist.init_scope():" block.\n'
                "  hint: add child links to a ChainList with append() or add_link()"
            )
        super().__setattr__(name, value)

    def __getitem__(self, index):
        """The child at ``index`` (a list of children for a slice)."""
        return self._children[index]

    def __setitem__(self, index, value) -> None:
        if isinstance(index, slice):
            value = list(value)
            for link in value:
                _check_link("ChainList.__setitem__", link)
            self._children[index] = value
        elif isinstance(index, int):
            _check_link("ChainList.__setitem__", value)
            self._children[index] = value
        else:
            raise TypeError(f"ChainList indices must be integers or slices, not {type(index).__name__}")
        self._rename()

    def __delitem__(self, index) -> None:
        del self._children[index]
        self._rename()

    def insert(self, index: int, link: Link) -> None:
        """Insert ``link`` as a child before position ``index``."""
        _check_link("ChainList.insert", link)
        self._children.insert(index, link)
        self._rename()

    def _rename(self) -> None:
        for i, child in enumerate(self._children):
            child.name = str(i)

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def __len__(self) -> int:
        """The number of children."""
        return len(self._children)

    def add_link(self, link: Link) -> None:
        """Append ``link`` as the last child."""
        self.append(link)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        for i, child in enumerate(self._children):
            yield str(i), child

    def _share_children(self) -> None:
        self._children = [child.copy("share") for child in self._children]
        self._rename()


def _check_link(where: str, link) -> None:
    if not isinstance(link, Link):
        raise TypeError(
            f"{where}: a ChainList holds links, got {type(link).__name__}\n"
            "  hint: use chainer.Sequential to mix links and plain functions"
        )


def _nested_str(link: Link, items) -> str:
    """``Cls(`` then one indented ``(key): str(child),`` entry per child, then ``)``."""
    lines = []
    for key, child in items:
        lines.extend(f"  {line}\n" for line in f"({key}): {child},".splitlines())
    body = "".join(lines)
    return f"{type(link).__name__}(\n{body})" if body else f"{type(link).__name__}()"


def persistent_array_slots(link: Link) -> list:
    """``(link, name)`` of each persistent value of ``link`` and its links that is an array, in
    a fixed order (what a recording of the link's computation takes in and gives back)."""
    slots = []
    for sub in link.links():
        for name in sorted(getattr(sub, "_persistent", ())):
            if backend.is_array(getattr(sub, name, None)):
                slots.append((sub, name))
    return slots
