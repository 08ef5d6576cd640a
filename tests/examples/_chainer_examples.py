"""Running Chainer 7.8.1's own example scripts, unchanged, through ``python -m fnet.compat``.

fnet does not ship Chainer's code: the tests that use this run where ``FNET_CHAINER_CHECKOUT``
names a Chainer 7.8.1 checkout (its ``examples`` folder is what is run), and skip elsewhere.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKOUT = os.environ.get("FNET_CHAINER_CHECKOUT")
needs_checkout = pytest.mark.skipif(
    not CHECKOUT, reason="needs FNET_CHAINER_CHECKOUT: a Chainer 7.8.1 checkout"
)


def synthetic_mnist(folder: pathlib.Path, n_train: int, n_test: int) -> dict:
    """A synthetic MNIST cache in ``folder`` (``tools/synthetic_mnist.py``): the environment that
    points Chainer's ``get_mnist`` at it."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import synthetic_mnist as maker
    finally:
        sys.path.pop(0)
    maker.write_cache(str(folder), n_train=n_train, n_test=n_test)
    return {"CHAINER_DATASET_ROOT": str(folder)}


def run_chainer_example(script: str, *args: str, env: dict | None = None, timeout: int = 900):
    """``python -m fnet.compat examples/<script> ARGS`` in the script's folder (examples import
    their own modules from beside them); the completed process."""
    path = pathlib.Path(CHECKOUT) / "examples" / script
    assert path.is_file(), f"{path} is not there: FNET_CHAINER_CHECKOUT must be a Chainer checkout"
    full_env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        **(env or {}),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "fnet.compat", path.name, *args],
        cwd=path.parent,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
