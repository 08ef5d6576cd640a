"""Layer, Module and Sequential: Chainer's parameter names (golden data from tests/golden/make_nn_loss.py),
keys, state threading, and errors; and frozen_initializer."""

from __future__ import annotations

import attrs
import numpy
import pytest

import fnet
from fnet import errors, initializers, nn
from fnet import functions as F
from fnet.testing import tree_allclose

from .nn_loss_golden import assert_close, assert_params_like_chainer, case, params

KEY = fnet.random.key(0)


@attrs.frozen
class MLP(nn.Module):
    l1: nn.Linear
    l2: nn.Linear
    activation: object = F.relu  # a function field: a hyperparameter, not a child

    def apply(self, params, x):
        return self.l2(params["l2"], self.activation(self.l1(params["l1"], x)))


@attrs.frozen
class Counter(nn.Layer):
    """A stateful test layer: adds its weight, counts the calls made in training mode."""

    size: int
    stateful = True

    def init(self, key):
        return {"w": fnet.random.normal(key, (self.size,))}

    def init_state(self):
        return {"calls": numpy.zeros((), numpy.int64)}

    def apply(self, params, x, state, *, train=True):
        return x + params["w"], {"calls": state["calls"] + int(train)}


def test_module_names_and_forward_match_a_chainer_chain():
    model = MLP(nn.Linear(3, 4), nn.Linear(4, 2))
    assert_params_like_chainer("chain", model.init(KEY))
    golden = case("chain")
    assert_close(model(params("chain"), golden["x"]), golden["y"])


def test_sequential_numbers_only_its_layers_like_chainer():
    model = nn.Sequential(nn.Linear(3, 4), F.relu, nn.Sequential(nn.Linear(4, 2), F.tanh, nn.Linear(2, 2)))
    assert_params_like_chainer("sequential", model.init(KEY))
    golden = case("sequential")
    assert_close(model(params("sequential"), golden["x"]), golden["y"])


def test_children_get_independent_keys():
    model = MLP(nn.Linear(3, 3), nn.Linear(3, 3))
    p = model.init(KEY)
    assert (p["l1"]["W"] != p["l2"]["W"]).any()
    q = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3)).init(KEY)
    assert (q["0"]["W"] != q["1"]["W"]).any()
    assert tree_allclose(model.init(KEY), p)  # and the same key gives the same params


def test_module_state_nests_under_the_stateful_children():
    @attrs.frozen
    class Net(nn.Module):
        lin: nn.Linear
        count: Counter

        def apply(self, params, x, state, *, train=True):
            y, count_state = self.count(
                params["count"], self.lin(params["lin"], x), state["count"], train=train
            )
            return y, {"count": count_state}

    net = Net(nn.Linear(2, 3), Counter(3))
    assert net.stateful and not MLP(nn.Linear(1, 1), nn.Linear(1, 1)).stateful
    assert net.init_state() == {"count": {"calls": 0}}
    assert sorted(net.init(KEY)) == ["count", "lin"]


def test_sequential_threads_state_through_stateful_layers():
    model = nn.Sequential(nn.Linear(2, 3), F.relu, Counter(3), Counter(3))
    assert model.stateful
    p, state = model.init(KEY), model.init_state()
    assert sorted(p) == ["0", "1", "2"] and sorted(state) == ["1", "2"]
    x = numpy.ones((4, 2), numpy.float32)
    y, state1 = model(p, x, state)
    assert state1 == {"1": {"calls": 1}, "2": {"calls": 1}} and state == {
        "1": {"calls": 0},
        "2": {"calls": 0},
    }
    expected = F.relu(nn.Linear(2, 3)(p["0"], x)) + p["1"]["w"] + p["2"]["w"]
    numpy.testing.assert_allclose(y, expected, rtol=1e-6)
    _, state2 = model(p, x, state1, train=False)
    assert state2 == state1
    with pytest.raises(
        errors.InvalidInputError, match="Sequential.apply: a child layer has state; pass state="
    ):
        model(p, x)


def test_stateless_sequential_returns_just_the_output():
    model = nn.Sequential(F.relu)
    assert not model.stateful and model.init(KEY) == {} and model.init_state() == {}
    numpy.testing.assert_array_equal(model({}, numpy.array([-1.0, 2.0])), [0.0, 2.0])


def test_layers_are_frozen_and_compare_by_value():
    layer = nn.Linear(3, 2)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        layer.out_size = 5
    assert nn.Sequential(nn.Linear(3, 2), F.relu) == nn.Sequential(nn.Linear(3, 2), F.relu)
    assert hash(MLP(nn.Linear(3, 4), nn.Linear(4, 2))) == hash(MLP(nn.Linear(3, 4), nn.Linear(4, 2)))


def test_calling_a_layer_is_apply():
    layer, x = nn.Linear(3, 2), numpy.ones((1, 3), numpy.float32)
    p = layer.init(KEY)
    numpy.testing.assert_array_equal(layer(p, x), layer.apply(p, x))


def test_the_base_layer_says_what_is_missing():
    @attrs.frozen
    class Empty(nn.Layer):
        pass

    with pytest.raises(TypeError, match="Empty defines no init"):
        Empty().init(KEY)
    with pytest.raises(TypeError, match=r"Empty defines no apply\(params"):
        Empty()({}, 1)
    assert not Empty().stateful and Empty().init_state() == {}


def test_sequential_rejects_what_it_cannot_call():
    with pytest.raises(
        errors.InvalidInputError,
        match="(?s)Sequential: expected layers or functions, got int at position 1.*hint",
    ):
        nn.Sequential(nn.Linear(3, 2), 3)


def test_frozen_initializer():
    assert nn.layer.frozen_initializer(None) is None
    normal = initializers.Normal(0.1)
    assert nn.layer.frozen_initializer(normal) is normal
    array = numpy.ones(3)
    frozen = nn.layer.frozen_initializer(array)
    array[0] = 5.0
    assert isinstance(frozen, initializers.Constant) and frozen.fill_value[0] == 1.0
    assert nn.layer.frozen_initializer(2) == initializers.Constant(2)


def test_sequential_hands_split_keys_to_layers_that_take_one():
    model = nn.Sequential(nn.StatefulZoneoutLSTM(3, 2), nn.Linear(2, 2))
    params = model.init(fnet.random.key(0))
    x = numpy.ones((4, 3), numpy.float32)
    y1, state = model(params, x, model.init_state(), key=fnet.random.key(1))
    y2, _ = model(params, x, model.init_state(), key=fnet.random.key(1))
    numpy.testing.assert_array_equal(y1, y2)
    assert y1.shape == (4, 2) and set(state) == {"0"}
    with pytest.raises(fnet.errors.InvalidInputError, match="key"):
        model(params, x, model.init_state())


def test_sequential_names_layers_as_chainer_does_from_three_layers_on():
    # Chainer 7.8.1: Sequential(L(2,3), relu, L(3,4), relu, L(4,5), L(5,6)).namedparams() gives
    # /0/W (3, 2), /1/W (6, 5), /2/W (5, 4), /3/W (4, 3): each new link goes right after the
    # first link before it, and the names are the positions among the children.
    relu = fnet.functions.relu
    model = nn.Sequential(nn.Linear(2, 3), relu, nn.Linear(3, 4), relu, nn.Linear(4, 5), nn.Linear(5, 6))
    params = model.init(fnet.random.key(0))
    assert {name: p["W"].shape for name, p in params.items()} == {
        "0": (3, 2),
        "1": (6, 5),
        "2": (5, 4),
        "3": (4, 3),
    }
    assert model(params, numpy.ones((1, 2), numpy.float32)).shape == (1, 6)
