"""npz files move between Chainer 7.8.1 and fnet.compat, both ways, for a model and its optimizer.

The Chainer side is ``tests/golden/make_compat_serializers.py``: it wrote the golden files (a
``Classifier`` of Convolution2D, BatchNormalization and a lazy Linear after three Adam steps, the
Adam optimizer, and the values expected next), and with ``--check`` it loads files written here
into Chainer and reports what Chainer holds.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import subprocess

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat.link import Chain
from fnet.compat.serializers import DictionarySerializer, load_npz, save_npz

F = chainer.functions
L = importlib.import_module("fnet.compat.links")
optimizers = importlib.import_module("fnet.compat.optimizers")

ROOT = pathlib.Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"
MAKER = GOLDEN / "make_compat_serializers.py"
MODEL = GOLDEN / "compat_serializers_model.npz"
OPTIMIZER = GOLDEN / "compat_serializers_optimizer.npz"
EXPECTED = GOLDEN / "compat_serializers_expected.npz"
CHAINER_PYTHON = ROOT / "benchmarks" / ".venvs" / "chainer" / "bin" / "python"
ALPHA = 0.01  # make_compat_serializers.py's Adam


class Net(Chain):
    """make_compat_serializers.py's Net: Convolution2D -> relu -> BatchNormalization -> lazy Linear."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 2, 3)
            self.bn = L.BatchNormalization(2)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        return self.fc(self.bn(F.relu(self.conv(x))))


def build():
    model = L.Classifier(Net())
    optimizer = optimizers.Adam(alpha=ALPHA)
    optimizer.setup(model)
    return model, optimizer


def held(obj) -> dict:
    """What ``obj`` serializes, keyed as in an npz file."""
    serializer = DictionarySerializer()
    serializer.save(obj)
    return serializer.target


def loaded_from_golden():
    model, optimizer = build()
    assert not model.predictor.fc.W.is_initialized
    load_npz(MODEL, model)
    load_npz(OPTIMIZER, optimizer)
    return model, optimizer


def expected() -> dict:
    with numpy.load(EXPECTED) as f:
        return dict(f)


def assert_same_entries(got: dict, file) -> None:
    with numpy.load(file) as reference:
        assert sorted(got) == sorted(reference.files)
        for key in reference.files:
            value = numpy.asarray(got[key])
            assert value.shape == reference[key].shape, key
            assert value.dtype.kind == reference[key].dtype.kind, key
            numpy.testing.assert_array_equal(value, reference[key], err_msg=key)


def test_files_written_by_chainer_load_with_identical_values():
    model, optimizer = loaded_from_golden()
    assert model.predictor.fc.W.shape == (3, 18)  # the lazy layer took the saved shape
    assert_same_entries(held(model), MODEL)
    assert_same_entries(held(optimizer), OPTIMIZER)
    assert type(model.predictor.bn.N) is int  # a persistent scalar keeps its type
    assert optimizer.t == 3


def test_a_loaded_model_and_optimizer_carry_on_as_in_chainer():
    model, optimizer = loaded_from_golden()
    values = expected()
    with chainer.no_backprop_mode(), chainer.using_config("train", False):
        y = model.predictor(values["x"]).array
    numpy.testing.assert_allclose(y, values["y"], rtol=1e-5, atol=1e-6)
    optimizer.update(model, values["x"], values["t"])
    numpy.testing.assert_allclose(model.loss.array, values["loss"], rtol=1e-5)
    for key, value in held(model).items():
        numpy.testing.assert_allclose(value, values["next/" + key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_path_selects_a_model_and_its_optimizer_in_one_snapshot(tmp_path):
    source, source_optimizer = loaded_from_golden()
    snapshot: dict = {}
    DictionarySerializer(snapshot, "updater/model:main/").save(source)
    DictionarySerializer(snapshot, "updater/optimizer:main/").save(source_optimizer)
    path = tmp_path / "snapshot.npz"
    save_npz(path, snapshot)
    model, optimizer = build()
    load_npz(path, model, path="updater/model:main/")
    load_npz(path, optimizer, path="updater/optimizer:main/")
    assert_same_entries(held(model), MODEL)
    assert_same_entries(held(optimizer), OPTIMIZER)


def run_chainer_check(model_file, optimizer_file) -> dict:
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"needs Chainer 7.8.1's venv at {CHAINER_PYTHON} (see benchmarks/README.md)")
    done = subprocess.run(
        [str(CHAINER_PYTHON), str(MAKER), "--check", str(model_file), str(optimizer_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def from_json(entries: dict) -> dict:
    return {key: numpy.asarray(flat, dtype).reshape(shape) for key, (dtype, shape, flat) in entries.items()}


def test_files_written_by_fnet_load_in_chainer(tmp_path):
    model, optimizer = loaded_from_golden()
    values = expected()
    optimizer.update(model, values["x"], values["t"])  # every value moves away from the golden files
    save_npz(tmp_path / "model.npz", model)
    save_npz(tmp_path / "optimizer.npz", optimizer, compression=False)
    report = run_chainer_check(tmp_path / "model.npz", tmp_path / "optimizer.npz")
    ours = {**held(model), **{"optimizer/" + k: v for k, v in held(optimizer).items()}}
    theirs = from_json(report["held"])
    assert sorted(theirs) == sorted(ours)
    for key, value in theirs.items():
        assert value.dtype.kind == numpy.asarray(ours[key]).dtype.kind, key
        numpy.testing.assert_array_equal(value, ours[key], err_msg=key)
    optimizer.update(model, values["x"], values["t"])  # Chainer took the same step
    for key, value in from_json(report["next"]).items():
        numpy.testing.assert_allclose(held(model)[key], value, rtol=1e-5, atol=1e-6, err_msg=key)
