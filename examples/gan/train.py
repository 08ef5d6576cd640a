"""A generative adversarial network on a 2-D toy distribution: eight Gaussians on a ring.

Two models play against each other: the generator turns noise into points in the plane, the
discriminator scores points as real (drawn from the ring) or generated. Their losses are
those of Chainer's DCGAN example, written with ``F.softplus``:

    discriminator: softplus(-D(real)) + softplus(D(G(z)))     (both averaged over the batch)
    generator:     softplus(-D(G(z)))

Each step differentiates each loss with respect to one model's params only
(``fnet.value_and_grad``), holding the other's fixed, and moves those params with their own
Adam (``optimizer.step``). The data are drawn fresh each step from explicit random keys.

Progress is measured on 2000 generated points: their mean distance to the ring, and how many
of the eight modes hold at least 5% of them (within three standard deviations).

    python examples/gan/train.py [--steps 3000] [--smoke]
"""

from __future__ import annotations

import argparse

import numpy

import fnet
from fnet import functions as F
from fnet import nn, optim

RADIUS = 2.0
MODES = RADIUS * numpy.stack(
    [numpy.cos(numpy.arange(8) * numpy.pi / 4), numpy.sin(numpy.arange(8) * numpy.pi / 4)], 1
)
STDDEV = 0.1


def real_points(key, n: int) -> numpy.ndarray:
    """``n`` points of the data: a mode chosen at random, plus Gaussian noise."""
    mode_key, noise_key = fnet.random.split(key)
    modes = MODES[numpy.asarray(fnet.random.randint(mode_key, (n,), 0, 8))]
    return (modes + STDDEV * numpy.asarray(fnet.random.normal(noise_key, (n, 2)))).astype(numpy.float32)


def mlp(n_in: int, n_hidden: int, n_out: int) -> nn.Sequential:
    """Two ReLU hidden layers of ``n_hidden`` units and a linear output."""
    return nn.Sequential(
        nn.Linear(n_in, n_hidden), F.relu, nn.Linear(n_hidden, n_hidden), F.relu, nn.Linear(n_hidden, n_out)
    )


def quality(points: numpy.ndarray) -> tuple[float, int]:
    """The mean distance of ``points`` to the ring, and the number of modes holding 5% of them."""
    ring = float(numpy.mean(numpy.abs(numpy.linalg.norm(points, axis=1) - RADIUS)))
    distances = numpy.linalg.norm(points[:, None, :] - MODES[None], axis=2)
    near = distances.min(axis=1) < 3 * STDDEV
    counts = numpy.bincount(distances.argmin(axis=1)[near], minlength=8)
    return ring, int(numpy.sum(counts >= 0.05 * len(points)))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--batchsize", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--noise", type=int, default=4, help="size of the generator's input")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="1000 steps, to check that it runs")
    args = parser.parse_args(argv)
    steps = 1000 if args.smoke else args.steps

    gen_key, dis_key, data_key, noise_key, eval_key = fnet.random.split(fnet.random.key(args.seed), 5)
    generator = mlp(args.noise, args.hidden, 2)
    discriminator = mlp(2, args.hidden, 1)
    gen_params, dis_params = generator.init(gen_key), discriminator.init(dis_key)
    gen_opt, dis_opt = optim.Adam(alpha=2e-3, beta1=0.5), optim.Adam(alpha=2e-3, beta1=0.5)
    gen_state, dis_state = gen_opt.init(gen_params), dis_opt.init(dis_params)

    def dis_loss(dis_params, gen_params, real, z):
        fake = generator(gen_params, z)
        return F.mean(F.softplus(-discriminator(dis_params, real))) + F.mean(
            F.softplus(discriminator(dis_params, fake))
        )

    def gen_loss(gen_params, dis_params, z):
        return F.mean(F.softplus(-discriminator(dis_params, generator(gen_params, z))))

    dis_value_and_grad = fnet.value_and_grad(dis_loss)  # with respect to the first argument only
    gen_value_and_grad = fnet.value_and_grad(gen_loss)
    eval_z = fnet.random.normal(eval_key, (2000, args.noise))

    def report(step: int, losses: str) -> tuple[float, int]:
        ring, modes = quality(numpy.asarray(generator(gen_params, eval_z)))
        print(f"step {step:5d}  {losses:45s}  distance to the ring {ring:.3f}  modes covered {modes}/8")
        return ring, modes

    results = {"start": report(0, "(before training)")}
    for step in range(1, steps + 1):
        step_data, step_noise = fnet.random.split(fnet.random.fold_in(data_key, step))
        real = real_points(step_data, args.batchsize)
        z_dis, z_gen = fnet.random.split(fnet.random.fold_in(noise_key, step))
        d_loss, d_grads = dis_value_and_grad(
            dis_params, gen_params, real, fnet.random.normal(z_dis, (args.batchsize, args.noise))
        )
        dis_params, dis_state = dis_opt.step(d_grads, dis_state, dis_params)
        g_loss, g_grads = gen_value_and_grad(
            gen_params, dis_params, fnet.random.normal(z_gen, (args.batchsize, args.noise))
        )
        gen_params, gen_state = gen_opt.step(g_grads, gen_state, gen_params)
        if step % (steps // 4) == 0:
            losses = f"discriminator loss {float(d_loss):.3f}  generator loss {float(g_loss):.3f}"
            results["end"] = report(step, losses)
    return results


if __name__ == "__main__":
    main()
