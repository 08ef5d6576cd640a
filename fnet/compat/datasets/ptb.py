"""``chainer.datasets.ptb``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import get_ptb_words, get_ptb_words_vocabulary

__all__ = ["get_ptb_words", "get_ptb_words_vocabulary"]
