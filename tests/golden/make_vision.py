"""Chainer's side of the pretrained-convnet tests (fnet.compat's VGG, ResNet and GoogLeNet
links), run with Chainer 7.8.1's python.

Without arguments it writes ``vision_layouts.json`` next to this file: under ``layouts``, for
each of
``VGG16Layers``, ``VGG19Layers``, ``ResNet50Layers``, ``ResNet101Layers``, ``ResNet152Layers``
and ``GoogLeNet`` built with ``pretrained_model=None``, every key of the npz file Chainer
saves, with its dtype and shape (``"float32[64, 3, 3, 3]"``), and the model's
``available_layers``; under ``signatures``, the constructor's parameters of each link class
(``[name, kind, repr(default)]``)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_vision.py

``--write NPZ INPUT OUTPUT``: build ``ResNet50Layers(pretrained_model=None)`` (seeded), move its
running statistics off their initial values, save it to NPZ, and save to OUTPUT the activations
``LAYERS`` on the images of INPUT (key ``x``) in test mode.
``--check NPZ INPUT OUTPUT``: load NPZ (written by fnet) into ``ResNet50Layers`` and save the
same activations to OUTPUT.
``--transfer NAME OUTPUT``: run Chainer's own conversion code (``_transfer_resnet50``,
``_transfer_googlenet``...) of the link NAME from a stand-in for ``CaffeFunction`` whose every
array is the constant ``caffe_value(layer, entry)``, and save the link to OUTPUT.
"""

from __future__ import annotations

import inspect
import json
import pathlib
import sys
import zlib

import chainer
import chainer.links as L
import numpy

assert chainer.__version__ == "7.8.1", chainer.__version__

HERE = pathlib.Path(__file__).resolve().parent
LAYOUTS = HERE / "vision_layouts.json"
LAYERS = ["conv1", "pool1", "res2", "res3", "res4", "res5", "pool5", "fc6", "prob"]
SIGNATURES = ["VGGLayers", "ResNetLayers", "GoogLeNet"] + [
    "VGG16Layers",
    "VGG19Layers",
    "ResNet50Layers",
    "ResNet101Layers",
    "ResNet152Layers",
]
MODELS = ["VGG16Layers", "VGG19Layers", "ResNet50Layers", "ResNet101Layers", "ResNet152Layers", "GoogLeNet"]


def caffe_value(layer: str, entry: str) -> float:
    """The stand-in value of a Caffe layer's array: exact in float16 and float32, at least 1."""
    return 1.0 + zlib.crc32(f"{layer}:{entry}".encode()) % 1000 / 8.0


class _Stand:
    """A stand-in for ``CaffeFunction`` or one of its links: every attribute (or item) is
    another, and ``.array`` (or a statistic ``avg_mean``/``avg_var``) is the constant of the path
    that led to it."""

    def __init__(self, path=()):
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in ("avg_mean", "avg_var"):  # persistent values are arrays themselves
            return _Stand(self._path + (name,)).array
        if name == "array":
            layer, *entry = self._path
            return numpy.asarray(caffe_value(layer, "/".join(entry)), numpy.float32)
        return _Stand(self._path + (name,))

    __getitem__ = __getattr__


def transfer(name: str, output: str) -> None:
    from chainer.links.model.vision import googlenet, resnet

    numpy.random.seed(0)
    model = getattr(L, name)(pretrained_model=None)
    convert = {
        "ResNet50Layers": resnet._transfer_resnet50,
        "ResNet101Layers": resnet._transfer_resnet101,
        "ResNet152Layers": resnet._transfer_resnet152,
        "GoogLeNet": googlenet._transfer_googlenet,
    }[name]
    convert(_Stand(), model)
    chainer.serializers.save_npz(output, model, compression=False)


def layout(name: str) -> dict:
    model = getattr(L, name)(pretrained_model=None)
    entries = {}
    chainer.serializers.DictionarySerializer(entries).save(model)
    return {
        "available_layers": model.available_layers,
        "entries": {
            k: f"{numpy.asarray(v).dtype.name}{list(numpy.shape(v))}" for k, v in sorted(entries.items())
        },
    }


def signature(name: str) -> list:
    """The constructor's parameters of the link class ``name``: ``[name, kind, repr(default)]``."""
    from chainer.links.model.vision import googlenet, resnet, vgg

    cls = next(getattr(m, name) for m in (vgg, resnet, googlenet) if hasattr(m, name))
    return [
        [p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]
        for p in inspect.signature(cls).parameters.values()
    ]


def activations(model, x) -> dict:
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = model(x, layers=LAYERS)
    return {k: v.array for k, v in out.items()}


def write(npz: str, inputs: str, output: str) -> None:
    numpy.random.seed(0)
    model = L.ResNet50Layers(pretrained_model=None)
    rng = numpy.random.RandomState(1)
    for link in model.links():
        if isinstance(link, L.BatchNormalization):  # statistics that are not the identity
            link.avg_mean[...] = rng.uniform(-0.1, 0.1, link.avg_mean.shape)
            link.avg_var[...] = rng.uniform(0.5, 2.0, link.avg_var.shape)
            link.gamma.array[...] = rng.uniform(0.5, 1.5, link.gamma.shape)
            link.beta.array[...] = rng.uniform(-0.1, 0.1, link.beta.shape)
    chainer.serializers.save_npz(npz, model)
    numpy.savez(output, **activations(model, numpy.load(inputs)["x"]))


def check(npz: str, inputs: str, output: str) -> None:
    model = L.ResNet50Layers(pretrained_model=npz)
    numpy.savez(output, **activations(model, numpy.load(inputs)["x"]))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        {"--write": write, "--check": check, "--transfer": transfer}[sys.argv[1]](*sys.argv[2:])
    else:
        golden = {
            "layouts": {name: layout(name) for name in MODELS},
            "signatures": {name: signature(name) for name in SIGNATURES},
        }
        LAYOUTS.write_text(json.dumps(golden, indent=1) + "\n")
