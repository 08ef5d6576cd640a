"""``chainer.utils.imgproc``: test-time augmentation of images by ten crops."""

from __future__ import annotations

import numpy

__all__ = ["oversample"]


def oversample(images, crop_dims) -> numpy.ndarray:
    """The ten crops of each CHW image of ``images`` (all of one shape): the four corners and
    the center, each ``crop_dims = (height, width)``, then the same five mirrored left-right.

    >>> oversample([numpy.arange(16.0).reshape(1, 4, 4)], (2, 2))[:, 0, 0, 0].tolist()
    [0.0, 2.0, 8.0, 10.0, 5.0, 1.0, 3.0, 9.0, 11.0, 6.0]
    """
    channels, height, width = images[0].shape
    crop_h, crop_w = crop_dims
    tops = (0, 0, height - crop_h, height - crop_h, int(height / 2.0 - crop_h / 2.0))
    lefts = (0, width - crop_w, 0, width - crop_w, int(width / 2.0 - crop_w / 2.0))
    crops = numpy.empty((10 * len(images), channels, crop_h, crop_w), dtype=images[0].dtype)
    for i, image in enumerate(images):
        five = [
            image[:, top : top + crop_h, left : left + crop_w] for top, left in zip(tops, lefts, strict=True)
        ]
        crops[10 * i : 10 * i + 5] = five
        crops[10 * i + 5 : 10 * i + 10] = crops[10 * i : 10 * i + 5, :, :, ::-1]
    return crops
