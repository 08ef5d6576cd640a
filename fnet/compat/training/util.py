"""``chainer.training.util``: ``get_trigger``."""

from ...training.triggers import get_trigger

__all__ = ["get_trigger"]
