"""Images for the pretrained convnets: ``prepare`` (resize, BGR, mean subtraction, CHW) and
``oversample`` (the ten crops of test-time augmentation)."""

from __future__ import annotations

import numpy

from ... import backend
from ...errors import InvalidInputError, message

__all__ = ["prepare", "oversample", "pillow_available"]

try:
    from PIL import Image as _Image
except ImportError as error:  # Pillow is optional: only prepare needs it
    _Image = None
    _PILLOW_ERROR: ImportError | None = error
else:
    _PILLOW_ERROR = None

pillow_available = _Image is not None


def prepare(image, size=(224, 224), *, mean, dtype=numpy.float32) -> numpy.ndarray:
    """``image`` as a CHW array for the Caffe-trained convnets: resized to ``size`` (width,
    height; None keeps the size) by Pillow, channels in BGR order, ``mean`` (BGR) subtracted.

    ``image`` is a PIL image or an array shaped ``(h, w)``, ``(h, w, 3)``, ``(1, h, w)`` or
    ``(3, h, w)`` in RGB order (values cast to uint8).

    >>> prepare(numpy.zeros((4, 6, 3), numpy.uint8), (3, 2), mean=(1.0, 2.0, 3.0))[:, 0, 0].tolist()
    [-1.0, -2.0, -3.0]
    """
    if _Image is None:
        raise ImportError(
            f"prepare: Pillow is needed to resize images; install it (pip install Pillow)\n  {_PILLOW_ERROR}"
        )
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3 and image.shape[0] == 1:
            image = image[0]
        elif image.ndim == 3 and image.shape[0] == 3:
            image = image.transpose(1, 2, 0)
        if image.ndim not in (2, 3):
            raise InvalidInputError(
                message(
                    "prepare",
                    f"expected an image of shape (h, w), (h, w, 3) or (3, h, w), got shape {image.shape}",
                    hint="pass one image at a time, not a batch",
                )
            )
        image = _Image.fromarray(image.astype(numpy.uint8))
    image = image.convert("RGB")
    if size:
        image = image.resize(tuple(size))
    array = numpy.asarray(image, dtype=dtype)[:, :, ::-1]
    array = array - numpy.asarray(mean, dtype=dtype)
    return numpy.ascontiguousarray(array.transpose(2, 0, 1))


def oversample(images, crop_dims) -> numpy.ndarray:
    """The ten crops of each CHW image of ``images`` (all of one shape): the four corners and
    the center, each ``crop_dims = (height, width)``, then the same five mirrored left-right
    (Chainer's ``utils.imgproc.oversample``).

    >>> oversample([numpy.arange(16.0).reshape(1, 4, 4)], (2, 2))[:, 0, 0, 0].tolist()
    [0.0, 2.0, 8.0, 10.0, 5.0, 1.0, 3.0, 9.0, 11.0, 6.0]
    """
    channels, height, width = images[0].shape
    crop_h, crop_w = crop_dims
    tops = (0, 0, height - crop_h, height - crop_h, int(height / 2.0 - crop_h / 2.0))
    lefts = (0, width - crop_w, 0, width - crop_w, int(width / 2.0 - crop_w / 2.0))
    xp = backend.xp(images[0])  # the crops stay on the images' device
    crops = xp.empty((10 * len(images), channels, crop_h, crop_w), dtype=images[0].dtype)
    for i, image in enumerate(images):
        five = [
            image[:, top : top + crop_h, left : left + crop_w] for top, left in zip(tops, lefts, strict=True)
        ]
        crops[10 * i : 10 * i + 5] = five
        crops[10 * i + 5 : 10 * i + 10] = crops[10 * i : 10 * i + 5, :, :, ::-1]
    return crops
