"""The CNN with batch normalization: it learns the digits, shows its state tree, evaluates with
the running statistics without changing them, and saves params and state together."""

import re


def test_cnn_bn_smoke(run_example, tmp_path):
    out = run_example("cnn_bn", "--smoke")
    for layer, channels in (("bn1", 16), ("bn2", 32)):
        assert f"predictor/{layer}/avg_mean: float32[{channels}]" in out
        assert f"predictor/{layer}/avg_var: float32[{channels}]" in out
    accuracies = [float(a) for a in re.findall(r"^epoch +\d+ .* test accuracy ([\d.]+)", out, re.M)]
    assert len(accuracies) == 2 and accuracies[-1] > 0.85  # ten classes: chance is 0.1
    means = re.search(r"running mean, first channels \(it started at zeros\): \[([^\]]*)\]", out).group(1)
    assert any(float(m) != 0.0 for m in means.split())  # training moved the running statistics
    assert "evaluation (train=False) returns the state unchanged: True" in out
    eval_mode = re.search(r"running statistics \(train=False\): ([\d.]+)", out).group(1)
    assert float(eval_mode) == accuracies[-1]
    assert re.search(r"test batch's own statistics \(train=True\): [\d.]+", out)
    assert f"reloaded test accuracy {eval_mode}" in out
    assert (tmp_path / "result" / "cnn_bn.ckpt").is_file()
