"""The golden scripts of ``tests/golden``, loaded as modules so that the tests run their cases
on fnet. They must also run in Chainer's venv, without fnet, so that folder is no package."""

from __future__ import annotations

import importlib.util
import pathlib
import types

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"


def load_golden(name: str) -> types.ModuleType:
    """The golden script ``tests/golden/<name>.py``, run as a module named ``name``."""
    spec = importlib.util.spec_from_file_location(name, GOLDEN / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
