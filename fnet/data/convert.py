"""Batch conversion: from a list of examples to the arrays a model takes (Chainer's converters).

``concat_examples`` stacks the examples of a batch into arrays (a tuple of arrays for tuple
examples, a dict for dict examples), padding arrays of different shapes if asked, and sends
them to a device. A converter is any callable ``converter(batch, device)``; the ``converter()``
decorator makes a function one that accepts every device spec (an int GPU id, ``'@numpy'``,
``'@cupy:0'``, a device object) and hands it a device object.

Device specs are read with ``fnet.backend.get_device`` unless a layer above registers its own
reader with ``set_device_reader`` (the Chainer layer registers ``chainer.get_device``'s rules);
either way the converter gets an ``fnet.backend.Device`` (Chainer's devices are such devices).
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable

import numpy

from .. import backend

__all__ = [
    "Converter",
    "converter",
    "concat_examples",
    "concat_examples_func",
    "to_device",
    "set_device_reader",
]

# ``reader(device_spec) -> Device``, registered by a layer above with its own rules; None: fnet's
_device_reader: Callable | None = None


def set_device_reader(reader: Callable | None) -> None:
    """Read device specs given to converters with ``reader(device_spec) -> Device`` from now on
    (None: ``fnet.backend.get_device``, with every negative int the CPU)."""
    global _device_reader
    _device_reader = reader


def _get_device(device_spec):
    """The device that ``device_spec`` names; None stays None (arrays stay where they are)."""
    if device_spec is None or isinstance(device_spec, backend.Device):
        return device_spec
    if _device_reader is not None:
        return _device_reader(device_spec)
    if (
        isinstance(device_spec, (int, numpy.integer))
        and not isinstance(device_spec, bool)
        and device_spec < 0
    ):
        return backend.CPU  # every negative id is the CPU, as in Chainer
    return backend.get_device(device_spec)


class Converter(abc.ABC):
    """Base class of converters: ``converter(batch, device)`` gives the model's inputs.

    ``batch`` is what the iterator gave (a list of examples); ``device`` is a device object,
    or None to leave the arrays where they are. Updaters and evaluators call converters that
    are not ``Converter`` instances the old way, with an int device (-1 for the CPU).
    """

    @abc.abstractmethod
    def __call__(self, batch, device):
        """The converted batch, on ``device``."""


class _CallableConverter(Converter):
    """A converter around a function; the device argument becomes a device object first."""

    def __init__(self, base_callable):
        if not callable(base_callable):
            raise TypeError(
                f"converter: can only decorate a callable, got {type(base_callable).__name__}\n"
                "  hint: use @converter() above a function def converter(batch, device)"
            )
        self.base_callable = base_callable
        functools.update_wrapper(self, base_callable)

    def __call__(self, *args, **kwargs):
        if len(args) >= 2:
            args = (args[0], _get_device(args[1]), *args[2:])
        elif "device" in kwargs:
            kwargs["device"] = _get_device(kwargs["device"])
        return self.base_callable(*args, **kwargs)


def converter():
    """Decorator making a function ``f(batch, device)`` a ``Converter``.

    The decorated converter accepts any device spec (an int GPU id, -1 for the CPU, a device
    string or object) and calls the function with a device object (or None).

    >>> @converter()
    ... def first_items(batch, device):
    ...     return to_device(device, numpy.array([example[0] for example in batch]))
    >>> isinstance(first_items, Converter), first_items([(1, 2), (3, 4)], -1)
    (True, array([1, 3]))
    """
    return _CallableConverter


def _call_converter(converter, batch, device):
    """Call ``converter`` as updaters and evaluators do: a ``Converter`` with the device object,
    any other callable with an int device (-1: the CPU, else the GPU id) or None."""
    device = _get_device(device)
    if isinstance(converter, Converter) or device is None:
        return converter(batch, device)
    return converter(batch, -1 if device.xp is numpy else device.id)


def _send(device, array):
    if isinstance(array, numpy.generic) or (not backend.is_array(array) and numpy.isscalar(array)):
        array = numpy.asarray(array)
    elif not backend.is_array(array):
        raise TypeError(
            f"to_device: expected an array (or a list or tuple of arrays), got {type(array).__name__}\n"
            "  hint: convert the data to a NumPy array first, e.g. with concat_examples"
        )
    return device.send(array)


def to_device(device, x):
    """Send the array ``x`` (or each array of a list or tuple) to ``device``.

    ``device`` is a device spec: None leaves ``x`` as it is, a negative int means the CPU, an
    int >= 0 the GPU of that id; device strings (``'@numpy'``, ``'@cupy:1'``) and device
    objects are taken too. Scalars become 0-dim arrays; an array given twice is sent once.

    >>> to_device(-1, 3.0), to_device(None, 3.0)
    (array(3.), 3.0)
    """
    device = _get_device(device)
    if device is None:
        return x
    if not isinstance(x, (list, tuple)):
        return _send(device, x)
    sent: dict = {}
    items = []
    for item in x:
        if item is not None and id(item) not in sent:
            sent[id(item)] = _send(device, item)
        items.append(None if item is None else sent[id(item)])
    return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)


def _column(batch, key, first):
    """``[example[key] for example in batch]``, with an error naming the example that lacks it."""
    try:
        return [example[key] for example in batch]
    except (IndexError, KeyError, TypeError):
        pass
    for i, example in enumerate(batch):
        try:
            example[key]
        except (IndexError, KeyError, TypeError) as error:
            raise type(error)(
                f"concat_examples: example {i} of the batch has no [{key!r}], unlike the first example "
                f"(a {type(first).__name__} of {len(first)} items); hint: every example of a batch must have "
                "the same structure"
            ) from error


def _stack(arrays, padding, where: str):
    """The arrays stacked along a new first axis (padded to a common shape if ``padding``)."""
    first = arrays[0]
    if not backend.is_array(first) or isinstance(first, numpy.generic):
        return numpy.asarray(arrays)  # Python scalars and lists, NumPy scalars: one shape, no padding
    device = backend.get_device_from_array(first)
    if device.xp is numpy:
        return _stack_on(numpy, arrays, padding, where)
    with backend.using_device(device):
        return _stack_on(device.xp, arrays, padding, where)


def _stack_on(xp, arrays, padding, where: str):
    if padding is None:
        try:
            return xp.concatenate([array[None] for array in arrays])
        except ValueError:
            shapes = sorted({tuple(array.shape) for array in arrays})
            if len(shapes) < 2:
                raise
            raise ValueError(
                f"concat_examples: the arrays{where} of the examples differ in shape: {shapes[0]} and "
                f"{shapes[1]}\n  hint: pass padding=<value> to pad them to the largest shape"
            ) from None
    ndims = {array.ndim for array in arrays}
    if len(ndims) > 1:
        raise ValueError(
            f"concat_examples: cannot pad the arrays{where} of the examples to one shape: they have "
            f"{min(ndims)} and {max(ndims)} dimensions\n  hint: give them the same number of dimensions"
        )
    shape = tuple(max(sizes) for sizes in zip(*(array.shape for array in arrays)))
    result = xp.full((len(arrays), *shape), padding, dtype=arrays[0].dtype)
    for i, array in enumerate(arrays):
        result[(i, *(slice(n) for n in array.shape))] = array
    return result


def concat_examples_func(batch, device=None, padding=None):
    """Stack a list of examples into arrays: the function of ``concat_examples``.

    Examples that are tuples give a tuple of arrays (the i-th stacks the examples' i-th
    items), dicts give a dict of arrays (keyed as the first example), anything else one array.
    Items that are not arrays (numbers, lists) are made arrays by ``numpy.asarray``. Arrays of
    different shapes raise ``ValueError`` unless ``padding`` is given: then the result has the
    smallest shape that holds them all (and the first example's dtype), filled with
    ``padding`` where the examples have no data. ``padding`` may be a tuple (for tuple
    examples) or a dict (for dict examples) of values per item. The arrays are then sent to
    ``device`` (None: they stay where they are).

    >>> concat_examples_func([(numpy.array([1, 2]), 0), (numpy.array([3]), 1)], padding=-1)
    (array([[ 1,  2],
           [ 3, -1]]), array([0, 1]))
    >>> concat_examples_func([{"x": 1.0}, {"x": 2.5}])
    {'x': array([1. , 2.5])}
    """
    if len(batch) == 0:
        raise ValueError(
            "concat_examples: the batch is empty\n  hint: an iterator that does not repeat ends with "
            "StopIteration; check the dataset and batch size"
        )
    first = batch[0]
    if isinstance(first, tuple):
        paddings = padding if isinstance(padding, tuple) else (padding,) * len(first)
        if len(paddings) < len(first):
            raise ValueError(
                f"concat_examples: padding has {len(paddings)} values for examples of {len(first)} items\n"
                "  hint: give one padding value per item, or a single value for all"
            )
        return tuple(
            to_device(device, _stack(_column(batch, i, first), paddings[i], f" [{i}]"))
            for i in range(len(first))
        )
    if isinstance(first, dict):
        paddings = padding if isinstance(padding, dict) else dict.fromkeys(first, padding)
        missing = [key for key in first if key not in paddings]
        if missing:
            raise KeyError(
                f"concat_examples: padding has no value for the key {missing[0]!r} of the examples; "
                "hint: give a padding value for every key, or a single value for all"
            )
        return {
            key: to_device(device, _stack(_column(batch, key, first), paddings[key], f" [{key!r}]"))
            for key in first
        }
    return to_device(device, _stack(batch, padding, ""))


concat_examples: Converter = _CallableConverter(concat_examples_func)
"""The default converter: ``concat_examples(batch, device=None, padding=None)``, i.e.
``concat_examples_func`` with the device spec made a device object."""
