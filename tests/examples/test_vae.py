"""The VAE on the digits: its loss (reconstruction plus KL) falls on held-out digits, and it
draws a digit, its reconstruction and a generated one."""

import re


def test_vae_smoke(run_example):
    out = run_example("vae", "--smoke")
    before = float(re.search(r"before training: test loss ([\d.]+)", out).group(1))
    epochs = re.findall(r"reconstruction +([\d.]+), KL +([\d.]+)\) +test loss +([\d.]+)", out)
    assert len(epochs) == 5
    reconstruction, kl, test_loss = (float(v) for v in epochs[-1])
    assert test_loss < 0.75 * before
    assert max(float(e[2]) for e in epochs) < before
    assert reconstruction > 0 and kl > 0
    drawing = out.split("a digit decoded from a random latent vector:\n")[1].splitlines()
    assert len(drawing) == 8 and all(len(row) == 3 * 16 + 2 * 3 for row in drawing)
