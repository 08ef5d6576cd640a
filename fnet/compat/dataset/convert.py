"""``chainer.dataset.convert``: batch conversion (fnet.data.convert), and Chainer's converter
that copies batches to the GPU on a stream of their own."""

from __future__ import annotations

from ...data.convert import Converter, _stack, concat_examples, concat_examples_func, converter, to_device
from ..backends import cuda

__all__ = [
    "Converter",
    "converter",
    "concat_examples",
    "concat_examples_func",
    "to_device",
    "ConcatWithAsyncTransfer",
]


def _concat_arrays(arrays, padding):
    """The items of one column of a batch stacked into one array (padded with ``padding`` to a
    common shape when it is not None): Chainer's helper of ``concat_examples``.

    >>> import numpy
    >>> _concat_arrays([numpy.array([1, 2]), numpy.array([3])], -1)
    array([[ 1,  2],
           [ 3, -1]])
    """
    return _stack(arrays, padding, "")


class ConcatWithAsyncTransfer:
    """A converter (``concat_examples``) whose copies to the GPU run on ``stream`` (made on the
    first call to a GPU when None), so that they can overlap with the kernels of the previous
    batch. With ``compute_stream``, that stream waits for the copy instead of the host.

    Every call must name the same ``device`` as the first (Chainer's rule, since the stream
    belongs to that device). On the CPU it is ``concat_examples``.

    >>> import numpy
    >>> ConcatWithAsyncTransfer()([(numpy.zeros(2), 0), (numpy.ones(2), 1)])
    (array([[0., 0.],
           [1., 1.]]), array([0, 1]))
    """

    def __init__(self, stream=None, compute_stream=None):
        self._stream = stream
        self.compute_stream = compute_stream
        self._device, self._used = None, False

    def __call__(self, batch, device=None, padding=None):
        if not self._used:
            self._device, self._used = device, True
        elif device != self._device:
            raise ValueError(
                f"ConcatWithAsyncTransfer: device is different: the first call used {self._device!r}, "
                f"this one {device!r}\n  hint: use one converter per device"
            )
        stream = self._gpu_stream(device)
        if stream is None:
            return concat_examples(batch, device, padding)
        with stream:
            result = concat_examples(batch, device, padding)
        if self.compute_stream is not None:
            self.compute_stream.wait_event(stream.record())
        else:
            stream.synchronize()
        return result

    def _gpu_stream(self, device):
        """The copy stream when ``device`` is a GPU id (created there on first use), else None."""
        if not cuda.available or isinstance(device, bool) or not isinstance(device, int) or device < 0:
            return None
        if self._stream is None:
            with cuda.get_device_from_id(device):
                self._stream = cuda.cupy.cuda.Stream(non_blocking=True)
        return self._stream
