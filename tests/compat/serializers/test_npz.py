"""chainer.serializers' npz side: DictionarySerializer, NpzDeserializer, save_npz, load_npz."""

from __future__ import annotations

import io
import zipfile

import numpy
import pytest

from fnet import errors
from fnet.compat import Parameter, serializer
from fnet.compat.link import Link
from fnet.compat.serializers import DictionarySerializer, NpzDeserializer, load_npz, save_npz


class Thing:
    """A serializable object: an array, a count, a name and a child, as Chainer objects have."""

    def __init__(self, child: bool = True):
        self.w = numpy.zeros((2, 3), numpy.float32)
        self.count = 0
        self.child = Thing(child=False) if child else None

    def serialize(self, s) -> None:
        s("w", self.w)
        self.count = s("count", self.count)
        if self.child is not None:
            self.child.serialize(s["child"])


def filled(seed: int = 0) -> Thing:
    thing = Thing()
    rng = numpy.random.RandomState(seed)
    for t, count in ((thing, 3), (thing.child, 7)):
        t.w[...] = rng.standard_normal(t.w.shape)
        t.count = count
    return thing


def written(obj, **kwargs) -> io.BytesIO:
    f = io.BytesIO()
    save_npz(f, obj, **kwargs)
    f.seek(0)
    return f


# -- the protocol ---------------------------------------------------------------------------------


def test_bases_follow_chainers_protocol():
    assert issubclass(DictionarySerializer, serializer.Serializer)
    assert issubclass(NpzDeserializer, serializer.Deserializer)
    assert issubclass(serializer.Serializer, serializer.AbstractSerializer)
    with pytest.raises(TypeError):
        serializer.AbstractSerializer()

    class Calls:
        def serialize(self, s):
            self.given = s

    obj = Calls()
    s = DictionarySerializer()
    s.save(obj)
    assert obj.given is s
    d = NpzDeserializer({})
    d.load(obj)
    assert obj.given is d


def test_dictionary_serializer_keys_values_and_children():
    s = DictionarySerializer()
    child = s["/x/"]
    assert isinstance(child, DictionarySerializer) and child.path == "x/" and child.target is s.target
    data = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    assert child("/w", data) is data
    assert s("n", 10) == 10
    assert s("none", None) is None
    assert list(s.target) == ["x/w", "n", "none"]
    assert s.target["x/w"] is data  # host arrays are kept as they are, as in Chainer
    assert s.target["n"].shape == () and s.target["n"].dtype == numpy.int64
    none = s.target["none"]
    assert none.dtype == object and none.shape == () and none[()] is None
    shared = {}
    DictionarySerializer(shared, "a/")("b", 1.5)
    assert list(shared) == ["a/b"] and shared["a/b"].dtype == numpy.float64


# -- save_npz -------------------------------------------------------------------------------------


def test_save_npz_writes_chainer_keys(tmp_path):
    path = tmp_path / "thing.npz"
    save_npz(str(path), filled())
    with numpy.load(path, allow_pickle=False) as f:
        assert sorted(f.files) == ["child/count", "child/w", "count", "w"]
        assert int(f["child/count"]) == 7 and f["w"].dtype == numpy.float32
        numpy.testing.assert_array_equal(f["w"], filled().w)


@pytest.mark.parametrize("compression, method", [(True, zipfile.ZIP_DEFLATED), (False, zipfile.ZIP_STORED)])
def test_save_npz_compression_and_file_objects(compression, method):
    f = written(filled(), compression=compression)
    with zipfile.ZipFile(f) as archive:
        assert {info.compress_type for info in archive.infolist()} == {method}
    f.seek(0)
    with numpy.load(f) as loaded:
        assert int(loaded["count"]) == 3


def test_save_npz_of_a_dict_skips_serialization(tmp_path):
    path = tmp_path / "d.npz"
    save_npz(path, {"a/b": numpy.ones(2), "n": 4})
    with numpy.load(path) as f:
        assert sorted(f.files) == ["a/b", "n"] and int(f["n"]) == 4


def test_save_npz_leaves_none_out():
    target = {"w": numpy.ones(2), "lazy/W": numpy.asarray(None), "lazy/b": None}
    with numpy.load(written(target), allow_pickle=False) as f:
        assert f.files == ["w"]


def test_save_npz_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "thing.npz"
    save_npz(path, filled())
    before = path.read_bytes()
    bad = filled()
    bad.count = object()  # cannot be saved: nothing is written
    with pytest.raises(errors.InvalidInputError):
        save_npz(path, bad)
    assert path.read_bytes() == before
    write_array = numpy.lib.format.write_array

    def crash_after_the_first_member(member, array, **kwargs):
        write_array(member, array, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(numpy.lib.format, "write_array", crash_after_the_first_member)
    with pytest.raises(errors.CheckpointError, match="the previous file, if any, is unchanged"):
        save_npz(path, filled(seed=1))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thing.npz"]  # no temporary file left


# -- load_npz -------------------------------------------------------------------------------------


@pytest.mark.parametrize("as_file", [False, True])
def test_round_trip_copies_in_place_and_replaces_scalars(tmp_path, as_file):
    path = tmp_path / "thing.npz"
    save_npz(path, filled())
    thing = Thing()
    w, child_w = thing.w, thing.child.w
    if as_file:
        with open(path, "rb") as f:
            load_npz(f, thing)
    else:
        load_npz(str(path), thing)
    assert thing.w is w and thing.child.w is child_w  # arrays are filled in place
    numpy.testing.assert_array_equal(thing.w, filled().w)
    numpy.testing.assert_array_equal(thing.child.w, filled().child.w)
    assert (thing.count, thing.child.count) == (3, 7) and type(thing.count) is int


def test_load_npz_path_selects_a_subtree():
    f = written(
        {
            "model/w": numpy.full((2, 3), 2.0),
            "model/count": 5,
            "model/child/w": numpy.ones((2, 3)),
            "model/child/count": 1,
            "other": 0,
        }
    )
    thing = Thing()
    load_npz(f, thing, path="model/")
    assert thing.count == 5 and thing.w[0, 0] == 2.0 and thing.child.count == 1
    assert thing.w.dtype == numpy.float32  # cast into the target's dtype


def test_missing_entry_is_a_key_error_naming_key_and_file(tmp_path):
    path = tmp_path / "thing.npz"
    save_npz(path, filled())
    with pytest.raises(KeyError) as info:
        load_npz(path, Thing(), path="model/")
    text = str(info.value)
    assert text.startswith("NpzDeserializer: 'model/w' is not in '") and "thing.npz'" in text
    assert "hint: check path=" in text and "strict=False" in text
    with pytest.raises(KeyError, match="did you mean 'model/'"):
        load_npz(path, Thing(), path="model")
    with pytest.raises(KeyError, match="(?s)'modelchild/w' is not in the npz.*did you mean 'model/'"):
        NpzDeserializer({"modelw": 0}, path="model", ignore_names="modelcount")["child"]("w", Thing().w)


def test_non_strict_skips_missing_entries():
    f = written({"w": numpy.ones((2, 3))})
    thing = Thing()
    thing.count = 9
    load_npz(f, thing, strict=False)
    assert thing.count == 9 and thing.w[0, 0] == 1.0 and not thing.child.w.any()


@pytest.mark.parametrize(
    "ignore_names",
    ["count", ["count"], lambda key: key == "count", [lambda key: key.endswith("count"), "child/w"]],
    ids=["name", "names", "callable", "mixed"],
)
def test_ignore_names(ignore_names):
    thing = Thing()
    thing.count = 9
    load_npz(written(filled()), thing, ignore_names=ignore_names)
    assert thing.count == 9
    numpy.testing.assert_array_equal(thing.w, filled().w)


def test_ignore_names_match_the_full_key_and_need_not_exist():
    f = written({"m/w": numpy.ones((2, 3)), "m/count": 2, "m/child/w": numpy.ones((2, 3))})
    thing = Thing()
    load_npz(f, thing, path="m/", ignore_names=["m/child/count"])
    assert thing.count == 2 and thing.child.count == 0


def test_bad_ignore_names_is_a_value_error():
    with pytest.raises(
        ValueError, match="ignore_names must be a name, a callable or a list of them, got int"
    ):
        NpzDeserializer({}, ignore_names=[3])


def test_shape_mismatch_is_a_value_error():
    thing = Thing()
    thing.w = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(
        ValueError,
        match=r"NpzDeserializer: cannot load 'w' from '<file>': the saved array has shape \(2, 3\) where "
        r"the target has shape \(3, 2\)",
    ) as info:
        load_npz(written(filled()), thing)
    assert "saved: float32[2, 3]" in str(info.value) and "target: float32[3, 2]" in str(info.value)


@pytest.mark.parametrize(
    "saved", [numpy.float32(7.0), numpy.full(1, 7.0), numpy.full((1, 3), 7.0), numpy.ones(3)]
)
def test_an_entry_of_another_shape_is_never_broadcast_into_a_parameter(tmp_path, saved):
    import fnet.compat.links as L

    path = tmp_path / "one.npz"
    numpy.savez(path, W=saved, b=numpy.zeros(2, numpy.float32))
    layer = L.Linear(3, 2)
    before = layer.W.array.copy()
    with pytest.raises(
        ValueError, match=r"cannot load 'W' from '.*one.npz': the saved array has shape"
    ) as info:
        load_npz(path, layer)
    assert f"shape {numpy.shape(saved)} where the target has shape (2, 3)" in str(info.value)
    numpy.testing.assert_array_equal(layer.W.array, before)


def test_arrays_are_cast_as_numpy_copyto_but_never_broadcast():
    d = NpzDeserializer({"w": numpy.array([1.5, 2.5]), "i": numpy.arange(2, dtype=numpy.int8)})
    target = numpy.zeros(2, numpy.float16)
    assert d("w", target) is target
    numpy.testing.assert_array_equal(target, [1.5, 2.5])
    floats = numpy.zeros(2, numpy.float32)
    d("i", floats)
    numpy.testing.assert_array_equal(floats, [0, 1])
    with pytest.raises(TypeError, match="float64 data cannot be cast to the target's dtype int32"):
        d("w", numpy.zeros(2, numpy.int32))
    with pytest.raises(
        errors.ShapeError, match=r"the saved array has shape \(2,\) where the target has shape"
    ):
        d("w", numpy.zeros((3, 2), numpy.float16))


def test_scalars_are_converted_safely():
    d = NpzDeserializer(
        {
            "z": numpy.asarray(10),
            "zi64": numpy.asarray(-(2**60)),
            "zf32": numpy.asarray(1.5, numpy.float32),
            "flag": numpy.asarray(True),
            "name": numpy.asarray("log"),
            "v": numpy.arange(3),
        }
    )
    assert d("z", 5) == 10 and type(d("z", 5)) is int
    assert d("zi64", 5) == -(2**60)
    assert d("zf32", 0.0) == 1.5 and type(d("zf32", 0.0)) is float
    assert d("flag", False) is True
    assert d("name", "") == "log"
    with pytest.raises(TypeError, match="int64 data cannot be safely converted to uint32"):
        d("zi64", numpy.uint32(5))
    with pytest.raises(TypeError, match="float32 data cannot be safely converted to int"):
        d("zf32", 5)
    with pytest.raises(TypeError, match="the saved array has 3 elements where a int is loaded"):
        d("v", 0)


def test_none_values_and_none_targets():
    d = NpzDeserializer({"w": numpy.asarray(None), "x": numpy.arange(3.0)})
    assert d("w", None) is None
    assert d("w", numpy.empty(1, numpy.float32)) is None  # saved None leaves the target alone
    loaded = d("x", None)
    numpy.testing.assert_array_equal(loaded, [0.0, 1.0, 2.0])


def test_deserializer_children_and_strip():
    d = NpzDeserializer({"a/b/c": numpy.asarray(1)}, path="a/", strict=False, ignore_names="x")
    child = d["/b/"]
    assert isinstance(child, NpzDeserializer) and child.path == "a/b/"
    assert (child.strict, child.ignore_names) == (False, "x")
    assert child("/c", 0) == 1
    assert NpzDeserializer({}).ignore_names == []


def test_uninitialized_parameters_take_the_saved_shape():
    saved = numpy.arange(6, dtype=numpy.float64).reshape(2, 3)
    link = Link()
    with link.init_scope():
        link.W = Parameter()
        link.x = Parameter(shape=())
    load_npz(written({"W": saved, "x": numpy.asarray(10, numpy.float32)}), link)
    assert link.W.shape == (2, 3) and link.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W.array, saved)
    assert link.x.array == 10


def test_unreadable_files_raise_checkpoint_errors(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(errors.CheckpointError, match="is not a readable npz file"):
        load_npz(bad, Thing())
    with pytest.raises(OSError):
        load_npz(tmp_path / "missing.npz", Thing())


def test_a_chainer_file_with_an_uninitialized_parameter_loads_leaving_it_uninitialized():
    import os

    import fnet.compat as chainer
    import fnet.compat.links as L
    from fnet.compat.serializers import load_npz

    path = os.path.join(os.path.dirname(__file__), "..", "..", "golden", "io_chainer.npz")
    lazy = chainer.Chain()
    with lazy.init_scope():
        lazy.lazy = L.Linear(2)
    load_npz(path, lazy, path="predictor/")
    assert lazy.lazy.W.array is None and lazy.lazy.b.shape == (2,)


def test_an_object_entry_other_than_none_is_an_error_naming_the_key(tmp_path, monkeypatch):
    import pickle

    import fnet.compat.links as L

    def refuse(*args, **kwargs):
        raise AssertionError("pickle was used")

    path = tmp_path / "objects.npz"
    numpy.savez(path, W=numpy.array([[1.0, 2.0, 3.0]] * 2, dtype=object), b=numpy.zeros(2, numpy.float32))
    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    layer = L.Linear(3, 2)
    with pytest.raises(
        errors.CheckpointError,
        match=r"load_npz: '.*objects.npz' cannot be read at entry 'W': it holds pickled",
    ):
        load_npz(path, layer)
    layer = L.Linear(3, 2)
    load_npz(path, layer, ignore_names="W")  # entries that are not asked for are never read
    assert not layer.b.array.any()


def test_a_damaged_entry_is_a_checkpoint_error_naming_file_and_key(tmp_path):
    path = tmp_path / "thing.npz"
    save_npz(path, filled(), compression=False)
    data = bytearray(path.read_bytes())
    data[data.rindex(filled().child.w.tobytes()) + 5] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(
        errors.CheckpointError, match="'.*thing.npz' cannot be read at entry 'child/w': BadZip"
    ):
        load_npz(path, Thing())
