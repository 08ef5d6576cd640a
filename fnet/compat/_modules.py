"""Chainer's module tree, where a module only gathers names fnet keeps elsewhere.

Chainer spreads its API over hundreds of small modules (``chainer.functions.activation.relu``,
``chainer.links.connection.linear``...) that programs and tests import by path. fnet keeps each
concept in one place, so most of those modules would hold nothing of their own: they are
declared here instead, and made when first imported.

    declare("fnet.compat.functions.activation.relu", lambda: {"relu": relu, "ReLU": ReLU})

makes ``import fnet.compat.functions.activation.relu`` (and, through the alias,
``chainer.functions.activation.relu``) give a module holding those names. The names are looked
up when the module is made, so a declaration imports nothing. Every module above a declared one
is a package: a declared one is made empty if it has no declaration of its own, and a real one
(a file of fnet.compat) calls :func:`adopt` to reach its declared submodules as attributes, as
``import chainer.functions`` lets a program write ``chainer.functions.activation.relu.ReLU``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Mapping

__all__ = ["declare", "adopt", "declared"]

_CONTENTS: dict[str, Callable[[], Mapping[str, object]] | None] = {}
_PACKAGES: set[str] = set()  # every module name with a declared module below it


def declare(name: str, contents: Callable[[], Mapping[str, object]] | None = None) -> None:
    """Make the module ``name`` importable, holding the names ``contents()`` gives (none: empty)."""
    if contents is not None or name not in _CONTENTS:
        _CONTENTS[name] = contents
    parts = name.split(".")
    for i in range(1, len(parts)):
        _PACKAGES.add(".".join(parts[:i]))


def declared(prefix: str = "") -> list[str]:
    """The declared module names that start with ``prefix``, sorted."""
    return sorted(n for n in _CONTENTS if n.startswith(prefix))


def _submodule_getattr(package: str, fallback=None):
    """A module ``__getattr__`` that imports the declared submodule ``package.<name>``."""

    def __getattr__(name: str):
        child = f"{package}.{name}"
        if child in _CONTENTS or child in _PACKAGES:
            return importlib.import_module(child)
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def adopt(namespace: dict) -> None:
    """Let the real module whose ``globals()`` is ``namespace`` hold declared submodules: it gets a
    package path if it is a plain module, and a ``__getattr__`` that imports them on first use."""
    name = namespace["__name__"]
    namespace.setdefault("__path__", [])
    namespace["__getattr__"] = _submodule_getattr(name, namespace.get("__getattr__"))


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module) -> None:
        name = module.__name__
        contents = _CONTENTS.get(name)
        if contents is not None:
            module.__dict__.update(contents())
        module.__doc__ = (
            f"Chainer's module ``{name.replace('fnet.compat', 'chainer', 1)}``, made by fnet.compat."
        )
        if "__all__" not in module.__dict__:
            module.__all__ = sorted(k for k in module.__dict__ if not k.startswith("_"))
        if name in _PACKAGES:
            module.__getattr__ = _submodule_getattr(name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in _CONTENTS and fullname not in _PACKAGES:
            return None
        # Files come first (this finder is the last one): a declared name is made only when
        # fnet.compat has no file of that name.
        is_package = fullname in _PACKAGES
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=is_package)


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.append(_Finder())
