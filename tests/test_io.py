"""Tests of fnet.io: round trips, damaged files, atomic writes, ``like`` checks, and npz with Chainer."""

from __future__ import annotations

import collections
import json
import os
import pathlib
import pickle
import signal
import struct
import subprocess
import sys
import zipfile
import zlib
from io import BytesIO

import attrs
import msgpack
import numpy
import pytest

import fnet
from fnet import errors, io, tree

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
CHAINER_PYTHON = ROOT / "benchmarks" / ".venvs" / "chainer" / "bin" / "python"

DTYPES = [
    numpy.bool_,
    numpy.int8,
    numpy.int16,
    numpy.int32,
    numpy.int64,
    numpy.uint8,
    numpy.uint16,
    numpy.uint32,
    numpy.uint64,
    numpy.float16,
    numpy.float32,
    numpy.float64,
    numpy.complex64,
    numpy.complex128,
]

Pair = collections.namedtuple("Pair", "first second")


@attrs.frozen
class State:
    count: int
    moments: dict
    name: str = tree.static_field(default="adam")


def same(a, b) -> bool:
    """Equal trees: the same node types, leaf types, dtypes, shapes and values (NaN equal to NaN)."""
    la, sa = tree.flatten(a)
    lb, sb = tree.flatten(b)
    if sa != sb or len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if type(x) is not type(y):
            return False
        if isinstance(x, (numpy.ndarray, numpy.generic)):
            if (
                x.dtype != y.dtype
                or x.shape != y.shape
                or not numpy.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
            ):
                return False
        elif not (x == y or (x != x and y != y)):
            return False
    return True


def sample(dtype, shape=(2, 3)) -> numpy.ndarray:
    values = numpy.arange(numpy.prod(shape)).reshape(shape) * 7 - 5
    if numpy.dtype(dtype).kind == "c":
        return (values - 0.5j * values).astype(dtype)
    return values.astype(dtype)


def nested_tree():
    return {
        "layers": [
            {"W": numpy.arange(6, dtype=numpy.float32).reshape(2, 3), "b": None},
            {"W": numpy.zeros((0, 3)), "b": numpy.array(1.5)},
        ],
        "pair": (numpy.float16(2.5), (), [], {}),
        "by_index": {0: numpy.int8(3), 7: "seven", -(2**63): b"\x00bytes"},
        "scalars": [
            True,
            False,
            0,
            -(2**63),
            2**64 - 1,
            1.25,
            float("inf"),
            float("nan"),
            3 - 4j,
            "héllo",
            b"",
        ],
        "fortran": numpy.asfortranarray(numpy.arange(12.0).reshape(3, 4)),
        "strided": numpy.arange(20, dtype=numpy.int32)[::3],
    }


# -- round trips --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_round_trip_every_dtype(tmp_path, dtype):
    path = tmp_path / "a.ckpt"
    saved = {"array": sample(dtype), "empty": numpy.zeros((3, 0), dtype), "zero_d": sample(dtype, ())}
    saved["scalar"] = saved["zero_d"][()]
    io.save(path, saved)
    assert same(io.load(path), saved)
    assert same(io.load(path, like=saved), saved)


def test_round_trip_byte_order(tmp_path):
    big = numpy.arange(4, dtype=">i4")
    io.save(tmp_path / "a.ckpt", [big])
    loaded = io.load(tmp_path / "a.ckpt")[0]
    assert loaded.dtype == numpy.dtype(">i4") and loaded.tolist() == [0, 1, 2, 3]


def test_round_trip_nested_tree(tmp_path):
    path = tmp_path / "nested.ckpt"
    saved = nested_tree()
    io.save(str(path), saved)
    loaded = io.load(path)
    assert same(loaded, saved)
    assert (
        type(loaded["pair"]) is tuple and type(loaded["layers"]) is list and loaded["layers"][0]["b"] is None
    )
    assert loaded["layers"][0]["W"].flags.writeable and loaded["fortran"].flags.c_contiguous
    assert same(io.load(path, like=saved), saved)


@pytest.mark.parametrize("saved", [numpy.ones(3), None, {}, [], 5, "text"], ids=repr)
def test_round_trip_roots(tmp_path, saved):
    io.save(tmp_path / "root.ckpt", saved)
    assert same(io.load(tmp_path / "root.ckpt"), saved)


def test_custom_nodes_need_like(tmp_path):
    path = tmp_path / "state.ckpt"
    saved = Pair(State(3, {"W": numpy.ones(2)}, name="sgd"), [numpy.int64(5)])
    io.save(path, saved)
    template = Pair(State(0, {"W": numpy.zeros(2)}, name="sgd"), [numpy.int64(0)])
    loaded = io.load(path, like=template)
    assert isinstance(loaded, Pair) and isinstance(loaded.first, State) and loaded.first.name == "sgd"
    assert same(loaded, saved)
    with pytest.raises(
        errors.CheckpointError, match=r"holds a tests.test_io.Pair node at the root, which only like= can"
    ):
        io.load(path)


def test_loaded_arrays_are_fresh_and_writable(tmp_path):
    path = tmp_path / "a.ckpt"
    io.save(path, {"W": numpy.ones(2, numpy.float32)})
    first, second = io.load(path), io.load(path)
    first["W"][0] = 5.0
    assert second["W"].tolist() == [1.0, 1.0]


# -- damaged files ------------------------------------------------------------------------------


@pytest.fixture
def small_file(tmp_path):
    path = tmp_path / "small.ckpt"
    io.save(path, {"W": numpy.arange(3, dtype=numpy.float32), "n": 7, "t": (None, "x")})
    return path


def test_truncation_at_every_byte_is_detected(small_file, tmp_path):
    data = small_file.read_bytes()
    cut = tmp_path / "cut.ckpt"
    for size in range(len(data)):
        cut.write_bytes(data[:size])
        with pytest.raises(
            errors.CheckpointError, match=f"io.load: '{cut}' is truncated: it has {size} bytes"
        ):
            io.load(cut)


def test_a_flipped_byte_anywhere_is_detected(small_file, tmp_path):
    data = small_file.read_bytes()
    damaged = tmp_path / "damaged.ckpt"
    for position in range(len(data)):
        for mask in (0x01, 0x80):
            flipped = bytearray(data)
            flipped[position] ^= mask
            damaged.write_bytes(bytes(flipped))
            with pytest.raises(errors.CheckpointError, match=f"io.load: '{damaged}' "):
                io.load(damaged)


def test_header_damage_messages(small_file):
    data = small_file.read_bytes()

    def with_bytes(position, new):
        small_file.write_bytes(data[:position] + new + data[position + len(new) :])

    with_bytes(0, b"X")
    with pytest.raises(
        errors.CheckpointError, match="is not an fnet checkpoint: it does not start with fnet's magic"
    ):
        io.load(small_file)
    with_bytes(8, struct.pack("<I", 2))
    with pytest.raises(errors.CheckpointError, match="has format version 2; this fnet reads version 1"):
        io.load(small_file)
    with_bytes(20, b"\x00\x00\x00\x00")
    with pytest.raises(errors.CheckpointError, match="is corrupt: its checksum does not match its contents"):
        io.load(small_file)
    small_file.write_bytes(data + b"\x00")
    with pytest.raises(errors.CheckpointError, match="has 1 bytes after the end its header gives"):
        io.load(small_file)


def test_not_a_checkpoint(tmp_path):
    (tmp_path / "text").write_text("hello, world")
    with pytest.raises(errors.CheckpointError, match="fnet.io.load reads files written by fnet.io.save"):
        io.load(tmp_path / "text")
    io.save_npz(tmp_path / "a.npz", {"W": numpy.ones(2)})
    with pytest.raises(
        errors.CheckpointError, match="hint: it is a zip \\(npz\\) file: use fnet.io.load_npz"
    ):
        io.load(tmp_path / "a.npz")


def test_missing_file(tmp_path):
    with pytest.raises(errors.CheckpointError, match="'.*nothing.ckpt' cannot be read: No such file") as info:
        io.load(tmp_path / "nothing.ckpt")
    assert isinstance(info.value, OSError)


def _file_with_payload(path, content) -> None:
    """A file with a valid header and checksum around ``content`` (packed unless it is bytes)."""
    payload = content if isinstance(content, bytes) else msgpack.packb(content, use_bin_type=True)
    checked = struct.pack("<IQ", 1, len(payload))
    crc = zlib.crc32(payload, zlib.crc32(checked))
    path.write_bytes(b"\x89FNET\r\n\x1a" + checked + struct.pack("<I", crc) + payload)


LEAF = {"node": "leaf"}
GOOD_ARRAY = {"kind": "ndarray", "dtype": "<f4", "shape": [2], "data": bytes(8)}
# a leaf nested in 2000 one-element lists (msgpack reads 1024 levels), and a structure of 300
# nested one-child lists (io.save writes 256 levels), written as raw msgpack
DEEP_MSGPACK = (
    b"\x82" + msgpack.packb("structure") + msgpack.packb(LEAF) + msgpack.packb("leaves")
    + b"\x81" + msgpack.packb("") + b"\x91" * 2000 + b"\x01"
)  # fmt: skip
DEEP_STRUCTURE = (
    b"\x82" + msgpack.packb("structure")
    + (b"\x82" + msgpack.packb("node") + msgpack.packb("list") + msgpack.packb("children") + b"\x91") * 300
    + msgpack.packb(LEAF) + msgpack.packb("leaves") + msgpack.packb({"/".join(["0"] * 300): 1})
)  # fmt: skip


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"\xc1", "its payload is not valid msgpack"),
        ([1, 2], "its payload is not a map of 'structure' and 'leaves'"),
        ({"structure": LEAF, "leaves": []}, "'leaves' is not a map"),
        ({"structure": LEAF, "leaves": {}}, "the leaf at the root has no value"),
        ({"structure": {"node": "none"}, "leaves": {"x": 1}}, "the leaf at 'x' is not in the structure"),
        ({"structure": {"node": "set"}, "leaves": {}}, "unknown node 'set' at the root"),
        ({"structure": [1], "leaves": {}}, "the structure at the root is not a node description"),
        (
            {"structure": {"node": "dict", "keys": ["a"], "children": [LEAF, LEAF]}, "leaves": {}},
            "the dict node at the root has bad keys or type",
        ),
        (
            {"structure": {"node": "list", "children": [LEAF, LEAF]}, "leaves": {"0": 1, "1": 2}},
            None,
        ),
        (
            {"structure": {"node": "dict", "keys": ["0", 0], "children": [LEAF, LEAF]}, "leaves": {"0": 1}},
            "two leaves of its structure have the same path",
        ),
        ({"structure": LEAF, "leaves": {"": [1]}}, "the leaf at the root is not an encoded value"),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "dtype": "|O"}}},
            "the array at the root has a bad dtype",
        ),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "dtype": "i8,i8"}}},
            "the array at the root has a bad dtype",
        ),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "shape": [3]}}},
            "the array at the root has a bad dtype, shape or size",
        ),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "shape": [-2]}}},
            "the array at the root has a bad dtype, shape or size",
        ),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "data": "text"}}},
            "the array at the root has a bad dtype, shape or size",
        ),
        (
            {"structure": LEAF, "leaves": {"": {"kind": "complex", "real": 1}}},
            "the leaf at the root is not an encoded value",
        ),
        (
            {"structure": LEAF, "leaves": {"": msgpack.ExtType(1, b"")}},
            "the leaf at the root is not an encoded value",
        ),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "shape": [1] * 100, "data": bytes(4)}}},
            r"the array at the root has a shape NumPy cannot hold \(100 dimensions, shape \(1, 1, 1, 1,",
        ),
        (
            {"structure": LEAF, "leaves": {"": {**GOOD_ARRAY, "shape": [2**62, 2**62, 0], "data": b""}}},
            r"the array at the root has a shape NumPy cannot hold \(shape \(4611686018427387904, ",
        ),
        (DEEP_MSGPACK, "its payload nests deeper than msgpack reads"),
        (DEEP_STRUCTURE, "its structure nests deeper than 256 levels, which io.save never writes"),
    ],
)
def test_crafted_payloads_are_rejected_without_running_anything(tmp_path, content, problem):
    path = tmp_path / "crafted.ckpt"
    _file_with_payload(path, content)
    if problem is None:  # a well-formed payload, as a control
        assert io.load(path) == [1, 2]
        return
    with pytest.raises(errors.CheckpointError, match=f"'{path}' is corrupt: {problem}"):
        io.load(path)


def test_no_pickle_anywhere(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pickle was used")

    for name in ("dump", "dumps", "load", "loads", "Pickler", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    saved = nested_tree()
    io.save(tmp_path / "a.ckpt", saved)
    assert same(io.load(tmp_path / "a.ckpt"), saved)
    params = {"l1": {"W": numpy.ones((2, 3), numpy.float32)}, "N": 3}
    io.save_npz(tmp_path / "a.npz", params)
    assert io.load_npz(tmp_path / "a.npz", like=params)["N"] == 3


# -- atomic writes ------------------------------------------------------------------------------


def _files(directory) -> list[str]:
    return sorted(os.listdir(directory))


def test_an_unserializable_leaf_leaves_the_previous_file_intact(small_file):
    before = small_file.read_bytes()
    with pytest.raises(
        errors.InvalidInputError, match=r"io.save: cannot save the leaf at 'b/1': a value of type object"
    ):
        io.save(small_file, {"a": numpy.ones(2), "b": [1, object()]})
    assert small_file.read_bytes() == before
    assert _files(small_file.parent) == ["small.ckpt"]


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_failure_mid_write_leaves_the_previous_file_intact(small_file, monkeypatch, failing):
    before = small_file.read_bytes()

    def fail(*args):
        raise RuntimeError(f"simulated crash in os.{failing}")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(RuntimeError, match="simulated crash"):
        io.save(small_file, {"W": numpy.zeros(100)})
    with pytest.raises(RuntimeError, match="simulated crash"):
        io.save_npz(small_file, {"W": numpy.zeros(100)})
    monkeypatch.undo()
    assert small_file.read_bytes() == before
    assert _files(small_file.parent) == ["small.ckpt"]
    assert io.load(small_file)["n"] == 7


def test_an_os_error_mid_write_is_a_checkpoint_error(small_file, monkeypatch):
    before = small_file.read_bytes()

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(
        errors.CheckpointError, match="io.save: cannot write '.*small.ckpt': No space left on device"
    ):
        io.save(small_file, {"W": numpy.zeros(3)})
    monkeypatch.undo()
    assert small_file.read_bytes() == before and _files(small_file.parent) == ["small.ckpt"]


def test_a_missing_directory_is_a_checkpoint_error(tmp_path):
    with pytest.raises(errors.CheckpointError, match="hint: the directory must exist and be writable"):
        io.save(tmp_path / "no" / "such" / "dir.ckpt", {"W": numpy.ones(2)})


def test_save_replaces_the_file_with_ordinary_permissions(tmp_path):
    path = tmp_path / "a.ckpt"
    io.save(path, 1)
    io.save(path, 2)
    assert io.load(path) == 2 and _files(tmp_path) == ["a.ckpt"]
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_save_through_a_symlink_writes_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    link = tmp_path / "latest.ckpt"
    link.symlink_to(tmp_path / "real" / "a.ckpt")
    io.save(link, {"step": 3})
    assert link.is_symlink() and io.load(tmp_path / "real" / "a.ckpt") == {"step": 3}


STALLED_SAVE = """
import os, sys, time, numpy
from fnet import io

def stall(fd):  # the data is written and flushed: stop before the rename, as a kill -9 would
    print("writing", flush=True)
    time.sleep(600)

os.fsync = stall
io.save(sys.argv[1], {"W": numpy.ones(1000)})
"""


def _stalled_saves(path, n: int) -> list[subprocess.Popen]:
    """``n`` processes, each in the middle of ``io.save(path, ...)`` with its temporary file written."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", STALLED_SAVE, str(path)], stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        for _ in range(n)
    ]
    for child in children:
        assert child.stdout.readline() == "writing\n"
    return children


def _kill(child: subprocess.Popen) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()


@pytest.mark.skipif(sys.platform == "win32", reason="temporary files are owned through fcntl locks")
def test_the_next_save_removes_the_temporary_files_of_killed_saves_and_only_those(tmp_path):
    path = tmp_path / "model.ckpt"
    io.save(path, {"step": 0})
    decoys = [
        ".model.ckpt.backup",  # a user's file
        ".model.ckpt.0123abcd.tmp",  # not 16 hex digits
        ".model.ckpt.0123456789ABCDEF.tmp",
        "model.ckpt.0123456789abcdef.tmp",
        ".other.ckpt.0123456789abcdef.tmp",  # another target's
        ".model.ckpt.0123456789abcdef.tmp.x",
    ]
    for name in decoys:
        (tmp_path / name).write_text("keep me")
    (tmp_path / ".model.ckpt.fedcba9876543210.tmp").touch()  # empty: it may be about to be locked
    killed, alive = _stalled_saves(path, 3), _stalled_saves(path, 1)[0]
    try:
        temps = {p.name for p in tmp_path.glob(".model.ckpt.*.tmp")} - set(decoys)
        assert len(temps) == 5
        for child in killed:
            _kill(child)
        io.save(path, {"step": 1})
        left = {p.name for p in tmp_path.glob(".model.ckpt.*.tmp")} - set(decoys)
        assert len(left) == 2 and ".model.ckpt.fedcba9876543210.tmp" in left  # and the live save's
    finally:
        _kill(alive)
    io.save(path, {"step": 2})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*decoys, "model.ckpt", ".model.ckpt.fedcba9876543210.tmp"]
    )
    assert all((tmp_path / name).read_text() == "keep me" for name in decoys)
    assert io.load(path) == {"step": 2}


# -- bad trees ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, error, problem",
    [
        ({"a/b": 1, "a": {"b": 2}}, errors.InvalidInputError, "io.save: two leaves have the same path 'a/b'"),
        (
            {(1, 2): numpy.ones(2)},
            errors.InvalidInputError,
            r"the dict at the root: key \(1, 2\) is not str or int",
        ),
        ({"x": {2**70: 1}}, errors.InvalidInputError, "the dict at 'x': key"),
        (
            {"big": 2**64},
            errors.InvalidInputError,
            "cannot save the leaf at 'big': the int does not fit in 64 bits",
        ),
        (
            [numpy.array(["a", "b"])],
            errors.DTypeError,
            "cannot save the array at '0': dtype <U1 is not a number",
        ),
        ([numpy.array([None])], errors.DTypeError, "cannot save the array at '0': dtype object"),
        (
            {"f": len},
            errors.InvalidInputError,
            "cannot save the leaf at 'f': a value of type builtin_function_or_method",
        ),
    ],
)
def test_unsavable_trees(tmp_path, bad, error, problem):
    with pytest.raises(error, match=problem):
        io.save(tmp_path / "bad.ckpt", bad)
    assert _files(tmp_path) == []


def test_trees_deeper_than_load_reads_are_not_saved(tmp_path):
    deep = 1
    for _ in range(257):
        deep = [deep]
    with pytest.raises(errors.InvalidInputError, match="io.save: the tree nests deeper than 256 levels"):
        io.save(tmp_path / "deep.ckpt", deep)
    assert not (tmp_path / "deep.ckpt").exists()
    io.save(tmp_path / "deep.ckpt", deep[0])
    assert io.load(tmp_path / "deep.ckpt") == deep[0]


def test_traced_values_cannot_be_saved(tmp_path):
    def f(x):
        io.save(tmp_path / "traced.ckpt", {"x": x})
        return x

    with pytest.raises(
        errors.InvalidInputError, match="cannot save the leaf at 'x': a value of type Tracer"
    ) as info:
        fnet.grad(f)(1.0)
    assert "save concrete values" in str(info.value)


# -- like ---------------------------------------------------------------------------------------


@pytest.fixture
def params_file(tmp_path):
    path = tmp_path / "params.ckpt"
    params = {
        "l1": {"W": numpy.ones((4, 3), numpy.float32), "b": numpy.zeros(4, numpy.float32)},
        "steps": [1, 2],
    }
    io.save(path, params)
    return path, params


@pytest.mark.parametrize(
    "change, problem",
    [
        (
            lambda p: p["l1"].pop("b"),
            r"at 'l1': the file has a dict with keys \['W', 'b'\], like has a dict with keys \['W'\]",
        ),
        (
            lambda p: p["steps"].append(3),
            "at 'steps': the file has a list of length 2, like has a list of length 3",
        ),
        (
            lambda p: p.update(steps=(1, 2)),
            "at 'steps': the file has a list of length 2, like has a tuple of length 2",
        ),
        (lambda p: p["l1"].update(b=None), "at 'l1/b': the file has a leaf, like has None"),
        (
            lambda p: p["l1"].update(W={"x": 1}),
            r"at 'l1/W': the file has a leaf, like has a dict with keys \['x'\]",
        ),
        (
            lambda p: p["l1"].update(W=numpy.ones((3, 4), numpy.float32)),
            r"at 'l1/W': the file has float32\[4, 3\], like has float32\[3, 4\]",
        ),
        (
            lambda p: p["l1"].update(b=numpy.zeros(4)),
            r"at 'l1/b': the file has float32\[4\], like has float64\[4\]",
        ),
        (
            lambda p: p["steps"].__setitem__(1, 2.0),
            "at 'steps/1': the file has type int, like has type float",
        ),
        (
            lambda p: p["steps"].__setitem__(0, numpy.int64(1)),
            r"at 'steps/0': the file has int 1, like has int64\[\]",
        ),
    ],
)
def test_like_mismatches_name_the_first_differing_path(params_file, change, problem):
    path, params = params_file
    like = {"l1": dict(params["l1"]), "steps": list(params["steps"])}
    change(like)
    with pytest.raises(
        errors.CheckpointError, match=f"io.load: '{path}' does not fit like {problem}"
    ) as info:
        io.load(path, like=like)
    assert "hint: load into a tree of the saved structure" in str(info.value)


def test_like_with_custom_node_mismatch(tmp_path):
    io.save(tmp_path / "s.ckpt", State(1, {"m": numpy.ones(2)}))
    problem = r"at the root: the file has a tests.test_io.State node with children \['count', 'moments'\]"
    with pytest.raises(errors.CheckpointError, match=problem + ", like has a tests.test_io.Pair node"):
        io.load(tmp_path / "s.ckpt", like=Pair(1, {"m": numpy.ones(2)}))


# -- npz: Chainer's files -----------------------------------------------------------------------

CHAIN_FILE = GOLDEN / "io_chainer.npz"


def chain_template(dtype=numpy.float32):
    """The params and persistent values of make_io.py's Classifier(Net()), without the lazy W."""
    zeros = lambda *shape: numpy.zeros(shape, dtype)  # noqa: E731
    bn = {"gamma": zeros(4), "beta": zeros(4), "avg_mean": zeros(4), "avg_var": zeros(4), "N": 0}
    net = {
        "l1": {"W": zeros(4, 3), "b": zeros(4)},
        "bn": bn,
        "l2": {"W": zeros(2, 4)},
        "lazy": {"b": zeros(2)},
    }
    return {"predictor": net}


def test_load_a_file_written_by_chainer():
    loaded = io.load_npz(CHAIN_FILE, like=chain_template())
    with numpy.load(CHAIN_FILE, allow_pickle=False) as reference:
        for leaf_path, value in tree.flatten_with_paths(loaded):
            expected = reference[tree.path_str(leaf_path)]
            if isinstance(value, int):
                assert value == int(expected)
            else:
                assert value.dtype == expected.dtype
                numpy.testing.assert_array_equal(value, expected)
        assert not numpy.array_equal(reference["predictor/bn/avg_mean"], 0)  # the pass moved them
    assert type(loaded["predictor"]["bn"]["N"]) is int


def test_load_chainer_file_with_prefix_and_cast():
    net = chain_template(numpy.float16)["predictor"]
    loaded = io.load_npz(CHAIN_FILE, like=net, prefix="predictor")
    assert loaded["l1"]["W"].dtype == numpy.float16
    with numpy.load(CHAIN_FILE) as reference:
        numpy.testing.assert_array_equal(loaded["l1"]["W"], reference["predictor/l1/W"].astype(numpy.float16))
    assert (
        io.load_npz(CHAIN_FILE, like={"W": numpy.zeros((2, 4))}, prefix="predictor/l2/")["W"].dtype
        == numpy.float64
    )


def test_chainer_none_entries_are_recognised_by_their_bytes_and_never_unpickled(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pickle was used")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    assert io.load_npz(CHAIN_FILE)["predictor"]["lazy"]["W"] is None
    like = chain_template()
    like["predictor"]["lazy"]["W"] = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(
        errors.CheckpointError,
        match=r"does not fit like at 'predictor/lazy/W': the file has None \(Chainer's uninitialized "
        r"parameter\), like has float32\[2, 3\]",
    ):
        io.load_npz(CHAIN_FILE, like=like)
    loose = io.load_npz(CHAIN_FILE, like=like, strict=False)
    assert loose["predictor"]["lazy"]["W"] is like["predictor"]["lazy"]["W"]


def test_load_npz_missing_entries(tmp_path):
    like = chain_template()
    like["predictor"]["l3"] = {"W": numpy.ones(2, numpy.float32)}
    with pytest.raises(
        errors.CheckpointError, match="has no entry 'predictor/l3/W' for like's leaf 'predictor/l3/W'"
    ):
        io.load_npz(CHAIN_FILE, like=like)
    loose = io.load_npz(CHAIN_FILE, like=like, strict=False)
    assert loose["predictor"]["l3"]["W"] is like["predictor"]["l3"]["W"]
    with pytest.raises(errors.CheckpointError, match="hint: check prefix="):
        io.load_npz(CHAIN_FILE, like=chain_template()["predictor"])


@pytest.mark.parametrize(
    "change, problem",
    [
        (
            lambda n: n["l1"].update(W=numpy.zeros((3, 4), numpy.float32)),
            r"at 'l1/W': the file has float32\[4, 3\], like has float32\[3, 4\]",
        ),
        (
            lambda n: n["l1"].update(W=numpy.zeros((4, 3), numpy.int32)),
            r"at 'l1/W': the file has float32\[4, 3\], like has int32\[4, 3\]",
        ),
        (lambda n: n["bn"].update(N=False), r"at 'bn/N': the file has int64\[\], like has type bool"),
        (
            lambda n: n["bn"].update(N="zero"),
            r"at 'bn/N': the file has int64\[\], like has type str, which npz cannot hold",
        ),
        (
            lambda n: n["bn"].update(gamma=1.0),
            r"at 'bn/gamma': the file has float32\[4\], like has type float",
        ),
    ],
)
def test_load_npz_like_mismatches(change, problem):
    net = chain_template()["predictor"]
    change(net)
    with pytest.raises(
        errors.CheckpointError, match=f"io.load_npz: '.*io_chainer.npz' does not fit like {problem}"
    ):
        io.load_npz(CHAIN_FILE, like=net, prefix="predictor/")


def _run_chainer(path) -> dict:
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"needs Chainer 7.8.1's venv at {CHAINER_PYTHON} (see benchmarks/README.md)")
    done = subprocess.run(
        [str(CHAINER_PYTHON), str(GOLDEN / "make_io.py"), "--check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("compression", [True, False])
def test_a_file_written_by_fnet_loads_in_chainer(tmp_path, compression):
    params = io.load_npz(CHAIN_FILE, like=chain_template())
    params = tree.map(lambda x: x + 1, params)  # N: 0 -> 1, every array moves
    del params["predictor"]["lazy"]  # make_io.py --check builds the Net without the lazy layer
    path = tmp_path / "fnet.npz"
    io.save_npz(path, params, compression=compression)
    held = _run_chainer(path)
    expected = {tree.path_str(p): numpy.asarray(v) for p, v in tree.flatten_with_paths(params)}
    assert set(held) == set(expected)
    for key, (dtype, shape, values) in held.items():
        assert (numpy.dtype(dtype), tuple(shape)) == (expected[key].dtype, expected[key].shape), key
        numpy.testing.assert_array_equal(numpy.asarray(values, dtype).reshape(shape), expected[key])


# -- npz: fnet's side ---------------------------------------------------------------------------


def test_save_npz_uses_chainer_keys_and_round_trips(tmp_path):
    params = {
        "predictor": {"l1": {"W": numpy.ones((2, 3), numpy.float32)}},
        "layers": [{"b": numpy.zeros(2)}],
        "t": 4,
    }
    path = tmp_path / "a.npz"
    io.save_npz(path, params)
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["layers/0/b.npy", "predictor/l1/W.npy", "t.npy"]
        assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in archive.infolist())
    with numpy.load(path, allow_pickle=False) as plain:
        assert plain["t"].dtype == numpy.int64 and plain["t"].shape == ()
    assert same(io.load_npz(path, like=params), params)
    loaded = io.load_npz(path)
    assert same(loaded["layers"], {"0": {"b": params["layers"][0]["b"]}}) and same(
        loaded["t"], numpy.array(4)
    )
    io.save_npz(path, params, compression=False)
    with zipfile.ZipFile(path) as archive:
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_npz_round_trip_every_dtype(tmp_path, dtype):
    params = {
        "a": sample(dtype),
        "e": numpy.zeros((0, 2), dtype),
        "f": numpy.asfortranarray(sample(dtype, (3, 2))),
    }
    io.save_npz(tmp_path / "a.npz", params)
    loaded = io.load_npz(tmp_path / "a.npz")
    assert same(loaded, params) and loaded["f"].flags.f_contiguous


def test_npz_with_file_objects(tmp_path):
    path = tmp_path / "a.npz"
    with open(path, "wb") as f:
        io.save_npz(f, {"W": numpy.arange(3)})
    with open(path, "rb") as f:
        assert io.load_npz(f)["W"].tolist() == [0, 1, 2]


def test_npz_errors(tmp_path):
    with pytest.raises(
        errors.InvalidInputError, match="io.save_npz: cannot save the leaf at 'name': type dict_keys is not"
    ):
        io.save_npz(tmp_path / "a.npz", {"name": {}.keys()})
    with pytest.raises(errors.DTypeError, match="dtype object is not a number type"):
        io.save_npz(tmp_path / "a.npz", {"name": numpy.array([None])})
    with pytest.raises(errors.InvalidInputError, match="io.save_npz: two leaves have the same path 'a/b'"):
        io.save_npz(tmp_path / "a.npz", {"a": {"b": numpy.ones(1)}, "a/b": numpy.ones(1)})
    io.save_npz(tmp_path / "a.npz", {"a": numpy.ones(1), "a/b": numpy.ones(1)})
    with pytest.raises(errors.CheckpointError, match="has both 'a/b' and an entry above it"):
        io.load_npz(tmp_path / "a.npz")
    assert io.load_npz(tmp_path / "a.npz", like={"a": numpy.zeros(1)})["a"].tolist() == [1.0]
    data = (tmp_path / "a.npz").read_bytes()
    for size in (0, 10, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.npz").write_bytes(data[:size])
        with pytest.raises(
            errors.CheckpointError, match="io.load_npz: '.*cut.npz' is not a readable npz file"
        ):
            io.load_npz(tmp_path / "cut.npz")
    with pytest.raises(errors.CheckpointError, match="is not a readable npz file"):
        io.load_npz(tmp_path / "missing.npz")


def test_npz_damaged_member(tmp_path):
    path = tmp_path / "a.npz"
    io.save_npz(path, {"W": numpy.arange(100.0)}, compression=False)
    data = bytearray(path.read_bytes())
    data[data.index(b"\x00\x00\x00\x00\x00\x00\xf0?") + 3] ^= 0xFF  # a byte of the value 1.0
    path.write_bytes(bytes(data))
    with pytest.raises(
        errors.CheckpointError, match="'.*a.npz' cannot be read at entry 'W': BadZipFile: Bad CRC-32"
    ):
        io.load_npz(path)


def test_public_names():
    assert "io" in fnet.__all__
    for name in io.__all__:
        assert getattr(io, name).__doc__


# -- GPU ----------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_cupy_arrays_are_saved_from_the_host_and_loaded_to_like_device(tmp_path):
    import cupy

    params = {"W": cupy.arange(6, dtype=cupy.float32).reshape(2, 3), "n": 2}
    io.save(tmp_path / "gpu.ckpt", params)
    on_host = io.load(tmp_path / "gpu.ckpt")
    assert isinstance(on_host["W"], numpy.ndarray) and on_host["W"].tolist() == params["W"].get().tolist()
    on_device = io.load(tmp_path / "gpu.ckpt", like={"W": cupy.zeros((2, 3), cupy.float32), "n": 0})
    assert isinstance(on_device["W"], cupy.ndarray) and bool((on_device["W"] == params["W"]).all())
    io.save_npz(tmp_path / "gpu.npz", params)
    loaded = io.load_npz(tmp_path / "gpu.npz", like={"W": cupy.zeros((2, 3), cupy.float16), "n": 0})
    assert isinstance(loaded["W"], cupy.ndarray) and loaded["W"].dtype == cupy.float16


def test_npz_holds_strings_without_pickling(tmp_path):
    io.save_npz(tmp_path / "s.npz", {"log": '[{"epoch": 1}]', "names": numpy.array(["a", "bc"])})
    loaded = io.load_npz(tmp_path / "s.npz")
    assert loaded["log"][()] == '[{"epoch": 1}]' and loaded["names"].tolist() == ["a", "bc"]
    assert numpy.load(tmp_path / "s.npz", allow_pickle=False)["log"][()] == '[{"epoch": 1}]'


# -- npz: damaged and hostile files ------------------------------------------------------------


def _npz_with_member(path, data: bytes, method=zipfile.ZIP_STORED) -> None:
    """An npz with a good member ``b`` and a member ``W`` that holds ``data`` as it is."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo("b.npy"), _npy(numpy.zeros(2)))
        info = zipfile.ZipInfo("W.npy")
        info.compress_type = method
        archive.writestr(info, data)


def _npy(array) -> bytes:
    f = BytesIO()
    numpy.save(f, array)
    return f.getvalue()


def _npy_header(text: str, version=b"\x01\x00") -> bytes:
    raw = text.encode("latin-1")
    size = struct.pack("<H" if version == b"\x01\x00" else "<I", len(raw))
    return b"\x93NUMPY" + version + size + raw


@pytest.mark.parametrize(
    "member, problem",
    [
        (
            _npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,"),
            "is not a Python dict literal",
        ),
        (_npy_header("[1, 2]"), "is not a dict of descr, fortran_order and shape"),
        (_npy_header("{'descr': '<f8', 'shape': (2,)}"), "is not a dict of descr, fortran_order and shape"),
        (_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,)}"), "has a bad shape"),
        (_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0,)}"), "has a bad shape"),
        (_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1,) * 70}"), "is not a Python dict"),
        (_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (" + "1, " * 70 + ")}"), "bad shape"),
        (_npy_header("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,)}"), "has a bad fortran_order"),
        (_npy_header("{'descr': '<q9', 'fortran_order': False, 'shape': (2,)}"), "has dtype '<q9'"),
        (_npy_header("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,)}"), "has dtype \\[\\("),
        (_npy_header("{'descr': '<M8[s]', 'fortran_order': False, 'shape': (2,)}"), "has dtype '<M8\\[s\\]'"),
        (_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}") + bytes(8), "holds 8"),
        (
            _npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,)}") + bytes(16),
            "holds 16",
        ),
        (_npy(numpy.zeros(2)) + b"x", r"declares shape \(2,\) of float64 \(16 bytes\), but it holds 17"),
        (b"\x93NUMPY\x09\x00", "it has npy format version 9.0"),
        (b"\x93NUMPY\x02\x00\xff\xff\xff\xff", "its npy header is 4294967295 bytes long"),
        (b"\x93NUMPY\x01\x00\x20\x00{'descr'", "its npy header is cut short"),
        (b"PK\x03\x04", "it is not an npy array"),
        (b"", "it is not an npy array"),
    ],
    ids=lambda x: x[:30] if isinstance(x, str) else "npy",
)
def test_any_bad_npy_member_is_a_checkpoint_error_naming_file_and_entry(tmp_path, member, problem):
    path = tmp_path / "bad.npz"
    _npz_with_member(path, member)
    with pytest.raises(
        errors.CheckpointError, match=f"io.load_npz: '{path}' cannot be read at entry 'W': .*{problem}"
    ):
        io.load_npz(path)
    assert io.load_npz(path, like={"b": numpy.ones(2)})["b"].tolist() == [0.0, 0.0]  # W is never read


def test_headers_written_by_numpy_on_python_2_load(tmp_path):
    path = tmp_path / "py2.npz"
    header = _npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 1L), }")
    _npz_with_member(path, header + numpy.array([1.5, 2.5]).tobytes())
    assert io.load_npz(path)["W"].tolist() == [[1.5], [2.5]]


def test_unknown_compression_methods_are_checkpoint_errors(tmp_path):
    path = tmp_path / "m.npz"
    _npz_with_member(path, _npy(numpy.arange(3.0)))
    data = bytearray(path.read_bytes())
    local = data.rindex(b"PK\x03\x04")  # W.npy is the second member
    central = data.rindex(b"PK\x01\x02")
    data[local + 8 : local + 10] = data[central + 10 : central + 12] = struct.pack("<H", 99)
    path.write_bytes(bytes(data))
    with pytest.raises(
        errors.CheckpointError, match="at entry 'W': it uses zip compression method 99"
    ) as info:
        io.load_npz(path)
    assert "npz members are stored or deflated" in str(info.value)
    _npz_with_member(path, _npy(numpy.arange(3.0)), method=zipfile.ZIP_BZIP2)
    with pytest.raises(errors.CheckpointError, match="at entry 'W': it uses zip compression method 12"):
        io.load_npz(path)


def test_object_entries_other_than_chainers_none_are_errors_and_never_unpickled(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pickle was used")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    for value in (numpy.array([1.0, None]), numpy.array({"a": 1}), numpy.array([None])):
        numpy.savez(tmp_path / "p.npz", W=value, b=numpy.zeros(2))
        with pytest.raises(
            errors.CheckpointError, match="at entry 'W': it holds pickled Python objects"
        ) as info:
            io.load_npz(tmp_path / "p.npz")
        assert "fnet never unpickles" in str(info.value)


@pytest.mark.parametrize("protocol", [2, 3, "numpy.save"])
def test_saved_none_is_recognised_as_numpy_writes_it(tmp_path, protocol):
    if protocol == "numpy.save":
        member = _npy(numpy.asarray(None))
    else:  # as NumPy before 1.16 (protocol 2) and since (3) pickle it, naming this NumPy's module
        member = _npy_header("{'descr': '|O', 'fortran_order': False, 'shape': (), }")
        member += pickle.dumps(numpy.asarray(None), protocol=protocol)
    path = tmp_path / "none.npz"
    _npz_with_member(path, member)
    assert io.load_npz(path)["W"] is None
    _npz_with_member(path, member[:-2] + b"N.")  # the same length, other bytes
    with pytest.raises(errors.CheckpointError, match="it holds pickled Python objects"):
        io.load_npz(path)


def test_load_npz_with_like_reads_only_the_entries_it_asks_for(tmp_path, monkeypatch):
    path = tmp_path / "big.npz"
    io.save_npz(path, {"small": numpy.ones(3), "big": numpy.zeros(2**22), "broken": numpy.ones(2)})
    opened = []
    real_open = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    assert io.load_npz(path, like={"small": numpy.zeros(3)})["small"].tolist() == [1.0] * 3
    assert opened == ["small.npy"]


def test_an_entry_is_read_into_its_array_without_a_second_copy(tmp_path):
    import tracemalloc

    size = 2**24  # 16 MiB of float64 zeros: deflated to a few kilobytes
    io.save_npz(tmp_path / "z.npz", {"W": numpy.zeros(size // 8)})
    like = {"W": numpy.ones(size // 8)}
    tracemalloc.start()
    try:
        loaded = io.load_npz(tmp_path / "z.npz", like=like)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not loaded["W"].any()
    assert peak < 1.5 * size, f"reading a {size}-byte entry took {peak} bytes at its peak"


def test_sizes_declared_by_the_zip_are_checked_before_reading(tmp_path):
    path = tmp_path / "bomb.npz"
    _npz_with_member(path, _npy(numpy.zeros(1000)), method=zipfile.ZIP_DEFLATED)
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")
    compressed = struct.unpack_from("<I", data, central + 20)[0]
    struct.pack_into("<I", data, central + 24, compressed * 2000)  # the uncompressed size
    path.write_bytes(bytes(data))
    with pytest.raises(
        errors.CheckpointError,
        match=f"at entry 'W': it declares {compressed * 2000} bytes made of {compressed}",
    ):
        io.load_npz(path)


def test_npz_with_a_duplicated_entry(tmp_path):
    path = tmp_path / "dup.npz"
    with pytest.warns(UserWarning, match="Duplicate name"):
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("W.npy", _npy(numpy.zeros(2)))
            archive.writestr("W.npy", _npy(numpy.ones(2)))
    with pytest.raises(errors.CheckpointError, match="holds the entry 'W' twice"):
        io.load_npz(path)


def test_open_npz_reads_entries_when_asked(tmp_path):
    io.save_npz(tmp_path / "a.npz", {"l1": {"W": numpy.ones(2)}, "t": 3})
    with io.open_npz(tmp_path / "a.npz") as entries:
        assert sorted(entries) == ["l1/W", "t"] and len(entries) == 2 and "t" in entries
        assert entries["t"] == 3 and entries.source == str(tmp_path / "a.npz")
        with pytest.raises(KeyError):
            entries["l1"]
