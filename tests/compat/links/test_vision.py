"""Chainer's pretrained convnet links (``L.VGG16Layers``, ``L.ResNet50Layers``, ``L.GoogLeNet``...):
``pretrained_model``, ``functions``, ``forward``, and npz files shared with Chainer 7.8.1.

The round trips with real Chainer run ``tests/golden/make_vision.py`` in Chainer's venv
(``benchmarks/.venvs/chainer``) and are skipped where it is absent.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import pathlib
import subprocess
import types
import zlib

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet import initializers
from fnet.compat.serializers import DictionarySerializer, save_npz
from fnet.data.download import DatasetCacheError, set_dataset_root
from fnet.nn import vision

L = importlib.import_module("fnet.compat.links")
resnet = importlib.import_module("fnet.compat.links.model.vision.resnet")

ROOT = pathlib.Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"
CHAINER_PYTHON = ROOT / "benchmarks" / ".venvs" / "chainer" / "bin" / "python"
LAYERS = ["conv1", "pool1", "res2", "res3", "res4", "res5", "pool5", "fc6", "prob"]  # make_vision.py's


def held(link) -> dict:
    entries: dict = {}
    DictionarySerializer(entries).save(link)
    return {k: f"{numpy.asarray(v).dtype.name}{list(numpy.shape(v))}" for k, v in entries.items()}


@pytest.fixture(scope="module")
def resnet50():
    return L.ResNet50Layers(pretrained_model=None)


@pytest.mark.parametrize("name", ["ResNet50Layers", "GoogLeNet"])
def test_links_save_chainers_npz_keys(name, resnet50):
    link = resnet50 if name == "ResNet50Layers" else L.GoogLeNet(pretrained_model=None)
    golden = json.loads((GOLDEN / "vision_layouts.json").read_text())["layouts"][name]  # Chainer 7.8.1's
    assert held(link) == golden["entries"]
    assert link.available_layers == golden["available_layers"]


SIGNATURES = json.loads((GOLDEN / "vision_layouts.json").read_text())["signatures"]  # Chainer's


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_constructor_arguments_are_chainers(name):
    cls = getattr(L, name, None) or getattr(L.vision.vgg, name)
    params = inspect.signature(cls).parameters.values()
    rows = [[p.name, p.kind.name, None if p.default is p.empty else repr(p.default)] for p in params]
    assert rows == SIGNATURES[name]


def test_chainers_module_paths():
    from fnet.compat.links.model.vision import googlenet, vgg

    assert vgg.VGG16Layers is L.VGG16Layers and googlenet.GoogLeNet is L.GoogLeNet
    assert resnet.ResNetLayers is L.ResNetLayers and resnet.available is vision.image.pillow_available
    assert resnet.prepare(numpy.zeros((8, 8, 3), numpy.uint8), None)[:, 0, 0].tolist() == pytest.approx(
        [-103.063, -115.903, -123.152],
        rel=1e-6,  # float32 of the mean pixel
    )


def test_functions_lists_child_links_and_chainer_functions(resnet50):
    functions = resnet50.functions
    assert list(functions) == resnet50.available_layers
    conv, bn, relu = functions["conv1"]
    assert conv is resnet50.conv1 and bn is resnet50.bn1 and relu is chainer.functions.relu
    x = numpy.random.default_rng(0).uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    h = x
    with chainer.using_config("train", False):
        for name, steps in functions.items():
            for step in steps:
                h = step(h)
            if name == "pool5":
                break
        numpy.testing.assert_allclose(h.array, resnet50(x, layers=["pool5"])["pool5"].array, rtol=1e-6)


def test_forward_in_training_updates_the_running_statistics(resnet50):
    before = resnet50.bn1.avg_mean.copy()
    x = numpy.random.default_rng(1).uniform(-1, 1, (2, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        resnet50(x, layers=["conv1"])
    numpy.testing.assert_array_equal(resnet50.bn1.avg_mean, before)
    out = resnet50(x, layers=["conv1"])
    assert isinstance(out["conv1"], chainer.Variable)
    assert not numpy.array_equal(resnet50.bn1.avg_mean, before)


def test_retired_arguments_raise_as_in_chainer(resnet50):
    with pytest.raises(ValueError, match="test argument is not supported anymore"):
        resnet50(numpy.zeros((1, 3, 32, 32), numpy.float32), test=True)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        resnet50(numpy.zeros((1, 3, 32, 32), numpy.float32), layer=["conv1"])


def test_auto_without_the_converted_file_says_where_it_comes_from(tmp_path):
    set_dataset_root(tmp_path)
    try:
        with pytest.raises(DatasetCacheError) as error:
            L.GoogLeNet()
    finally:
        set_dataset_root(None)
    text = str(error.value)
    assert str(tmp_path / "pfnet" / "chainer" / "models" / "bvlc_googlenet.npz") in text
    assert "http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel" in text
    assert "L.GoogLeNet.convert_caffemodel_to_npz('bvlc_googlenet.caffemodel'" in text


def test_auto_and_a_path_load_the_npz(tmp_path, resnet50):
    models = tmp_path / "pfnet" / "chainer" / "models"
    models.mkdir(parents=True)
    resnet50.bn1.avg_var[...] = 3.0
    save_npz(models / "ResNet-50-model.npz", resnet50, compression=False)  # as Chainer converts
    set_dataset_root(tmp_path)
    try:
        cached = L.ResNet50Layers()  # 'auto': the npz converted from ResNet-50-model.caffemodel
    finally:
        set_dataset_root(None)
    by_path = L.ResNet50Layers(pretrained_model=str(models / "ResNet-50-model.npz"))
    for link in (cached, by_path):
        numpy.testing.assert_array_equal(link.res4.b3.conv2.W.array, resnet50.res4.b3.conv2.W.array)
        numpy.testing.assert_array_equal(link.bn1.avg_var, resnet50.bn1.avg_var)


def test_random_initialization_uses_chainers_initializers():
    assert vision.VGG16().sublayers()["conv1_1"].initialW == initializers.Normal(0.01)
    assert vision.ResNet50().conv1.initialW == initializers.HeNormal(scale=1.0)
    assert vision.GoogLeNet().loss3_fc.initialW == initializers.LeCunUniform(scale=1.0)


def test_convert_caffemodel_to_npz_reads_the_file_with_caffe_function(tmp_path):
    pytest.importorskip("google.protobuf", reason="CaffeFunction reads caffemodels with protobuf")
    from fnet.errors import CheckpointError

    missing = str(tmp_path / "VGG_ILSVRC_16_layers.caffemodel")
    with pytest.raises(CheckpointError, match="VGG_ILSVRC_16_layers.caffemodel"):
        L.VGG16Layers.convert_caffemodel_to_npz(missing, str(tmp_path / "x.npz"))
    assert not (tmp_path / "x.npz").exists()


def fake_caffe_function(model):
    """An object laid out as ``CaffeFunction`` holds the original model's layers (``.conv1.W``,
    ``.scale_conv1.bias.b``, attributes named ``inception_3a/1x1``...), with random arrays."""
    rng = numpy.random.default_rng(5)
    shapes = {"params": model.shapes(), "state": model.state_shapes()}
    caffe = types.SimpleNamespace()
    for path, (layer, entry) in model.caffe_sources().items():
        top = "state" if path.rsplit("/", 1)[1] in ("avg_mean", "avg_var") else "params"
        shape = functools.reduce(lambda tree, name: tree[name], path.split("/"), shapes[top])
        node = caffe.__dict__.setdefault(layer, types.SimpleNamespace())
        *parents, leaf = entry.split("/")
        for name in parents:
            node = node.__dict__.setdefault(name, types.SimpleNamespace())
        setattr(node, leaf, types.SimpleNamespace(array=rng.uniform(0.5, 1.5, shape).astype(numpy.float32)))
    return caffe


@pytest.mark.parametrize("cls", [L.ResNet50Layers, L.GoogLeNet])
def test_convert_caffemodel_to_npz_moves_each_caffe_layer_to_chainers_name(cls, tmp_path, monkeypatch):
    model = cls._pretrained_model()
    caffe = fake_caffe_function(model)
    monkeypatch.setattr(
        importlib.import_module("fnet.compat.links.vision._layers"), "read_caffemodel", lambda p: caffe
    )
    cls.convert_caffemodel_to_npz("original.caffemodel", str(tmp_path / "converted.npz"))
    link = cls(pretrained_model=str(tmp_path / "converted.npz"))
    for path, (layer, entry) in model.caffe_sources().items():
        ours = functools.reduce(getattr, path.split("/"), link)
        theirs = functools.reduce(getattr, [layer, *entry.split("/")], caffe).array
        numpy.testing.assert_array_equal(getattr(ours, "array", ours), theirs, err_msg=path)


@pytest.mark.slow
@pytest.mark.parametrize("cls", [L.ResNet50Layers, L.ResNet101Layers, L.GoogLeNet])
def test_conversion_moves_the_caffe_layers_as_chainers_own_code(cls, tmp_path, monkeypatch):
    run_chainer("--transfer", cls.__name__, tmp_path / "chainer.npz")  # Chainer's _transfer_* functions
    model = cls._pretrained_model()
    shapes = {"params": model.shapes(), "state": model.state_shapes()}
    caffe = StandIn(shapes, model.caffe_sources())
    monkeypatch.setattr(
        importlib.import_module("fnet.compat.links.vision._layers"), "read_caffemodel", lambda p: caffe
    )
    cls.convert_caffemodel_to_npz("original.caffemodel", str(tmp_path / "fnet.npz"))
    ours, theirs = numpy.load(tmp_path / "fnet.npz"), numpy.load(tmp_path / "chainer.npz")
    assert sorted(ours.files) == sorted(theirs.files)
    # the entries Chainer's code moved are constants >= 1 (random or zero entries are not)
    moved = {
        k
        for k in theirs.files
        if theirs[k].size and theirs[k].min() >= 1 and theirs[k].min() == theirs[k].max()
    }
    assert moved == set(model.caffe_sources())
    for key in moved:
        numpy.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


class StandIn:
    """make_vision.py's stand-in for CaffeFunction, with arrays of the shapes the model reads."""

    def __init__(self, shapes, sources, path=()):
        self._shapes, self._sources, self._path = shapes, sources, path

    def __getattr__(self, name):
        if name != "array":
            return StandIn(self._shapes, self._sources, self._path + (name,))
        layer, *entry = self._path
        ours = next(p for p, source in self._sources.items() if source == (layer, "/".join(entry)))
        top = "state" if ours.rsplit("/", 1)[1] in ("avg_mean", "avg_var") else "params"
        shape = functools.reduce(lambda tree, name: tree[name], ours.split("/"), self._shapes[top])
        return numpy.full(shape, caffe_value(layer, "/".join(entry)), numpy.float32)


def caffe_value(layer: str, entry: str) -> float:
    return 1.0 + zlib.crc32(f"{layer}:{entry}".encode()) % 1000 / 8.0  # make_vision.py's


def test_resnet_auto_converts_a_caffemodel_placed_in_the_cache(tmp_path, monkeypatch):
    models = tmp_path / "pfnet" / "chainer" / "models"
    models.mkdir(parents=True)
    (models / "ResNet-50-model.caffemodel").write_bytes(b"")  # read by the stand-in below
    caffe = fake_caffe_function(L.ResNet50Layers._pretrained_model())
    read = []
    monkeypatch.setattr(
        importlib.import_module("fnet.compat.links.vision._layers"),
        "read_caffemodel",
        lambda p: read.append(p) or caffe,
    )
    set_dataset_root(tmp_path)
    try:
        link = L.ResNet50Layers()
        again = L.ResNet50Layers()  # the npz is there now: the caffemodel is not read again
    finally:
        set_dataset_root(None)
    assert read == [str(models / "ResNet-50-model.caffemodel")]
    assert (models / "ResNet-50-model.npz").exists()
    for loaded in (link, again):
        numpy.testing.assert_array_equal(loaded.fc6.W.array, caffe.fc1000.W.array)


def test_resnet_caffe_names_follow_msra():
    sources = vision.ResNet152().caffe_sources()
    assert sources["res3/b7/bn2/gamma"] == ("scale3b7_branch2b", "W")
    assert sources["res4/b35/conv3/W"] == ("res4b35_branch2c", "W")
    assert sources["res2/a/conv4/W"] == ("res2a_branch1", "W")
    assert sources["res5/b2/bn1/beta"] == ("scale5c_branch2a", "bias/b")
    assert "conv1/b" not in sources and vision.ResNet50().caffe_sources()["conv1/b"] == ("conv1", "b")


# -- npz files shared with real Chainer ----------------------------------------------------------
def run_chainer(*args):
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"needs Chainer 7.8.1's venv at {CHAINER_PYTHON} (see benchmarks/README.md)")
    done = subprocess.run(
        [str(CHAINER_PYTHON), str(GOLDEN / "make_vision.py"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr


def activations(link, x) -> dict:
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        return {k: v.array for k, v in link(x, layers=LAYERS).items()}


def assert_same_activations(ours: dict, theirs) -> None:
    assert sorted(ours) == sorted(theirs.files)
    for name in LAYERS:
        # rtol 1e-5 (the acceptance bound): float32 convolutions summed in another order
        scale = numpy.max(numpy.abs(theirs[name]))
        if name == "prob":
            # the softmax of logits z carries their error: |d prob| <= 2 |dz|max prob, and the
            # logits (fc6) agree to 1e-5 of their largest magnitude, which random weights make large
            scale *= 2 * numpy.max(numpy.abs(theirs["fc6"]))
        numpy.testing.assert_allclose(ours[name], theirs[name], rtol=1e-5, atol=1e-5 * scale, err_msg=name)


def images(path):
    x = numpy.random.default_rng(7).uniform(-1, 1, (2, 3, 64, 64)).astype(numpy.float32)
    numpy.savez(path, x=x)
    return x


@pytest.mark.slow
def test_resnet50_written_by_chainer_loads_and_extracts_the_same(tmp_path):
    x = images(tmp_path / "x.npz")
    run_chainer("--write", tmp_path / "chainer.npz", tmp_path / "x.npz", tmp_path / "theirs.npz")
    link = L.ResNet50Layers(pretrained_model=str(tmp_path / "chainer.npz"))
    assert_same_activations(activations(link, x), numpy.load(tmp_path / "theirs.npz"))
    # the pure model reads the same file: its params and its state
    model = vision.ResNet50()
    params = fnet.io.load_npz(tmp_path / "chainer.npz", like=model.init(fnet.random.key(0)))
    state = fnet.io.load_npz(tmp_path / "chainer.npz", like=model.init_state())
    found, _ = model.extract(params, x, LAYERS, state, train=False)
    assert_same_activations(found, numpy.load(tmp_path / "theirs.npz"))


@pytest.mark.slow
def test_resnet50_written_by_fnet_loads_in_chainer_and_extracts_the_same(tmp_path):
    x = images(tmp_path / "x.npz")
    link = L.ResNet50Layers(pretrained_model=None)
    rng = numpy.random.default_rng(3)
    for child in link.links():
        if isinstance(child, L.BatchNormalization):  # statistics that are not the identity
            child.avg_mean[...] = rng.uniform(-0.1, 0.1, child.avg_mean.shape)
            child.avg_var[...] = rng.uniform(0.5, 2.0, child.avg_var.shape)
    save_npz(tmp_path / "fnet.npz", link)
    run_chainer("--check", tmp_path / "fnet.npz", tmp_path / "x.npz", tmp_path / "theirs.npz")
    assert_same_activations(activations(link, x), numpy.load(tmp_path / "theirs.npz"))
