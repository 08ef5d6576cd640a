"""``chainer.serializers.npz``: Chainer's NPZ serialization, from the core.

The (de)serializers are ``fnet.serialization``'s and the files are written and read by
``fnet.io`` (``save_npz`` is ``fnet.io.save_object``, ``load_npz`` is ``fnet.io.load_object``):
keys are Chainer's (``predictor/l1/W``), so files written here load in Chainer and Chainer's
files load here; writes to a path are atomic and nothing is ever unpickled.

>>> import io, numpy
>>> class Counter:
...     def __init__(self):
...         self.steps = 3
...     def serialize(self, serializer):
...         self.steps = serializer("steps", self.steps)
>>> f = io.BytesIO()
>>> save_npz(f, Counter())
>>> fresh = Counter()
>>> fresh.steps = 0
>>> load_npz(io.BytesIO(f.getvalue()), fresh)
>>> fresh.steps
3
"""

from ...io.objects import load_object as load_npz
from ...io.objects import save_object as save_npz
from ...serialization import DictionarySerializer, NpzDeserializer, serialize

__all__ = ["DictionarySerializer", "NpzDeserializer", "serialize", "save_npz", "load_npz"]
