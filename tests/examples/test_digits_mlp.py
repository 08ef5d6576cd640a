"""The main job: the digits MLP example trains to high test accuracy in seconds."""

import importlib.util
import pathlib

import pytest

pytest.importorskip("sklearn", reason="the example's data set ships with scikit-learn")

_PATH = pathlib.Path(__file__).parents[2] / "examples" / "digits_mlp.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("digits_mlp", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_digits_mlp_reaches_95_percent(capsys):
    accuracy = _load_example().main(["--epochs", "15"])
    assert accuracy > 0.95
    out = capsys.readouterr().out
    assert out.count("test accuracy") == 15


def test_digits_mlp_smoke(capsys):
    _load_example().main(["--smoke"])
    assert capsys.readouterr().out.count("epoch") == 2
