"""Chainer's ``Sequential``: links and plain functions called one after another.

Its links are its children, as in a ChainList, named by their position in the list of
children (``'0'``, ``'1'``, ...: the keys of ``namedparams`` and of saved files). Chainer
places a link inserted after position 0 right after the *first* link that precedes it, not
the last, so from the third link on the children's order differs from the layers' order:
``Sequential(A, B, C)`` has children ``[A, C, B]`` and ``C``'s parameters are ``/1/W``...
This is reproduced, so that files written by Chainer load here and back.
"""

from __future__ import annotations

import copy as _copy
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from . import link as _link
from .link import ChainList, Link

__all__ = ["Sequential"]


def _layer_type(layer) -> str:
    """The name ``count_by_layer_type`` and ``remove_by_layer_type`` match: a link's class
    name, a function's ``__name__``."""
    return type(layer).__name__ if isinstance(layer, Link) else layer.__name__


class Sequential(ChainList):
    """Layers (links, or any callables such as ``F.relu``) applied in turn by ``forward``.

    It works like a list of layers (``append``, ``insert``, ``pop``, ``remove``, indexing,
    ``+``) and, for its links, like a ChainList (``params``, ``copy``, ``serialize``...).
    A layer's output goes to the next one; a tuple output is spread as its arguments.

    >>> from fnet.compat import functions as F
    >>> model = Sequential(Link(W=(2,)), F.relu, Link(b=(3,)))
    >>> len(model), model.count_by_layer_type("relu"), [p for p, _ in model.namedparams()]
    (3, 1, ['/0/W', '/1/b'])
    """

    def __init__(self, *layers: Callable) -> None:
        super().__init__()
        self._layers: list = []
        for layer in layers:
            self.append(layer)

    # -- the list of layers ---------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._layers)

    def __getitem__(self, i):
        """The layer at ``i`` (a list of layers for a slice)."""
        return self._layers[i]

    def __setitem__(self, i: int, layer: Callable) -> None:
        if i >= len(self):
            raise ValueError(f"{i} should be less than {len(self)} (Sequential.__setitem__ replaces a layer)")
        _check_callable("Sequential.__setitem__", layer)
        if self._layers[i] is not layer:
            del self[i]
            self.insert(i, layer)

    def __delitem__(self, i: int) -> None:
        layer = self._layers.pop(i)
        if isinstance(layer, Link):
            self._children = [c for c in self._children if c is not layer]
            self._rename()

    def __iter__(self) -> Iterator:
        return iter(self._layers)

    def __reversed__(self) -> Iterator:
        return reversed(self._layers)

    def __contains__(self, item) -> bool:
        return item in self._layers

    def __add__(self, other: Sequential) -> Sequential:
        _check_sequential("+", other)
        return Sequential(*self._layers, *other._layers)

    def __iadd__(self, other: Sequential) -> Sequential:
        _check_sequential("+=", other)
        self.extend(other)
        return self

    def insert(self, i: int, layer: Callable) -> None:
        """Insert ``layer`` before position ``i`` (negative positions count from the end)."""
        n = len(self._layers)
        if not -n <= i < n + 1:
            raise IndexError(f"Index out of range: {i} (Sequential.insert takes -{n} <= i <= {n})")
        if i < 0:
            i += n
        _check_callable("Sequential.insert", layer)
        self._layers.insert(i, layer)
        if isinstance(layer, Link):
            before = [j for j in range(i) if isinstance(self._layers[j], Link)]
            # Chainer's rule: after the *first* earlier link, counted in layer positions.
            self._children.insert(before[0] + 1 if before else min(i, 1), layer)
            self._rename()

    def append(self, layer: Callable) -> None:
        """Add ``layer`` at the end."""
        self.insert(len(self), layer)

    def extend(self, sequential) -> None:
        """Append every layer of ``sequential`` (any iterable of layers)."""
        for layer in sequential:
            self.append(layer)

    def remove(self, layer: Callable) -> None:
        """Remove the first occurrence of ``layer``."""
        if layer not in self:
            raise ValueError(f"There is no layer object that is same as {layer}")
        del self[self.index(layer)]

    def remove_by_layer_type(self, type_name: str) -> None:
        """Remove every layer whose class name (links) or function name is ``type_name``."""
        for layer in [x for x in self._layers if _layer_type(x) == type_name]:
            self.remove(layer)

    def pop(self, i: int = -1) -> Callable:
        """Remove and return the layer at ``i`` (the last by default)."""
        layer = self._layers[i]
        del self[i]
        return layer

    def clear(self) -> None:
        """Remove every layer."""
        self._layers = []
        self._children = []

    def index(self, layer: Callable, start: int | None = None, end: int | None = None) -> int:
        """The position of ``layer`` in ``self[start:end]``."""
        return self._layers[start:end].index(layer)

    def count(self, layer: Callable) -> int:
        """How many times ``layer`` occurs."""
        return self._layers.count(layer)

    def count_by_layer_type(self, type_name: str) -> int:
        """How many layers have the class name (links) or function name ``type_name``."""
        return sum(_layer_type(layer) == type_name for layer in self._layers)

    def flatten(self) -> Sequential:
        """A new Sequential in which nested Sequentials are replaced by their layers."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    # -- links ----------------------------------------------------------------------------
    def copy(self, mode: str = "share") -> Sequential:
        """A new Sequential of ``layer.copy(mode)`` for links and shallow copies of functions."""
        return Sequential(
            *(layer.copy(mode) if isinstance(layer, Link) else _copy.copy(layer) for layer in self._layers)
        )

    def copyparams(self, link: Sequential, copy_persistent: bool = True) -> None:
        """Copy the parameters of the links of ``link`` (a Sequential), position by position."""
        if not isinstance(link, Sequential):
            raise ValueError(
                "Objects other than Sequential object cannot be copied to a Sequential object "
                f"(got {type(link).__name__})"
            )
        for i, layer in enumerate(self._layers):
            if isinstance(layer, Link):
                layer.copyparams(link[i], copy_persistent)

    def forward(self, *x: Any) -> Any:
        """``x`` through every layer in turn (a tuple result is passed on as arguments)."""
        if not self._layers:
            raise RuntimeError("Sequential does not have any layer.\n  hint: append layers before calling it")
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x

    # -- text and pickling ----------------------------------------------------------------
    def __str__(self) -> str:
        lines = []
        for i, layer in enumerate(self._layers):
            text = inspect.getsource(layer).strip().rstrip(",") if _is_lambda(layer) else str(layer)
            lines.extend(f"  {line}\n" for line in f"({i}): {text},".splitlines())
        body = "".join(lines)
        return f"{type(self).__name__}(\n{body})" if body else f"{type(self).__name__}()"

    def __reduce__(self):
        if any(_is_lambda(layer) for layer in self._layers):
            raise ValueError(
                "This Sequential object has at least one lambda function as its component, and "
                "lambda functions cannot be pickled.\n"
                "  hint: use functools.partial (or a def function) instead of the lambda"
            )
        return super().__reduce__()


def _is_lambda(layer) -> bool:
    return getattr(layer, "__name__", None) == "<lambda>"


def _check_callable(where: str, layer) -> None:
    if not callable(layer):
        raise ValueError(
            f"{where}: All elements of a Sequential should be callable, but {layer!r} is not callable.\n"
            "  hint: pass links or functions such as F.relu (not their results)"
        )


def _check_sequential(op: str, other) -> None:
    if not isinstance(other, Sequential):
        raise ValueError(
            f"add ({op}) operator supports only objects of Sequential class, but {type(other)} is given.\n"
            "  hint: wrap the layers in Sequential(...) first"
        )


_link._Sequential = Sequential  # what Link.repeat makes
