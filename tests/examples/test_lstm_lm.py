"""The character LSTM language model: it learns its bundled text well beyond chance and
continues a prompt."""

import re

from .conftest import example_script


def test_bundled_text_is_plain_english():
    text = (example_script("lstm_lm").parent / "harbour.txt").read_text(encoding="utf-8")
    assert 3000 < len(text) < 20000 and text.isascii()


def test_lstm_lm_smoke(run_example):
    out = run_example("lstm_lm", "--smoke", "--prompt", "The sea")
    vocabulary = int(re.search(r"(\d+) distinct", out).group(1))
    before = float(re.search(r"before training: held-out perplexity ([\d.]+)", out).group(1))
    held_out = [float(p) for p in re.findall(r"held-out perplexity +([\d.]+)$", out, re.M)]
    assert len(held_out) == 3
    assert 0.5 * vocabulary < before < 2 * vocabulary  # untrained: about as good as a uniform guess
    assert held_out[-1] < vocabulary / 3 and held_out[-1] < held_out[0]
    sample = re.search(r"^sample: (.*)$", out, re.M).group(1)
    assert sample.startswith("The sea") and len(sample) == len("The sea") + 80
