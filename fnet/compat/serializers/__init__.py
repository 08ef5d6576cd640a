"""``chainer.serializers``: save and load objects that follow the serializer protocol (npz, HDF5)."""

from .hdf5 import HDF5Deserializer, HDF5Serializer, load_hdf5, save_hdf5
from .npz import DictionarySerializer, NpzDeserializer, load_npz, save_npz

__all__ = [
    "DictionarySerializer",
    "NpzDeserializer",
    "save_npz",
    "load_npz",
    "HDF5Serializer",
    "HDF5Deserializer",
    "save_hdf5",
    "load_hdf5",
]
