"""The main job: the digits MLP example trains to high test accuracy in seconds, checkpoints each
epoch, and resumes from its checkpoint exactly where it stopped."""

import importlib.util
import re

import fnet
from fnet.testing import tree_allclose

from .conftest import example_script


def _load_example():
    spec = importlib.util.spec_from_file_location("digits_mlp", example_script("digits_mlp"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _checkpoint(example, path, unit=100):
    """The example's checkpoint, loaded like the params and Adam state of a fresh model."""
    model = example.nn.Classifier(example.MLP.of_sizes(64, unit, 10))
    params = model.init(fnet.random.key(0))
    like = {"params": params, "opt_state": example.optim.Adam().init(params), "epoch": 0}
    return fnet.io.load(path, like=like)


def test_digits_mlp_reaches_95_percent(capsys, tmp_path):
    example = _load_example()
    accuracy = example.main(["--epochs", "15", "--out", str(tmp_path)])
    assert accuracy > 0.95
    out = capsys.readouterr().out
    assert out.count("test accuracy") == 16  # 15 epochs and the reloaded checkpoint
    assert f"reloaded {tmp_path / 'digits_mlp.ckpt'} (epoch 15): test accuracy {accuracy:.4f}" in out
    saved = _checkpoint(example, tmp_path / "digits_mlp.ckpt")
    assert saved["epoch"] == 15
    assert saved["params"]["predictor"]["l1"]["W"].shape == (100, 64)  # Chainer's layout and names


def test_digits_mlp_resumes_where_it_stopped(capsys, tmp_path):
    example = _load_example()
    example.main(["--epochs", "2", "--unit", "16", "--out", str(tmp_path / "resumed")])
    resumed = example.main(["--epochs", "4", "--unit", "16", "--out", str(tmp_path / "resumed"), "--resume"])
    out = capsys.readouterr().out
    assert "after epoch 2" in out and "epoch   3" in out and out.count("epoch   1") == 1
    straight = example.main(["--epochs", "4", "--unit", "16", "--out", str(tmp_path / "straight")])
    assert resumed == straight
    resumed_state = _checkpoint(example, tmp_path / "resumed" / "digits_mlp.ckpt", unit=16)
    straight_state = _checkpoint(example, tmp_path / "straight" / "digits_mlp.ckpt", unit=16)
    assert tree_allclose(resumed_state, straight_state, rtol=0)


def test_digits_mlp_smoke(run_example, tmp_path):
    out = run_example("digits_mlp", "--smoke")
    accuracies = [float(a) for a in re.findall(r"^epoch +\d+ .* test accuracy ([\d.]+)", out, re.M)]
    assert len(accuracies) == 2 and accuracies[-1] > 0.85  # ten classes: chance is 0.1
    assert "reloaded result/digits_mlp.ckpt (epoch 2)" in out
    assert (tmp_path / "result" / "digits_mlp.ckpt").is_file()
