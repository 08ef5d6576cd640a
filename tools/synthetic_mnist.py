"""Write a small synthetic MNIST cache, so that Chainer's MNIST examples run with no network.

    python tools/synthetic_mnist.py DIR [--train 600] [--test 100] [--seed 0]
    CHAINER_DATASET_ROOT=DIR python -m fnet.compat CHAINER/examples/vae/train_vae.py ...

``chainer.datasets.get_mnist`` (fnet's and Chainer's) reads ``DIR/pfnet/chainer/mnist/
{train,test}.npz`` before it thinks of downloading. The images are MNIST-shaped (784 uint8
pixels) and learnable: each is one of ten fixed random strokes (its label), shifted by up to two
pixels, with noise. Nothing here is MNIST's data.
"""

from __future__ import annotations

import argparse
import os

import numpy

from fnet.io.atomic import atomic_write


def strokes(rng: numpy.random.RandomState) -> numpy.ndarray:
    """Ten 28x28 prototypes in [0, 1], each a random walk of a thick pen."""
    prototypes = numpy.zeros((10, 28, 28))
    for image in prototypes:
        row, col = rng.randint(8, 20, size=2)
        for _ in range(60):
            row = int(numpy.clip(row + rng.randint(-1, 2), 4, 23))
            col = int(numpy.clip(col + rng.randint(-1, 2), 4, 23))
            image[row - 2 : row + 2, col - 2 : col + 2] = 1.0
    return prototypes


def examples(prototypes: numpy.ndarray, n: int, rng: numpy.random.RandomState):
    """``n`` images (uint8, ``(n, 784)``) and their labels (uint8)."""
    labels = rng.randint(0, 10, n)
    images = numpy.empty((n, 28, 28))
    for i, label in enumerate(labels):
        shift = rng.randint(-2, 3, size=2)
        images[i] = numpy.roll(prototypes[label], tuple(shift), axis=(0, 1))
    images = numpy.clip(images * 230 + rng.uniform(0, 25, images.shape), 0, 255)
    return images.reshape(n, 784).astype(numpy.uint8), labels.astype(numpy.uint8)


def write_cache(root: str, n_train: int = 600, n_test: int = 100, seed: int = 0) -> str:
    """Write the cache under ``root``; return the folder of its two files."""
    rng = numpy.random.RandomState(seed)
    prototypes = strokes(rng)
    folder = os.path.join(root, "pfnet", "chainer", "mnist")
    os.makedirs(folder, exist_ok=True)
    for split, n in (("train", n_train), ("test", n_test)):
        x, y = examples(prototypes, n, rng)
        atomic_write(  # a temporary file beside it, renamed; stale ones of killed runs removed
            "synthetic_mnist",
            os.path.join(folder, f"{split}.npz"),
            lambda f, x=x, y=y: numpy.savez_compressed(f, x=x, y=y),
        )
    return folder


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", help="the dataset root to write (CHAINER_DATASET_ROOT)")
    parser.add_argument("--train", type=int, default=600, help="training examples")
    parser.add_argument("--test", type=int, default=100, help="test examples")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(write_cache(args.root, args.train, args.test, args.seed))


if __name__ == "__main__":
    main()
