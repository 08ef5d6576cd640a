"""Run an example as its reader would: ``python examples/<name>/train.py ARGS`` in a fresh
folder (a subprocess), optionally through ``python -m fnet.compat``."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("sklearn", reason="the examples' digits ship with scikit-learn")

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def example_script(name: str) -> pathlib.Path:
    """The main script of the example folder ``name``."""
    return EXAMPLES / name / "train.py"


@pytest.fixture
def run_example(tmp_path):
    """``run_example(name, *args, compat=False)``: the example's stdout; it must exit with 0."""

    def run(name: str, *args: str, compat: bool = False) -> str:
        launcher = [sys.executable, "-m", "fnet.compat"] if compat else [sys.executable]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        result = subprocess.run(
            [*launcher, str(example_script(name)), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, (
            f"examples/{name} exited with status {result.returncode}\n"
            f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        )
        return result.stdout

    return run
