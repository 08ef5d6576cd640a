"""fnet.compat.sequential: Chainer's Sequential (layers, list API, children order, copies)."""

from __future__ import annotations

import functools
import pathlib
import pickle

import numpy
import pytest

from fnet.compat import functions as F
from fnet.compat.link import Link
from fnet.compat.sequential import Sequential

from .test_link import DictSerializer, Linear

GOLDEN = pathlib.Path(__file__).parents[1] / "golden" / "compat_link.npz"


def ones(*shape):
    return numpy.ones(shape, numpy.float32)


def test_forward_through_links_and_functions():
    model = Sequential(Linear(3, 4), F.relu, Linear(4, 2))
    assert model(ones(5, 3)).shape == (5, 2)
    assert [p for p, _ in model.namedparams()] == ["/0/W", "/0/b", "/1/W", "/1/b"]
    assert [link.name for link in model.children()] == ["0", "1"]
    with pytest.raises(RuntimeError, match="Sequential does not have any layer"):
        Sequential()(ones(1))


def test_tuple_outputs_are_spread():
    model = Sequential(lambda x: (x, 2 * x), lambda a, b: a + b)
    assert model(1) == 3
    assert Sequential(F.add)(1.0, 2.0).array == 3.0


def test_children_order_matches_chainer_files():
    """Chainer places a link appended after position 0 right after the first link before it,
    so the children (and the keys of saved files) are not in the layers' order."""
    golden = numpy.load(GOLDEN)
    saved = {k[len("seq/") :]: golden[k] for k in golden.files if k.startswith("seq/")}
    sizes = [(2, 3), (3, 4), (4, 5), (5, 6)]
    linears = [Linear(i, o) for i, o in sizes]
    model = Sequential(linears[0], F.relu, linears[1], F.relu, linears[2], linears[3])
    assert [c.name for c in linears] == ["0", "3", "2", "1"]
    model.serialize(DictSerializer(saved, loading=True))
    for k, link in enumerate(linears):
        numpy.testing.assert_array_equal(link.W.array, numpy.full(link.W.shape, k))
    written = {}
    model.serialize(DictSerializer(written, loading=False))
    assert sorted(written) == sorted(saved)
    assert [p for p, _ in model.namedparams()][::2] == ["/0/W", "/1/W", "/2/W", "/3/W"]


def test_insert_and_delete_rename_children():
    a, b, c = Linear(1, 1), Linear(2, 2), Linear(3, 3)
    model = Sequential(a, F.relu, b, c)
    assert [x.name for x in (a, b, c)] == ["0", "2", "1"]
    del model[2]
    assert list(model) == [a, F.relu, c] and [x.name for x in (a, c)] == ["0", "1"]
    model.insert(0, b)
    assert model[0] is b and [x.name for x in model.children()] == ["0", "1", "2"]
    model.insert(-1, F.tanh)
    assert model[-2] is F.tanh and len(model) == 5
    with pytest.raises(IndexError, match="Index out of range: 6"):
        model.insert(6, F.relu)
    with pytest.raises(ValueError, match="should be callable"):
        model.insert(0, 3)


def test_list_api():
    a, b = Linear(1, 1), Linear(1, 1)
    model = Sequential(a, F.relu)
    model.append(b)
    model.extend([F.sigmoid, F.relu])
    assert len(model) == 5 and model.count(F.relu) == 2 and model.index(F.relu, 2) == 2
    assert F.sigmoid in model and list(reversed(model))[0] is F.relu
    assert model.count_by_layer_type("relu") == 2 and model.count_by_layer_type("Linear") == 2
    model.remove(F.sigmoid)
    assert F.sigmoid not in model
    with pytest.raises(ValueError, match="There is no layer object that is same as"):
        model.remove(F.sigmoid)
    assert model.pop() is F.relu and model.pop(0) is a
    assert list(model) == [F.relu, b] and b.name == "0"
    model.remove_by_layer_type("relu")
    assert list(model) == [b]
    model[0] = a
    assert list(model) == [a] and list(model.children()) == [a]
    with pytest.raises(ValueError, match="1 should be less than 1"):
        model[1] = a
    with pytest.raises(ValueError, match="should be callable"):
        model[0] = "relu"
    model.clear()
    assert len(model) == 0 and list(model.params()) == []


def test_add_and_iadd():
    model_a = Sequential(Linear(10, 10), F.relu)
    model_b = Sequential(Linear(10, 10), F.sigmoid)
    model_c = model_a + model_b
    assert list(model_c) == list(model_a) + list(model_b) and len(model_a) == 2
    model_a += model_b
    assert len(model_a) == 4
    with pytest.raises(ValueError, match="add \\(\\+\\) operator supports only objects of Sequential class"):
        model_a + [F.relu]
    with pytest.raises(ValueError, match="add \\(\\+=\\) operator"):
        model_a += [F.relu]


def test_str_like_chainer():
    text = str(Sequential(Linear(10, 10), F.relu, Linear(10, 10), F.sigmoid))
    lines = text.splitlines()
    assert lines[0] == "Sequential(" and lines[-1] == ")"
    assert lines[1] == "  (0): Linear(in_size=10, out_size=10),"
    assert lines[2].startswith("  (1): <function relu at 0x") and lines[4].startswith(
        "  (3): <function sigmoid"
    )
    model = Sequential(
        lambda x: x * 2,
    )
    assert str(model) == "Sequential(\n  (0): lambda x: x * 2,\n)"
    assert str(Sequential()) == "Sequential()"


def test_flatten():
    inner = Sequential(Linear(2, 2), F.relu)
    outer = Sequential(Linear(2, 2), F.relu, inner)
    flat = outer.flatten()
    assert len(flat) == 4 and flat[2] is inner[0] and flat.count_by_layer_type("Sequential") == 0
    assert outer.count_by_layer_type("Sequential") == 1


def test_copy_and_copyparams():
    model = Sequential(Linear(2, 3), F.relu, Linear(3, 1))
    for mode in ("share", "copy", "init"):
        copied = model.copy(mode)
        assert type(copied) is Sequential and copied[1] is F.relu and copied[0] is not model[0]
        assert (copied[0].W.array is model[0].W.array) == (mode == "share")
    fresh = model.copy("init")
    fresh.copyparams(model)
    numpy.testing.assert_array_equal(fresh[2].W.array, model[2].W.array)
    with pytest.raises(ValueError, match="Objects other than Sequential object cannot be copied"):
        fresh.copyparams(Link())


def test_repeat_of_a_sequential():
    block = Sequential(Linear(2, 2), F.relu)
    net = block.repeat(3)
    assert len(net) == 3 and all(isinstance(x, Sequential) for x in net)
    assert [p for p, _ in net.namedparams()][:2] == ["/0/0/W", "/0/0/b"]


def test_pickling():
    model = Sequential(Linear(2, 2), functools.partial(F.leaky_relu, slope=0.1))
    restored = pickle.loads(pickle.dumps(model))
    numpy.testing.assert_array_equal(restored[0].W.array, model[0].W.array)
    with pytest.raises(ValueError, match="lambda function"):
        pickle.dumps(Sequential(lambda x: x))


def test_params_tree_keys_follow_the_children():
    model = Sequential(Linear(2, 3), F.relu, Linear(3, 4), Linear(4, 5))
    tree = model.params_tree()
    assert sorted(tree) == ["0", "1", "2"] and tree["1"]["W"].shape == (5, 4)


def test_a_linear_link_sized_by_a_shape_is_built_and_inserted_as_in_chainer():
    from fnet.compat import links as L
    from fnet.compat.utils import type_check

    made = L.Linear((3, 3))  # Chainer's tests use it as a placeholder: b gets the shape
    assert made.W.array is None and made.b.shape == (3, 3)
    seq = Sequential(F.sin)
    seq.insert(0, made)
    assert seq[0] is made and seq[1] is F.sin
    with pytest.raises(type_check.InvalidType, match="W.ndim == 2"):
        made(numpy.ones((2, 4), numpy.float32))  # and it cannot be applied
