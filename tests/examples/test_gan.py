"""The GAN on eight Gaussians on a ring: the generator's points move onto the ring."""

import re


def test_gan_smoke(run_example):
    out = run_example("gan", "--smoke")
    rows = re.findall(r"^step +(\d+) .* distance to the ring ([\d.]+)  modes covered (\d)/8$", out, re.M)
    assert [int(r[0]) for r in rows] == [0, 250, 500, 750, 1000]
    start, end = float(rows[0][1]), float(rows[-1][1])
    assert end < 0.5 * start
