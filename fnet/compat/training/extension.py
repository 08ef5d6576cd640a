"""``chainer.training.extension``: the extension base class, its decorator and the priorities."""

from ...training.extension import PRIORITY_EDITOR, PRIORITY_READER, PRIORITY_WRITER, Extension, make_extension

__all__ = ["Extension", "make_extension", "PRIORITY_WRITER", "PRIORITY_EDITOR", "PRIORITY_READER"]
