"""``chainer.dataset.convert``: batch conversion (fnet.data.convert)."""

from ...data.convert import Converter, concat_examples, concat_examples_func, converter, to_device

__all__ = ["Converter", "converter", "concat_examples", "concat_examples_func", "to_device"]
