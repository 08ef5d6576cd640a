"""A character-level LSTM language model on a short story bundled with the example.

The text, ``harbour.txt`` (about 5 KB of plain English written for fnet's examples), is read
as a sequence of characters. The model reads one character at a time and predicts the next:
``EmbedID -> LSTM -> Linear``. It is trained as Chainer's PTB example trains its word model,
by truncated backpropagation through time: the text is cut into ``--batchsize`` parallel
streams, the loss is summed over ``--bprop-len`` steps, and the LSTM state carried from one
window to the next is a plain value, so the gradient stops at the window's start by itself.

In fnet's pure style the LSTM's ``{"c", "h"}`` state is explicit:
``y, state = lstm(params, x, state)``. After training, the example reports the perplexity
on the last tenth of the text (held out) and writes a sample continuation of a prompt.

    python examples/lstm_lm/train.py [--epochs 15] [--smoke]
"""

from __future__ import annotations

import argparse
import math
import os

import attrs
import numpy

import fnet
from fnet import functions as F
from fnet import nn, optim

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harbour.txt")


@attrs.frozen
class CharLSTM(nn.Module):
    """One step of the language model: the scores of the next character after ``x``."""

    embed: nn.EmbedID
    lstm: nn.LSTM
    out: nn.Linear

    @classmethod
    def of_sizes(cls, n_vocab: int, n_units: int) -> CharLSTM:
        return cls(nn.EmbedID(n_vocab, n_units), nn.LSTM(n_units, n_units), nn.Linear(n_units, n_vocab))

    def apply(self, params, x, state, *, train: bool = True):
        """``(scores, state)`` for the characters ``x`` (one per stream, int32[batch])."""
        h, lstm_state = self.lstm(params["lstm"], self.embed(params["embed"], x), state["lstm"])
        return self.out(params["out"], h), {"lstm": lstm_state}


def load_text(path: str = TEXT):
    """The characters of the text as int32 IDs, the vocabulary (sorted characters), and the split
    point: the first nine tenths train the model, the rest measure it."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    vocab = sorted(set(text))
    ids = numpy.array([vocab.index(c) for c in text], dtype=numpy.int32)
    return ids, vocab, int(0.9 * len(ids))


def streams(ids: numpy.ndarray, batchsize: int) -> numpy.ndarray:
    """``ids`` cut into ``batchsize`` equal consecutive pieces, one per row."""
    length = len(ids) // batchsize
    return ids[: length * batchsize].reshape(batchsize, length)


def sequence_loss(model: nn.Module, params, state, xs, ts):
    """The mean cross entropy of predicting ``ts[:, i]`` from ``xs[:, :i + 1]``, and the state after."""
    loss = 0.0
    for i in range(xs.shape[1]):
        y, state = model(params, xs[:, i], state)
        loss = loss + F.softmax_cross_entropy(y, ts[:, i])
    return loss / xs.shape[1], state


def perplexity(model: nn.Module, params, ids: numpy.ndarray, warmup: numpy.ndarray) -> float:
    """exp of the mean cross entropy over ``ids``, the state first run over ``warmup``."""
    state = model.init_state()
    _, state = sequence_loss(model, params, state, warmup[None, :-1], warmup[None, 1:])
    loss, _ = sequence_loss(model, params, state, ids[None, :-1], ids[None, 1:])
    return math.exp(float(loss))


def sample(model: nn.Module, params, vocab: list[str], prompt: str, length: int, key, temperature=0.7):
    """``prompt`` and ``length`` characters drawn from the model, one after another."""
    state = model.init_state()
    ids = [vocab.index(c) for c in prompt]
    for i in ids[:-1]:
        _, state = model(params, numpy.array([i], numpy.int32), state)
    out = list(prompt)
    for step_key in fnet.random.split(key, length):
        y, state = model(params, numpy.array([ids[-1]], numpy.int32), state)
        p = numpy.asarray(F.softmax(y / temperature))[0].astype(numpy.float64)
        ids.append(int(fnet.random.choice(step_key, len(vocab), p=p / p.sum())))
        out.append(vocab[ids[-1]])
    return "".join(out)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batchsize", type=int, default=16, help="parallel streams")
    parser.add_argument("--bprop-len", type=int, default=32, help="steps of truncated backprop")
    parser.add_argument("--unit", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prompt", default="The keeper")
    parser.add_argument("--smoke", action="store_true", help="a few epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 3 if args.smoke else args.epochs

    ids, vocab, split = load_text()
    train = streams(ids[:split], args.batchsize)
    valid = ids[split:]
    print(f"{len(ids)} characters, {len(vocab)} distinct; {split} to train on, {len(valid)} held out")
    init_key, sample_key = fnet.random.split(fnet.random.key(args.seed))
    model = CharLSTM.of_sizes(len(vocab), args.unit)
    params = model.init(init_key)
    optimizer = optim.chain(optim.GradientClipping(5.0), optim.Adam(alpha=0.005))
    opt_state = optimizer.init(params)

    def loss_fn(params, state, batch):
        loss, state = sequence_loss(model, params, state, *batch)
        return loss, (state, {})

    train_step = optim.make_train_step(loss_fn, optimizer)

    results = {"perplexity": [perplexity(model, params, valid, ids[split - 100 : split + 1])]}
    print(f"before training: held-out perplexity {results['perplexity'][0]:.2f} (vocabulary {len(vocab)})")
    for epoch in range(1, epochs + 1):
        state = model.init_state()
        losses = []
        for start in range(0, train.shape[1] - 1, args.bprop_len):
            xs = train[:, start : start + args.bprop_len]
            ts = train[:, start + 1 : start + args.bprop_len + 1]
            xs = xs[:, : ts.shape[1]]
            params, state, opt_state, metrics = train_step(params, state, opt_state, (xs, ts))
            losses.append(float(metrics["loss"]))
        results["perplexity"].append(perplexity(model, params, valid, ids[split - 100 : split + 1]))
        print(
            f"epoch {epoch:3d}  train perplexity {math.exp(numpy.mean(losses)):7.2f}  "
            f"held-out perplexity {results['perplexity'][-1]:7.2f}"
        )
    results["sample"] = sample(model, params, vocab, args.prompt, 80 if args.smoke else 300, sample_key)
    print("sample: " + results["sample"].replace("\n", " "))
    return results


if __name__ == "__main__":
    main()
