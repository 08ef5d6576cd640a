"""The pure pretrained convnets of ``fnet.nn.vision``: Chainer's layouts, ``extract``, ``predict``
and ``prepare``."""

from __future__ import annotations

import json
import pathlib

import numpy
import pytest

import fnet
from fnet import initializers
from fnet.errors import InvalidInputError
from fnet.nn import vision

from .._device_double import DeviceArray, installed

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "vision_layouts.json"
ZERO = initializers.Zero()

# the pure model of each Chainer link, drawn with zeros (fast: only names and shapes matter here)
MODELS = {
    "VGG16Layers": lambda: vision.VGG16(ZERO, ZERO),
    "VGG19Layers": lambda: vision.VGG19(ZERO, ZERO),
    "ResNet50Layers": lambda: vision.ResNet50(initialW=ZERO),
    "ResNet101Layers": lambda: vision.ResNet101(initialW=ZERO),
    "ResNet152Layers": lambda: vision.ResNet152(initialW=ZERO),
    "GoogLeNet": lambda: vision.GoogLeNet(ZERO),
}


def entries(model) -> dict:
    """The params and state of ``model`` as Chainer's npz keys, ``"float32[64, 3]"`` each."""
    tree = {"params": model.init(fnet.random.key(0)), "state": model.init_state()}
    out = {}
    for path, leaf in fnet.tree.flatten_with_paths(tree):
        key = fnet.tree.path_str(path).split("/", 1)[1]
        out[key] = f"{numpy.asarray(leaf).dtype.name}{list(numpy.shape(leaf))}"
    return out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_params_and_state_have_chainers_npz_layout(name):
    golden = json.loads(GOLDEN.read_text())["layouts"][name]  # written by Chainer 7.8.1 (make_vision.py)
    model = MODELS[name]()
    assert entries(model) == golden["entries"]
    assert model.available_layers == golden["available_layers"]


@pytest.fixture(scope="module")
def resnet():
    model = vision.ResNet50()
    return model, model.init(fnet.random.key(0)), model.init_state()


def images(shape, seed=0):
    return numpy.random.default_rng(seed).uniform(-1, 1, shape).astype(numpy.float32)


def test_extract_returns_the_layers_asked_for(resnet):
    model, params, state = resnet
    found, new_state = model.extract(params, images((2, 3, 64, 64)), ["res3", "pool5"], state, train=False)
    assert sorted(found) == ["pool5", "res3"]
    assert found["res3"].shape == (2, 512, 8, 8) and found["pool5"].shape == (2, 2048)
    assert new_state is not state and new_state == state  # inference leaves the statistics


def test_extract_in_training_moves_the_statistics(resnet):
    model, params, state = resnet
    _, new_state = model.extract(params, images((2, 3, 64, 64)), ["conv1"], state, train=True)
    assert not numpy.array_equal(new_state["bn1"]["avg_mean"], state["bn1"]["avg_mean"])
    assert new_state["res2"] is state["res2"]  # stages after the last one asked for do not run


def test_apply_is_extract_of_prob(resnet):
    model, params, state = resnet
    x = images((1, 3, 64, 64))
    prob, _ = model.apply(params, x, state, train=False)
    found, _ = model.extract(params, x, ["prob"], state, train=False)
    numpy.testing.assert_array_equal(prob, found["prob"])
    numpy.testing.assert_allclose(numpy.sum(prob, axis=1), 1.0, rtol=1e-5)  # rtol: float32 sums


def test_extract_names_unknown_layers_and_missing_state(resnet):
    model, params, state = resnet
    with pytest.raises(InvalidInputError, match=r"ResNet50.extract: expected layer names .*\['fc7'\]"):
        model.extract(params, images((1, 3, 64, 64)), ["fc7"], state)
    with pytest.raises(InvalidInputError, match="expected state=..."):
        model.extract(params, images((1, 3, 64, 64)), ["pool5"])


def test_predict_averages_the_ten_crops(resnet):
    model, params, state = resnet
    x = images((1, 3, 256, 256))
    y = model.predict(params, x, state)
    crops = vision.oversample(x, (224, 224))
    each, _ = model.apply(params, crops, state, train=False)
    numpy.testing.assert_allclose(y, numpy.mean(each, axis=0, keepdims=True), rtol=1e-5)  # rtol: sum order
    center = model.predict(params, x, state, oversample=False)
    numpy.testing.assert_array_equal(
        center, model.apply(params, x[:, :, 16:240, 16:240], state, train=False)[0]
    )


def test_googlenet_side_classifiers_start_from_their_inception():
    model = vision.GoogLeNet()
    params = model.init(fnet.random.key(1))
    x = images((1, 3, 224, 224))  # the side classifiers take 14 x 14 maps
    found = model.extract(params, x, ["inception_4a", "loss1_fc2"], train=False)
    start = found["inception_4a"]
    h = fnet.functions.average_pooling_2d(start, 5, stride=3)
    h = fnet.functions.relu(model.loss1_conv(params["loss1_conv"], h))
    h = fnet.functions.relu(model.loss1_fc1(params["loss1_fc1"], h))
    numpy.testing.assert_array_equal(found["loss1_fc2"], model.loss1_fc2(params["loss1_fc2"], h))


def test_dropout_in_training_needs_a_key():
    model = vision.GoogLeNet(ZERO)
    params = model.init(fnet.random.key(0))
    x = images((1, 3, 224, 224))
    with pytest.raises(InvalidInputError, match="expected a random key for dropout"):
        model.extract(params, x, ["loss3_fc"], train=True)
    found = model.extract(params, x, ["loss3_fc"], train=True, key=fnet.random.key(2))
    assert found["loss3_fc"].shape == (1, 1000)


def test_vgg_has_chainers_depths():
    with pytest.raises(ValueError, match="either 16 or 19, but 17 was given"):
        vision.VGG(17)
    with pytest.raises(ValueError, match="50, 101, or 152, but 34 was given"):
        vision.ResNet(34)


@pytest.mark.skipif(not vision.image.pillow_available, reason="prepare needs Pillow")
def test_prepare_makes_bgr_chw_without_the_mean():
    rgb = numpy.zeros((6, 8, 3), numpy.uint8)
    rgb[..., 0], rgb[..., 1], rgb[..., 2] = 10, 20, 30
    out = vision.prepare(rgb, (4, 2), mean=(1.0, 2.0, 3.0))
    assert out.shape == (3, 2, 4) and out.dtype == numpy.float32
    numpy.testing.assert_array_equal(out[:, 0, 0], [30 - 1.0, 20 - 2.0, 10 - 3.0])
    for image in (rgb[..., 0], rgb.transpose(2, 0, 1), rgb[None, :, :, 0]):
        assert vision.prepare(image, None, mean=(0, 0, 0), dtype=numpy.float16).shape == (3, 6, 8)
    with pytest.raises(InvalidInputError, match=r"prepare: expected an image .* got shape \(1, 2, 3, 4\)"):
        vision.prepare(numpy.zeros((1, 2, 3, 4), numpy.uint8), mean=(0, 0, 0))


def test_from_caffe_puts_each_entry_on_the_device_of_the_one_it_replaces():
    # it read the old entry with numpy.asarray (which a device array refuses) and left the new
    # one on the host, among the model's device arrays
    model = vision.GoogLeNet(ZERO)
    host = model.init(fnet.random.key(0))
    sources = model.caffe_sources()
    shapes = {}
    for path, source in sources.items():
        node = host
        for name in path.split("/"):
            node = node[name]
        shapes[source] = node.shape
    with installed():
        params = fnet.backend.to_device(host, "@cupy:0")
        loaded, _ = model.from_caffe(params, {}, lambda layer, entry: numpy.ones(shapes[layer, entry]))
        leaves = fnet.tree.leaves(loaded)
    assert {type(leaf) for leaf in leaves} == {DeviceArray}
    assert all(leaf.dtype == numpy.float32 for leaf in leaves)
    assert all(fnet.backend.to_cpu(loaded["conv1"]["W"]).ravel() == 1.0)
