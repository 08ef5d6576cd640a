"""A variational auto-encoder on scikit-learn's bundled 8x8 digits (no network needed).

The encoder maps a digit to the mean and log-variance of a Gaussian over a small latent
space; a latent vector drawn from it (``F.gaussian``, the reparameterization trick, from an
explicit random key) is decoded into the logits of the 64 pixels. The loss is Chainer's VAE
example's: the Bernoulli negative log-likelihood of the pixels (``F.bernoulli_nll``) plus
``beta`` times the KL divergence of the encoder's Gaussian from the standard normal
(``F.gaussian_kl_divergence``), both per example.

At the end it draws a test digit, its reconstruction and a digit generated from a random
latent vector, in characters.

    python examples/vae/train.py [--epochs 100] [--latent 8] [--beta 1.0] [--smoke]
"""

from __future__ import annotations

import argparse

import attrs
import numpy

import fnet
from fnet import functions as F
from fnet import nn, optim

SHADES = " .:-=+*#%@"


@attrs.frozen
class VAE(nn.Module):
    """A one-hidden-layer encoder and decoder (tanh), 64 pixels to ``n_latent`` numbers and back."""

    encoder: nn.Linear
    mean: nn.Linear
    ln_var: nn.Linear
    decoder: nn.Linear
    pixels: nn.Linear

    @classmethod
    def of_sizes(cls, n_in: int, n_hidden: int, n_latent: int) -> VAE:
        return cls(
            nn.Linear(n_in, n_hidden),
            nn.Linear(n_hidden, n_latent),
            nn.Linear(n_hidden, n_latent),
            nn.Linear(n_latent, n_hidden),
            nn.Linear(n_hidden, n_in),
        )

    def encode(self, params, x):
        """The mean and log-variance of the latent Gaussian of each example of ``x``."""
        h = F.tanh(self.encoder(params["encoder"], x))
        return self.mean(params["mean"], h), self.ln_var(params["ln_var"], h)

    def decode(self, params, z):
        """The logits of the pixels of the latent vectors ``z`` (``F.sigmoid`` gives the image)."""
        return self.pixels(params["pixels"], F.tanh(self.decoder(params["decoder"], z)))

    def apply(self, params, x, key, beta: float = 1.0):
        """``(loss, metrics)``: the negative evidence lower bound per example, with ``beta``
        weighing its KL term, and its two terms."""
        mean, ln_var = self.encode(params, x)
        z = F.gaussian(mean, ln_var, key=key)
        reconstruction = F.bernoulli_nll(x, self.decode(params, z)) / len(x)
        kl = F.gaussian_kl_divergence(mean, ln_var) / len(x)
        return reconstruction + beta * kl, {"reconstruction": reconstruction, "kl": kl}


def load_digits(seed: int = 0):
    """The 1797 digits as 64 pixels in [0, 1], split 80/20 into train and test (no labels)."""
    from sklearn.datasets import load_digits as sklearn_digits

    x = (sklearn_digits().data / 16.0).astype(numpy.float32)
    order = numpy.random.RandomState(seed).permutation(len(x))
    return x[order[: int(0.8 * len(x))]], x[order[int(0.8 * len(x)) :]]


def draw(*images) -> str:
    """8x8 images in [0, 1], side by side, as lines of characters."""
    rows = []
    for r in range(8):
        rows.append(
            "   ".join("".join(SHADES[int(v * 9.99)] * 2 for v in image.reshape(8, 8)[r]) for image in images)
        )
    return "\n".join(rows)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batchsize", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--latent", type=int, default=8)
    parser.add_argument("--beta", type=float, default=1.0, help="the weight of the KL term")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a few epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 5 if args.smoke else args.epochs

    x_train, x_test = load_digits(args.seed)
    init_key, shuffle_key, noise_key, test_key, sample_key = fnet.random.split(fnet.random.key(args.seed), 5)
    model = VAE.of_sizes(64, args.hidden, args.latent)
    params = model.init(init_key)
    optimizer = optim.Adam(alpha=0.002)
    opt_state = optimizer.init(params)

    def loss_fn(params, state, batch):
        x, key = batch
        loss, metrics = model(params, x, key, args.beta)
        return loss, (state, metrics)

    train_step = optim.make_train_step(loss_fn, optimizer)

    def test_loss(params) -> float:
        return float(model(params, x_test, test_key, args.beta)[0])  # the same noise every time

    results = {"test loss": [test_loss(params)]}
    print(f"before training: test loss {results['test loss'][0]:.2f}")
    step = 0
    for epoch in range(1, epochs + 1):
        order = fnet.random.permutation(fnet.random.fold_in(shuffle_key, epoch), len(x_train))
        totals = numpy.zeros(3)
        for i in range(0, len(order), args.batchsize):
            batch = order[i : i + args.batchsize]
            step += 1
            params, _, opt_state, m = train_step(
                params, None, opt_state, (x_train[batch], fnet.random.fold_in(noise_key, step))
            )
            totals += len(batch) * numpy.array([float(m["loss"]), float(m["reconstruction"]), float(m["kl"])])
        results["test loss"].append(test_loss(params))
        loss, reconstruction, kl = totals / len(order)
        print(
            f"epoch {epoch:3d}  loss {loss:7.2f} (reconstruction {reconstruction:6.2f}, KL {kl:5.2f})  "
            f"test loss {results['test loss'][-1]:7.2f}"
        )

    digit = x_test[:1]
    mean, _ = model.encode(params, digit)
    reconstructed = F.sigmoid(model.decode(params, mean))
    z = fnet.random.normal(sample_key, (1, args.latent))
    generated = F.sigmoid(model.decode(params, z))
    print("a test digit, its reconstruction, and a digit decoded from a random latent vector:")
    print(draw(digit, numpy.asarray(reconstructed), numpy.asarray(generated)))
    return results


if __name__ == "__main__":
    main()
