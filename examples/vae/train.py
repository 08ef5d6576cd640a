"""A variational auto-encoder on scikit-learn's bundled 8x8 digits (no network needed).

The encoder maps a digit to a diagonal ``Normal`` over a small latent space (its mean and
log-scale); a latent vector sampled from it (reparameterized, from an explicit random key) is
decoded into the ``Bernoulli`` distributions of the 64 pixels (by their logits). The loss is
Chainer's VAE example's, written with ``fnet.distributions``: minus the log-likelihood of the
pixels plus ``beta`` times the KL divergence of the encoder's Normal from the standard normal
prior, both per example.

At the end it draws a test digit, its reconstruction and a digit generated from a random
latent vector, in characters.

    python examples/vae/train.py [--epochs 100] [--latent 8] [--beta 1.0] [--smoke]
"""

from __future__ import annotations

import argparse

import attrs
import numpy

import fnet
from fnet import distributions as D
from fnet import functions as F
from fnet import nn, ops, optim

SHADES = " .:-=+*#%@"


@attrs.frozen
class VAE(nn.Module):
    """A one-hidden-layer encoder and decoder (tanh), 64 pixels to ``n_latent`` numbers and back."""

    encoder: nn.Linear
    mean: nn.Linear
    log_scale: nn.Linear
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

    def encode(self, params, x) -> D.Normal:
        """The latent Normal of each example of ``x`` (independent coordinates)."""
        h = F.tanh(self.encoder(params["encoder"], x))
        return D.Normal(self.mean(params["mean"], h), log_scale=self.log_scale(params["log_scale"], h))

    def decode(self, params, z) -> D.Bernoulli:
        """The Bernoulli distributions of the pixels of the latent vectors ``z`` (their mean is
        the image)."""
        return D.Bernoulli(logit=self.pixels(params["pixels"], F.tanh(self.decoder(params["decoder"], z))))

    def apply(self, params, x, key, beta: float = 1.0):
        """``(loss, metrics)``: the negative evidence lower bound per example, with ``beta``
        weighing its KL term, and its two terms."""
        posterior = self.encode(params, x)
        z = posterior.sample(key)
        reconstruction = -F.sum(self.decode(params, z).log_prob(x)) / len(x)
        prior = D.Normal(ops.zeros_like(z), ops.ones_like(z))  # the standard normal
        kl = F.sum(D.kl_divergence(posterior, prior)) / len(x)
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
    reconstructed = model.decode(params, model.encode(params, digit).mean).mean
    z = fnet.random.normal(sample_key, (1, args.latent))
    generated = model.decode(params, z).mean
    print("a test digit, its reconstruction, and a digit decoded from a random latent vector:")
    print(draw(digit, numpy.asarray(reconstructed), numpy.asarray(generated)))
    return results


if __name__ == "__main__":
    main()
