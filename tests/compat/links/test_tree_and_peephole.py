"""The tree LSTM links and the peephole LSTM against Chainer 7.8.1's numbers
(tests/golden/make_links_tree_peephole.py): layouts, outputs and gradients with missing children
and inputs, the recurrent state of the peephole LSTM, and Chainer's errors."""

import pathlib

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
from fnet.compat.links.peephole import StatefulPeepholeLSTM
from fnet.compat.links.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM
from fnet.compat.serializers import DictionarySerializer

GOLDEN = numpy.load(pathlib.Path(__file__).parents[2] / "golden" / "links_tree_peephole.npz")


def close(actual, key):
    numpy.testing.assert_allclose(getattr(actual, "array", actual), GOLDEN[key], rtol=1e-5, atol=1e-6)


def made(prefix):
    """The link of ``prefix`` with Chainer's parameter values."""
    link = {
        "childsum": lambda: ChildSumTreeLSTM(3, 4),
        "nary": lambda: NaryTreeLSTM(3, 4, n_ary=3),
        "peephole": lambda: StatefulPeepholeLSTM(3, 4),
    }[prefix]()
    for path, param in link.namedparams():
        param.array[...] = GOLDEN[f"{prefix}.p:{path}"]
    return link


def ones(*shape):
    return numpy.ones(shape, numpy.float32)


@pytest.mark.parametrize("prefix", ["childsum", "nary", "peephole"])
def test_parameter_names_shapes_and_npz_keys_are_chainers(prefix):
    link = made(prefix)
    names = [f"{path} {param.shape}" for path, param in link.namedparams()]
    assert names == list(GOLDEN[f"{prefix}.names"])
    serializer = DictionarySerializer()
    serializer.save(link)
    assert sorted(serializer.target) == list(GOLDEN[f"{prefix}.keys"])


TREE_CASES = {
    "childsum.full": 5,
    "childsum.leaf": 1,
    "childsum.none": 5,
    "childsum.three": 7,
    "nary.full": 7,
    "nary.none": 7,
    "nary.nox": 7,
}


@pytest.mark.parametrize("case", sorted(TREE_CASES))
def test_tree_lstm_outputs_and_gradients_match_chainer(case):
    link = made(case.split(".")[0])
    link.cleargrads()
    args = [
        chainer.Variable(GOLDEN[f"{case}.in{k}"]) if f"{case}.in{k}" in GOLDEN else None
        for k in range(TREE_CASES[case])
    ]
    c, h = link(*args)
    close(c, f"{case}.c")
    close(h, f"{case}.h")
    (F.sum(GOLDEN[f"{case}.wc"] * c) + F.sum(GOLDEN[f"{case}.wh"] * h)).backward()
    for k, arg in enumerate(args):
        if arg is not None:
            close(arg.grad, f"{case}.gin{k}")
    for path, param in link.namedparams():
        key = f"{case}.g:{path}"
        if key in GOLDEN:
            close(param.grad, key)
        else:  # a parameter the call did not use
            assert param.grad is None, path


def test_child_sum_does_not_depend_on_the_order_of_children():
    link = made("childsum")
    c1, c2, h1, h2 = (GOLDEN[f"childsum.full.in{k}"] for k in range(4))
    x = GOLDEN["childsum.full.in4"]
    one, other = link(c1, c2, h1, h2, x), link(c2, c1, h2, h1, x)
    for a, b in zip(one, other):
        numpy.testing.assert_allclose(a.array, b.array, rtol=1e-6)


def test_tree_lstm_attributes_and_lazy_input_size():
    childsum, nary = ChildSumTreeLSTM(3, 4), NaryTreeLSTM(5, 2)
    assert (childsum.in_size, childsum.state_size) == (3, 4)
    assert (nary.in_size, nary.state_size, nary.n_ary) == (5, 2, 2)
    assert [name for name, _ in nary.namedlinks(skipself=True)] == ["/W_h1", "/W_h2", "/W_x"]
    assert childsum.W_h_aio.b is None and childsum.W_x.b.array.tolist() == [0.0] * 16
    lazy = ChildSumTreeLSTM(None, 2)
    assert lazy.W_x.W.array is None
    c, h = lazy(ones(3, 6))
    assert lazy.W_x.W.shape == (8, 6) and c.shape == h.shape == (3, 2)


def test_tree_lstm_errors_are_chainers():
    with pytest.raises(AssertionError, match="odd number of arguments"):
        ChildSumTreeLSTM(3, 2)(ones(1, 2), ones(1, 3))
    with pytest.raises(AssertionError, match="expected 5 arguments"):
        NaryTreeLSTM(3, 2)(ones(1, 2), ones(1, 2), ones(1, 3))
    with pytest.raises(AssertionError, match="n_ary >= 1"):
        NaryTreeLSTM(3, 2, n_ary=0)
    with pytest.raises(ValueError, match=r"All inputs \(cs, hs, x\) are None"):
        ChildSumTreeLSTM(3, 2)(None, None, None)
    with pytest.raises(ValueError, match=r"All inputs \(cs, hs, x\) are None"):
        NaryTreeLSTM(3, 2, n_ary=1)(None, None, None)


def test_peephole_steps_and_gradients_match_chainer():
    link = made("peephole")
    link.cleargrads()
    xs = [chainer.Variable(GOLDEN[f"peephole.x{step}"]) for step in (1, 2, 3)]
    loss = 0
    for step, x in enumerate(xs, 1):
        y = link(x)
        loss = loss + F.sum(GOLDEN[f"peephole.w{step}"] * y)
        assert link.h is y
        close(y, f"peephole.y{step}")
        close(link.c, f"peephole.c{step}")
    loss.backward()
    close(xs[0].grad, "peephole.gx1")
    for path, param in link.namedparams():
        close(param.grad, f"peephole.g:{path}")


def test_peephole_state_reset_and_device():
    link = StatefulPeepholeLSTM(3, 2)
    assert link.c is None and link.h is None and link.state_size == 2
    assert link.lateral.b is None and link.upward.b.shape == (8,)
    link(ones(4, 3))
    assert link.c.shape == link.h.shape == (4, 2)
    link.to_device("@numpy")
    assert link.c.device == link.device and link.h.device == link.device
    link.reset_state()
    assert link.c is None and link.h is None
    first = link(ones(4, 3)).array
    link.reset_state()
    numpy.testing.assert_array_equal(link(ones(4, 3)).array, first)
