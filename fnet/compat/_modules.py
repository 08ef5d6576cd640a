"""Chainer's module tree, where a module only gathers names fnet keeps elsewhere.

Chainer spreads its API over hundreds of small modules (``chainer.functions.activation.relu``,
``chainer.links.connection.linear``...) that programs and tests import by path. fnet keeps each
concept in one place, so most of those modules would hold nothing of their own: they are
declared here instead.

    declare("fnet.compat.functions.activation.relu", lambda: {"relu": relu, "ReLU": ReLU})

puts a module of that name in ``sys.modules`` (and as an attribute of the module above it), so
``import fnet.compat.functions.activation.relu`` (and, through the alias,
``chainer.functions.activation.relu``) finds it as it finds any imported module: no import hook
is installed. Its names are looked up on first use, so a declaration imports nothing. Every
module above a declared one is a package: made empty if fnet.compat has no file of that name,
and given a package path if it is a plain module (``training/extensions.py`` holds
``chainer.training.extensions._snapshot``). A file of fnet.compat always wins over a declaration.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable, Mapping

__all__ = ["declare", "adopt", "declared", "DeclaredModule"]

_CONTENTS: dict[str, Callable[[], Mapping[str, object]] | None] = {}


class DeclaredModule(types.ModuleType):
    """A module of Chainer's tree made by :func:`declare`; its names arrive on first use."""

    def _fill(self) -> None:
        contents = _CONTENTS.get(self.__name__)
        self.__dict__["_filled"] = True
        if contents is not None:
            self.__dict__.update(contents())
        if "__all__" not in self.__dict__:
            self.__all__ = sorted(k for k in self.__dict__ if not k.startswith("_"))

    def __getattr__(self, name: str):
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)
        if not self.__dict__.get("_filled"):
            self._fill()
            if name in self.__dict__:
                return self.__dict__[name]
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __dir__(self):
        if not self.__dict__.get("_filled"):
            self._fill()
        return super().__dir__()


def _is_file(name: str) -> bool:
    """Whether fnet.compat has a file (a real module) of this name."""
    parent = sys.modules.get(name.rpartition(".")[0])
    if isinstance(parent, DeclaredModule):
        return False  # a declared package has no files below it
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _module(name: str, package: bool):
    """The module ``name``: already imported, a file of fnet.compat, or made here."""
    module = sys.modules.get(name)
    if module is None:
        if _is_file(name):
            module = importlib.import_module(name)
        else:
            module = DeclaredModule(
                name, f"Chainer's module ``{name.replace('fnet.compat', 'chainer', 1)}``."
            )
            module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=package)
            module.__package__ = name if package else name.rpartition(".")[0]
            sys.modules[name] = module
            parent, _, last = name.rpartition(".")
            if not hasattr(sys.modules[parent], last):  # a name the parent has stays its own
                setattr(sys.modules[parent], last, module)
    if package and not hasattr(module, "__path__"):
        module.__path__ = []
        if module.__spec__ is not None:
            module.__spec__.submodule_search_locations = []
    return module


def declare(name: str, contents: Callable[[], Mapping[str, object]] | None = None) -> None:
    """Make the module ``name`` importable, holding the names ``contents()`` gives (none: empty).

    Every level above it is made a package first (``fnet.compat`` and the files of fnet.compat
    on the way are imported)."""
    if contents is not None or name not in _CONTENTS:
        _CONTENTS[name] = contents
    parts = name.split(".")
    for i in range(2, len(parts)):
        _module(".".join(parts[:i]), package=True)
    _module(name, package=False)


def declared(prefix: str = "") -> list[str]:
    """The declared module names that start with ``prefix``, sorted."""
    return sorted(n for n in _CONTENTS if n.startswith(prefix))


def adopt(namespace: dict) -> None:
    """Let the real module whose ``globals()`` is ``namespace`` hold declared submodules (it gets
    a package path if it is a plain module). ``declare`` does this itself for every module above
    a declared one; a module may call it to be a package before any declaration reaches it."""
    namespace.setdefault("__path__", [])
