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
        with pytest.raises(
            TypeError, match=r"cannot load '/w' from '.*thing.h5': the saved array has shape \(2, 3\) where"
        ) as info:
            HDF5Deserializer(f)("w", numpy.zeros(3))
        assert isinstance(info.value, ValueError)  # also a ShapeError


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


def test_a_one_element_dataset_is_never_broadcast_into_a_parameter(tmp_path):
    import fnet.compat.links as L

    path = tmp_path / "one.h5"
    save_hdf5(path, {"W": numpy.full(1, 7.0, numpy.float32), "b": numpy.zeros(2, numpy.float32)})
    layer = L.Linear(3, 2)
    before = layer.W.array.copy()
    with pytest.raises(
        TypeError, match=r"cannot load '/W' from '.*one.h5': the saved array has shape \(1,\)"
    ):
        load_hdf5(path, layer)
    numpy.testing.assert_array_equal(layer.W.array, before)


def test_a_failed_save_leaves_the_previous_file(tmp_path):
    path = tmp_path / "thing.h5"
    save_hdf5(path, filled())
    before = path.read_bytes()
    with pytest.raises(TypeError):  # h5py cannot save object arrays
        save_hdf5(path, {"w": numpy.ones(3), "bad": numpy.array([{}, 1], dtype=object)})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thing.h5"]


@pytest.mark.skipif(sys.platform != "linux", reason="sets a file-size limit with the resource module")
def test_a_save_past_a_file_size_limit_is_a_checkpoint_error_and_keeps_the_previous_file(tmp_path):
    import subprocess
    import textwrap

    path = tmp_path / "big.h5"
    save_hdf5(path, {"w": numpy.ones(3)})
    before = path.read_bytes()
    script = textwrap.dedent(
        f"""
        import resource, numpy
        from fnet.compat.serializers import save_hdf5
        from fnet.errors import CheckpointError
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
        try:
            save_hdf5({str(path)!r}, {{f"l{{i}}/W": numpy.random.rand(100, 100) for i in range(5)}})
        except CheckpointError as error:
            print(error)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"save_hdf5: cannot write '{path}': File too large" in done.stdout
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.h5"]


def test_unreadable_files_and_datasets_are_checkpoint_errors_naming_file_and_key(tmp_path):
    from fnet.errors import CheckpointError

    path = tmp_path / "thing.h5"
    save_hdf5(path, filled())
    data = path.read_bytes()
    with pytest.raises(CheckpointError, match="load_hdf5: cannot open '.*missing.h5'"):
        load_hdf5(tmp_path / "missing.h5", Thing())
    (tmp_path / "cut.h5").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="load_hdf5: cannot open '.*cut.h5': OSError: .*truncated"):
        load_hdf5(tmp_path / "cut.h5", Thing())
    with h5py.File(path, "r") as f:
        offset = f["child/w"].id.get_chunk_info(0).byte_offset  # the gzip stream of /child/w
    damaged = bytearray(data)
    for i in range(offset + 2, offset + 12):
        damaged[i] ^= 0xFF
    (tmp_path / "damaged.h5").write_bytes(bytes(damaged))
    with pytest.raises(
        CheckpointError, match=r"HDF5Deserializer: '.*damaged.h5' cannot be read at '/child/w': OSError"
    ):
        load_hdf5(tmp_path / "damaged.h5", Thing())
