"""``install_alias()``: make ``import chainer`` (and every ``chainer.x.y``) give fnet's modules.

An import hook maps each module name ``chainer.x.y`` to ``fnet.compat.x.y`` (and the modules
Chainer moved, ``chainer.cuda`` and ``chainer.function_hook``, to where fnet keeps them), so
``import chainer.functions as F``, ``from chainer import training`` and ``from
chainer.training import extensions`` all resolve inside fnet, for modules imported before or
after the call. The modules are the same objects under both names (an old path, once
imported, is also an attribute of its parent: ``chainer.cuda``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install_alias"]

_ALIAS = "chainer"
_PACKAGE = "fnet.compat"
_MOVED = {  # Chainer's old module paths that v7 still accepts
    "chainer.cuda": "fnet.compat.backends.cuda",
    "chainer.function_hook": "fnet.compat.function_hooks",
}
# packages shipped with Chainer 7, beside `chainer`
_BESIDE = {"chainermn": "fnet.compat.chainermn", "onnx_chainer": "fnet.compat.onnx_chainer"}


def _aliased(fullname: str) -> bool:
    """Whether ``fullname`` is a module name that the alias answers for."""
    return any(fullname == top or fullname.startswith(top + ".") for top in (_ALIAS, *_BESIDE))


def _target(fullname: str) -> str:
    """The fnet module that the Chainer module ``fullname`` is."""
    for old, new in (*_MOVED.items(), *_BESIDE.items()):
        if fullname == old or fullname.startswith(old + "."):
            return new + fullname[len(old) :]
    return _PACKAGE + fullname[len(_ALIAS) :]


class _AliasLoader(importlib.abc.Loader):
    """Gives the fnet module itself as the module of the Chainer name."""

    def __init__(self, target: str):
        self._target = target
        self._own_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self._target)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # The import system has just set the alias's spec on the module: give it its own back,
        # so that the module still reports (and reloads as) its fnet name.
        module.__spec__ = self._own_spec


class _ChainerFinder(importlib.abc.MetaPathFinder):
    """Finds ``chainer`` and ``chainer.*`` among fnet.compat's modules."""

    def find_spec(self, fullname, path, target=None):
        if not _aliased(fullname):
            return None
        name = _target(fullname)
        if importlib.util.find_spec(name) is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: fnet.compat has no module {name!r}\n"
                "  hint: this part of Chainer's API is not provided by fnet",
                name=fullname,
            )
        return importlib.util.spec_from_loader(fullname, _AliasLoader(name))


def install_alias() -> None:
    """Make ``chainer`` and every ``chainer.*`` module name refer to ``fnet.compat`` and its
    modules, so that Chainer programs run unchanged. Calling it again does nothing. Unless a
    real ``chainerx`` is installed, ``import chainerx`` (and ``chainerx.*``) finds
    ``fnet.compat.chainerx``, ChainerX on fnet.

    Raises ``RuntimeError`` if the real Chainer is already imported in this process.
    """
    compat = importlib.import_module(_PACKAGE)
    present = sys.modules.get(_ALIAS)
    if present is not None and present is not compat:
        raise RuntimeError(
            f"install_alias: the real Chainer is already imported ({getattr(present, '__file__', present)}), "
            "so 'chainer' cannot also name fnet.compat\n"
            "  hint: call fnet.compat.install_alias() before anything imports chainer, or use "
            "`import fnet.compat as chainer` instead"
        )
    if not any(isinstance(finder, _ChainerFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ChainerFinder())
    sys.modules[_ALIAS] = compat
    if "chainerx" not in sys.modules and importlib.util.find_spec("chainerx") is None:
        _BESIDE["chainerx"] = f"{_PACKAGE}.chainerx"  # and so chainerx.testing, chainerx.creation...
        sys.modules["chainerx"] = importlib.import_module(f"{_PACKAGE}.chainerx")
    for name, module in list(sys.modules.items()):
        if name.startswith(_PACKAGE + "."):
            sys.modules.setdefault(_ALIAS + name[len(_PACKAGE) :], module)
