"""``chainer.utils.imgproc``: test-time augmentation of images by ten crops (the pure
``fnet.nn.vision.oversample``, which the pretrained convnets' ``predict`` uses)."""

from __future__ import annotations

from ...nn.vision.image import oversample

__all__ = ["oversample"]
