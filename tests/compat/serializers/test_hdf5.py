"""chainer.serializers' HDF5 side (with h5py; without it, a RuntimeError saying how to get it)."""

from __future__ import annotations

import sys

import numpy
import pytest

from fnet.compat import Parameter
from fnet.compat.link import Link
from fnet.compat.serializers import HDF5Deserializer, HDF5Serializer, load_hdf5, save_hdf5

from .test_npz import Thing, filled

h5py = pytest.importorskip("h5py", reason="HDF5 serialization needs h5py (pip install h5py)")


def test_round_trip_maps_children_to_groups(tmp_path):
    path = tmp_path / "thing.h5"
    save_hdf5(path, filled())
    with h5py.File(path, "r") as f:
        assert sorted(f) == ["child", "count", "w"] and sorted(f["child"]) == ["count", "w"]
        assert f["w"].compression == "gzip" and f["count"].compression is None
    thing = Thing()
    w = thing.w
    load_hdf5(path, thing)
    assert thing.w is w
    numpy.testing.assert_array_equal(thing.w, filled().w)
    assert (thing.count, thing.child.count) == (3, 7)


def test_save_hdf5_of_a_dict(tmp_path):
    path = tmp_path / "d.h5"
    save_hdf5(path, {"child/w": numpy.ones((2, 3)), "/count": 2}, compression=0)
    thing = Thing()
    d = HDF5Deserializer(h5py.File(path, "r"), strict=False)
    d.load(thing)
    assert thing.child.w[0, 0] == 1.0 and thing.count == 2 and thing.child.count == 0


def test_none_is_an_empty_dataset(tmp_path):
    path = tmp_path / "none.h5"
    with h5py.File(path, "w") as f:
        HDF5Serializer(f)["lazy"]("W", None)
    with h5py.File(path, "r") as f:
        assert f["lazy/W"].shape is None
        assert HDF5Deserializer(f)["lazy"]("W", numpy.zeros(2)) is None
    link = Link()
    with link.init_scope():
        link.lazy = Link()
        with link.lazy.init_scope():
            link.lazy.W = Parameter()
    load_hdf5(path, link)
    assert not link.lazy.W.is_initialized  # saved uninitialized, it stays so


def test_strict_errors_and_non_strict_skips(tmp_path):
    path = tmp_path / "thing.h5"
    save_hdf5(path, {"w": numpy.ones((2, 3)), "count": 4, "child/w": numpy.ones((2, 3))})
    with pytest.raises(KeyError, match=r"HDF5Deserializer: '/child/count' is not in '.*thing.h5'"):
        load_hdf5(path, Thing())
    with h5py.File(path, "r") as f:
        with pytest.raises(ValueError, match="cannot load 'w': the file has no group '/other'"):
            HDF5Deserializer(f)["other"]["deeper"]("w", numpy.zeros((2, 3)))
        thing = Thing()
        HDF5Deserializer(f, strict=False).load(thing)
        assert thing.count == 4 and thing.child.w[0, 0] == 1.0 and thing.child.count == 0
        with pytest.raises(ValueError, match="does not fit the target's shape"):
            HDF5Deserializer(f)("w", numpy.zeros(3))


def test_without_h5py_every_entry_point_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "h5py", None)  # import h5py now fails
    for call in (
        lambda: save_hdf5(tmp_path / "x.h5", {}),
        lambda: load_hdf5(tmp_path / "x.h5", Thing()),
        lambda: HDF5Serializer(None),
        lambda: HDF5Deserializer(None),
    ):
        with pytest.raises(RuntimeError, match="h5py is not installed") as info:
            call()
        assert "hint: pip install h5py" in str(info.value)
