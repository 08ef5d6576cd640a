"""``install_alias()``: ``import chainer`` and every ``chainer.*`` module resolve inside fnet."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import textwrap
import types

import pytest

import fnet.compat
from fnet.compat._alias import _ChainerFinder, install_alias


def _chainer_names() -> list[str]:
    return [name for name in sys.modules if name == "chainer" or name.startswith("chainer.")]


@pytest.fixture
def alias():
    """Install the alias for one test, then put the finders and module names back as they were."""
    finders = list(sys.meta_path)
    before = {name: sys.modules.pop(name) for name in _chainer_names()}
    install_alias()
    yield
    sys.meta_path[:] = finders
    for name in _chainer_names():
        del sys.modules[name]
    sys.modules.update(before)


def _compat_modules() -> list[str]:
    """Every module of fnet.compat (packages walked), private ones excepted."""
    found = []
    for info in pkgutil.walk_packages(fnet.compat.__path__, "fnet.compat."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return found


def test_every_module_resolves_to_fnets(alias):
    import chainer

    assert chainer is fnet.compat
    modules = _compat_modules()
    assert {"fnet.compat.functions", "fnet.compat.computational_graph", "fnet.compat.backends.cuda"} <= set(
        modules
    )
    for name in modules:
        alias_name = "chainer" + name[len("fnet.compat") :]
        try:
            module = importlib.import_module(name)
        except Exception as error:  # a module that fails to import fails the same way by its alias
            with pytest.raises(type(error)):
                importlib.import_module(alias_name)
            continue
        assert importlib.import_module(alias_name) is module, alias_name
        assert sys.modules[alias_name] is module


def test_import_statements_of_chainer_programs(alias):
    import chainer
    import chainer.functions as F
    from chainer import computational_graph, function_hooks
    from chainer.backends import cuda
    from chainer.function_hooks import TimerHook

    assert F is fnet.compat.functions
    assert function_hooks.TimerHook is TimerHook
    assert computational_graph is fnet.compat.computational_graph
    assert cuda is fnet.compat.backends.cuda
    assert chainer.functions.relu is F.relu


def test_old_module_paths(alias):
    import chainer.cuda
    import chainer.function_hook

    assert chainer.cuda is fnet.compat.backends.cuda
    assert chainer.function_hook.FunctionHook is fnet.compat.function_hooks.FunctionHook


def test_modules_keep_their_own_names(alias):
    import chainer.functions
    import chainer.runtime_info

    assert chainer.functions.__name__ == "fnet.compat.functions"
    assert chainer.functions.__spec__.name == "fnet.compat.functions"
    assert importlib.reload(chainer.runtime_info) is fnet.compat.runtime_info  # under its own name


def test_install_twice_changes_nothing(alias):
    finders = list(sys.meta_path)
    install_alias()
    assert sys.meta_path == finders
    assert sum(isinstance(f, _ChainerFinder) for f in finders) == 1


def test_missing_module_error_names_it(alias):
    with pytest.raises(ModuleNotFoundError, match="No module named 'chainer.no_such_module'"):
        import chainer.no_such_module  # noqa: F401
    with pytest.raises(ImportError, match="cannot import name 'no_such_name'"):
        from chainer import no_such_name  # noqa: F401


def test_refuses_when_the_real_chainer_is_imported(monkeypatch):
    real = types.ModuleType("chainer")
    real.__file__ = "/site-packages/chainer/__init__.py"
    monkeypatch.setitem(sys.modules, "chainer", real)
    finders = list(sys.meta_path)
    with pytest.raises(RuntimeError, match="the real Chainer is already imported"):
        install_alias()
    assert sys.meta_path == finders and sys.modules["chainer"] is real


def test_a_chainer_script_runs_in_a_fresh_process():
    script = textwrap.dedent(
        """
        from fnet.compat._alias import install_alias
        install_alias()
        import numpy as np
        import chainer
        import chainer.functions as F
        from chainer import computational_graph as c

        x = chainer.Variable(np.array([1.0, 2.0], np.float32), name="x")
        y = F.sum(F.exp(x))
        y.backward()
        print(np.allclose(x.grad, np.exp(x.array)), c.build_computational_graph([y]).dump()[:8])
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "digraph"]


def test_chainerx_and_its_modules_are_fnets():
    import fnet.compat

    fnet.compat.install_alias()
    import chainerx
    import chainerx.testing

    import fnet.compat.chainerx.testing

    assert chainerx is fnet.compat.chainerx and chainerx.is_available() is True
    assert chainerx.testing is fnet.compat.chainerx.testing
