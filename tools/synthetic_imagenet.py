"""Write a tiny synthetic image list, so that Chainer's ImageNet example runs with no ILSVRC2012.

    python tools/synthetic_imagenet.py DIR [--train 8] [--val 4] [--size 256] [--format jpg]
    python -m fnet.compat CHAINER/examples/imagenet/train_imagenet.py \\
        DIR/train.txt DIR/val.txt --root DIR --mean DIR/mean.npy ...

The example reads two lists in the format of Caffe's ImageDataLayer (one ``path label`` a line,
the path relative to ``--root``), RGB images of 256x256 that it crops to its model's ``insize``
(224 or 227), and a mean image: a ``(3, size, size)`` float32 array as ``compute_mean.py``
saves it (the mean of the training images, channels first). Each image is random noise over a
colour that its label picks, so the labels are learnable. Nothing here is ImageNet's data.
"""

from __future__ import annotations

import argparse
import os

import numpy

from fnet.io.atomic import atomic_write

__all__ = ["write_dataset"]


def _image(label: int, n_labels: int, size: int, rng: numpy.random.RandomState) -> numpy.ndarray:
    """An ``(size, size, 3)`` uint8 RGB image: noise around the colour of ``label``."""
    hue = label / max(n_labels, 1)
    base = 255 * numpy.array([hue, 1.0 - hue, 0.5])
    pixels = base + rng.normal(0.0, 40.0, (size, size, 3))
    return numpy.clip(pixels, 0, 255).astype(numpy.uint8)


def write_dataset(
    root: str,
    n_train: int = 8,
    n_val: int = 4,
    size: int = 256,
    n_labels: int = 10,
    image_format: str = "jpg",
    seed: int = 0,
) -> dict[str, str]:
    """Write the images, ``train.txt``, ``val.txt`` and ``mean.npy`` under ``root``.

    Returns the paths of the two lists and the mean file (keys ``train``, ``val``, ``mean``).
    """
    from PIL import Image

    rng = numpy.random.RandomState(seed)
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    pil_format = {"jpg": "JPEG", "png": "PNG"}[image_format]
    paths = {}
    total = numpy.zeros((3, size, size), dtype=numpy.float64)
    for split, n in (("train", n_train), ("val", n_val)):
        lines = []
        for i in range(n):
            label = int(rng.randint(n_labels))
            pixels = _image(label, n_labels, size, rng)
            name = f"images/{split}_{i:05d}.{image_format}"
            atomic_write(
                "synthetic_imagenet",
                os.path.join(root, name),
                lambda f, p=pixels: Image.fromarray(p, "RGB").save(f, format=pil_format),
            )
            if split == "train":  # the mean of the pixels as saved (JPEG is lossy)
                with Image.open(os.path.join(root, name)) as saved:
                    total += numpy.asarray(saved.convert("RGB"), dtype=numpy.float64).transpose(2, 0, 1)
            lines.append(f"{name} {label}\n")
        paths[split] = os.path.join(root, f"{split}.txt")
        text = "".join(lines).encode()
        atomic_write("synthetic_imagenet", paths[split], lambda f, t=text: f.write(t))
    mean = (total / max(n_train, 1)).astype(numpy.float32)
    paths["mean"] = os.path.join(root, "mean.npy")
    atomic_write("synthetic_imagenet", paths["mean"], lambda f: numpy.save(f, mean))
    return paths


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", help="the folder to write the images, lists and mean file into")
    parser.add_argument("--train", type=int, default=8, help="training images")
    parser.add_argument("--val", type=int, default=4, help="validation images")
    parser.add_argument(
        "--size", type=int, default=256, help="image height and width (the example crops to 227)"
    )
    parser.add_argument(
        "--labels", type=int, default=10, help="distinct labels (the example's models have 1000)"
    )
    parser.add_argument("--format", choices=("jpg", "png"), default="jpg")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    paths = write_dataset(args.root, args.train, args.val, args.size, args.labels, args.format, args.seed)
    for key in ("train", "val", "mean"):
        print(paths[key])


if __name__ == "__main__":
    main()
