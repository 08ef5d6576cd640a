"""fnet.serialization and fnet.io.save_object / load_object: the serializer protocol in the core,
and the same classes and functions under the Chainer layer's paths."""

from __future__ import annotations

import numpy
import pytest

import fnet.io
from fnet import serialization


class Model:
    def __init__(self, scale=1.0):
        self.W = numpy.full((2, 3), scale, numpy.float32)
        self.t = int(scale)
        self.child = Child(scale)

    def serialize(self, serializer):
        serializer("W", self.W)
        self.t = serializer("t", self.t)
        self.child.serialize(serializer["child"])


class Child:
    def __init__(self, scale):
        self.b = numpy.full(3, -scale, numpy.float32)
        self.missing = None

    def serialize(self, serializer):
        serializer("b", self.b)
        self.missing = serializer("missing", self.missing)


def test_serialize_flattens_by_path_and_npz_deserializer_loads_back():
    saved = serialization.serialize(Model(2.0))
    assert sorted(saved) == ["W", "child/b", "child/missing", "t"]
    assert serialization.is_saved_none(saved["child/missing"])
    fresh = Model(0.0)
    serialization.NpzDeserializer(saved).load(fresh)
    assert (fresh.W == 2).all() and (fresh.child.b == -2).all() and fresh.t == 2
    assert fresh.child.missing is None


def test_strict_npz_deserializer_names_the_missing_key():
    with pytest.raises(KeyError, match="'child/b' is not in the npz"):
        serialization.NpzDeserializer({"W": numpy.zeros((2, 3)), "t": numpy.asarray(1)}).load(Model())


def test_save_object_and_load_object_round_trip_through_a_file(tmp_path):
    path = tmp_path / "model.npz"
    fnet.io.save_object(path, Model(3.0))
    with fnet.io.open_npz(path) as entries:
        assert sorted(entries) == ["W", "child/b", "t"]  # None is left out, never pickled
    fresh = Model(0.0)
    fnet.io.load_object(path, fresh, strict=False)  # strict=True would miss child/missing
    assert (fresh.W == 3).all() and (fresh.child.b == -3).all() and fresh.t == 3
    only_child = Child(0.0)
    fnet.io.load_object(path, only_child, path="child/", strict=False)
    assert (only_child.b == -3).all()


def test_the_chainer_layer_uses_the_same_classes_and_functions():
    import fnet.compat as chainer
    from fnet.compat import serializers
    from fnet.compat.serializers import npz

    assert chainer.Serializer is chainer.serializer.Serializer is serialization.Serializer
    assert chainer.Deserializer is serialization.Deserializer
    assert chainer.AbstractSerializer is serialization.AbstractSerializer
    assert serializers.DictionarySerializer is serialization.DictionarySerializer
    assert serializers.NpzDeserializer is serialization.NpzDeserializer
    assert npz.serialize is serialization.serialize
    assert serializers.save_npz is fnet.io.save_object and serializers.load_npz is fnet.io.load_object
    assert isinstance(serialization.DictionarySerializer(), chainer.serializer.Serializer)
    assert issubclass(serializers.HDF5Deserializer, serialization.Deserializer)
