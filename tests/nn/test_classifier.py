"""Classifier against Chainer 7.8.1 (golden data from tests/golden/make_nn_loss.py), its label keys,
metrics, stateful predictors and errors."""

from __future__ import annotations

import attrs
import numpy
import pytest

import fnet
from fnet import errors, nn
from fnet import functions as F
from fnet.testing import check_grads, tree_allclose

from .nn_loss_golden import assert_close, assert_params_like_chainer, case, params

KEY = fnet.random.key(0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_classifier_matches_chainer(dtype):
    name = f"classifier_{dtype}"
    golden, chainer_params = case(name), params(name)
    model = nn.Classifier(nn.Linear(3, 4))
    assert_params_like_chainer(name, model.init(KEY))
    loss, metrics = model(chainer_params, golden["x"], golden["t"])
    assert_close(loss, golden["loss"])
    assert sorted(metrics) == ["accuracy", "loss"]
    assert metrics["loss"] is loss
    assert_close(metrics["accuracy"], golden["accuracy"])
    g = fnet.grad(lambda p: model(p, golden["x"], golden["t"])[0])(chainer_params)
    assert_close(g["predictor"]["W"], golden["grad.predictor/W"])
    assert_close(g["predictor"]["b"], golden["grad.predictor/b"])


def test_classifier_with_other_functions_and_label_key_zero_matches_chainer():
    golden, chainer_params = case("classifier_hinge_first_label"), params("classifier_hinge_first_label")
    model = nn.Classifier(nn.Linear(3, 4), lossfun=F.hinge, accfun=F.accuracy, label_key=0)
    loss, metrics = model(chainer_params, golden["t"], golden["x"])
    assert_close(loss, golden["loss"])
    assert_close(metrics["accuracy"], golden["accuracy"])


def test_classifier_takes_the_labels_by_keyword():
    golden, chainer_params = case("classifier_float32"), params("classifier_float32")
    model = nn.Classifier(nn.Linear(3, 4), label_key="t")
    loss, _ = model(chainer_params, x=golden["x"], t=golden["t"])
    assert_close(loss, golden["loss"])


def test_classifier_defaults_and_params():
    model = nn.Classifier(nn.Linear(3, 4))
    assert model.lossfun is F.softmax_cross_entropy and model.accfun is F.accuracy
    assert model.label_key == -1 and model.compute_accuracy
    assert not model.stateful and model.init_state() == {}
    params = model.init(KEY)
    assert tree_allclose(params, {"predictor": nn.Linear(3, 4).init(KEY)})
    lazy = nn.Classifier(nn.Linear(4)).init(KEY, numpy.zeros((2, 3), numpy.float32))
    assert lazy["predictor"]["W"].shape == (4, 3)


def test_classifier_without_accuracy():
    model = nn.Classifier(nn.Linear(3, 4), compute_accuracy=False)
    _, metrics = model(model.init(KEY), numpy.ones((2, 3), numpy.float32), numpy.array([0, 1]))
    assert list(metrics) == ["loss"]


def test_classifier_metrics_come_out_of_value_and_grad():
    model = nn.Classifier(nn.Linear(3, 4))
    x, t = numpy.ones((2, 3), numpy.float32), numpy.array([0, 1])
    params = model.init(KEY)
    (loss, metrics), grads = fnet.value_and_grad(lambda p: model(p, x, t), has_aux=True)(params)
    assert float(metrics["loss"]) == float(loss)
    assert float(metrics["accuracy"]) in (0.0, 0.5, 1.0)
    assert grads["predictor"]["W"].shape == (4, 3)


def test_classifier_grads_of_order_two():
    model = nn.Classifier(nn.Sequential(nn.Linear(3, 4), F.tanh, nn.Linear(4, 3)))
    params = fnet.tree.map(lambda a: a.astype(numpy.float64), model.init(KEY))
    x, t = numpy.random.RandomState(0).uniform(-1, 1, (5, 3)), numpy.array([0, 1, 2, 1, 0])
    check_grads(lambda p, x: model(p, x, t)[0], (params, x), order=2)


@attrs.frozen
class CountingLinear(nn.Layer):
    """A stateful test layer: a Linear that counts its calls in training mode."""

    inner: nn.Linear
    stateful = True

    def init(self, key):
        return self.inner.init(key)

    def init_state(self):
        return {"calls": 0}

    def apply(self, params, x, state, *, train=True):
        return self.inner(params, x), {"calls": state["calls"] + int(train)}


def test_classifier_with_a_stateful_predictor():
    model = nn.Classifier(CountingLinear(nn.Linear(3, 2)))
    assert model.stateful and model.init_state() == {"predictor": {"calls": 0}}
    params, x, t = model.init(KEY), numpy.ones((2, 3), numpy.float32), numpy.array([0, 1])
    (loss, metrics), state = model(params, x, t, state=model.init_state())
    assert state == {"predictor": {"calls": 1}} and "accuracy" in metrics
    _, state = model(params, x, t, state=state, train=False)
    assert state == {"predictor": {"calls": 1}}
    with pytest.raises(
        errors.InvalidInputError, match="Classifier.apply: the predictor has state; pass state="
    ):
        model(params, x, t)


def test_classifier_errors():
    with pytest.raises(
        errors.DTypeError, match="Classifier: expected label_key to be an int or a str, got float"
    ):
        nn.Classifier(nn.Linear(3, 2), label_key=1.0)
    with pytest.raises(
        TypeError, match="(?s)expected predictor to be an fnet.nn layer, got function.*Sequential"
    ):
        nn.Classifier(F.relu)
    model = nn.Classifier(nn.Linear(3, 2), label_key=2)
    with pytest.raises(
        errors.InvalidInputError, match="label_key 2 is out of bounds for 2 positional arguments"
    ):
        model(model.init(KEY), numpy.ones((2, 3), numpy.float32), numpy.array([0, 1]))
    model = nn.Classifier(nn.Linear(3, 2), label_key="t")
    with pytest.raises(ValueError, match=r"keyword argument 't' \(label_key\), got keywords \['x'\]"):
        model(model.init(KEY), x=numpy.ones((2, 3), numpy.float32))
