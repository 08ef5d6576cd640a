"""The stand-in trainer of the extension tests (``make_trainer``), for the Chainer layer's extensions."""

from ...training.extensions.conftest import make_trainer  # noqa: F401 - a fixture, found by name
