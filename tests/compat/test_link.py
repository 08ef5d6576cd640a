"""fnet.compat.link: Chainer's Link, Chain and ChainList (registration, hierarchy, copies,
gradients, serialization, devices, hooks) and the bridges to the pure API."""

from __future__ import annotations

import copy
import pickle

import attrs
import numpy
import pytest

import fnet
from fnet import nn
from fnet.compat import functions as F
from fnet.compat import initializers
from fnet.compat.link import Chain, ChainList, Link
from fnet.compat.link_hooks import LinkHook
from fnet.compat.sequential import Sequential
from fnet.compat.variable import Parameter, Variable
from fnet.errors import TreeStructureError


class Linear(Link):
    """A Linear link written on the base class, as Chainer's docs do (lazy when in_size is None)."""

    def __init__(self, in_size, out_size=None, initialW=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.in_size, self.out_size = in_size, out_size
        with self.init_scope():
            self.W = Parameter(initializers.as_pure(initialW, initializers.Normal()))
            self.b = Parameter(0, (out_size,))
        if in_size is not None:
            self._initialize_params(in_size)

    def _initialize_params(self, in_size):
        self.W.initialize((self.out_size, in_size))

    @property
    def printable_specs(self):
        yield from (("in_size", self.in_size), ("out_size", self.out_size))

    def forward(self, x):
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return F.linear(x, self.W, self.b)


class MyChain(Chain):
    """The ``MyChain`` of Chainer's "Creating Models" guide."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(4, 3)
            self.l2 = Linear(3, 2)

    def forward(self, x):
        return self.l2(self.l1(x))


class MyChain2(ChainList):
    """The ``MyChain2`` (a ChainList) of the same guide."""

    def __init__(self):
        super().__init__(Linear(4, 3), Linear(3, 2))

    def forward(self, x):
        return self[1](self[0](x))


class WithState(Link):
    """A link with a parameter, an array persistent and a scalar persistent."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.arange(3, dtype=numpy.float32))
        self.add_persistent("mean", numpy.zeros(3, numpy.float32))
        self.add_persistent("count", 0)


def ones(*shape):
    return numpy.ones(shape, numpy.float32)


# -- registration ---------------------------------------------------------------------------


def test_parameters_register_only_inside_init_scope():
    link = Link()
    with link.init_scope():
        assert link.within_init_scope
        link.W = Parameter(0, (2, 3))
    assert not link.within_init_scope
    link.V = Parameter(1, (2,))  # outside: a plain attribute
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert link.W.name == "W" and link.V.name is None


def test_v1_style_shape_keywords():
    link = Link(W=(3, 4), b=((2,), numpy.float64), c=None, d=5)
    assert link.W.shape == (3, 4) and link.W.dtype == numpy.float32
    assert link.b.dtype == numpy.float64
    assert link.c.array is None and link.d.shape == (5,)
    assert numpy.isnan(link.W.array).all()  # add_param's default initializer is NaN
    assert [name for name, _ in link.namedparams()] == ["/W", "/b", "/c", "/d"]
    with pytest.raises(TypeError, match="shape or as \\(shape, dtype\\)"):
        Link(W="abc")


def test_add_param():
    link = Link()
    link.add_param("W", (2, 3), initializer=2.0)
    link.add_param("b", (2,), dtype=numpy.float64)
    link.add_param("u")
    numpy.testing.assert_array_equal(link.W.array, numpy.full((2, 3), 2, numpy.float32))
    assert link.b.dtype == numpy.float64 and link.u.array is None and not link.u.is_initialized
    with pytest.raises(AttributeError, match="cannot register a new parameter W: attribute exists"):
        link.add_param("W", (1,))


def test_persistents():
    link = WithState()
    assert link._persistent == {"mean", "count"}
    with pytest.raises(AttributeError, match="cannot register a new persistent value mean: attribute exists"):
        link.add_persistent("mean", 1)
    link.register_persistent("w")  # a parameter becomes a persistent
    assert list(link.params()) == [] and "w" in link._persistent
    with pytest.raises(AttributeError, match="cannot register non-existent attribute nothing"):
        link.register_persistent("nothing")
    del link.count
    assert link._persistent == {"mean", "w"}


def test_init_scope_needs_super_init():
    class Forgetful(Link):
        def __init__(self):
            with self.init_scope():
                self.W = Parameter(0, (1,))

    with pytest.raises(RuntimeError, match=r"Link.__init__\(\) has not been called"):
        Forgetful()


# -- the hierarchy --------------------------------------------------------------------------


def test_creating_models_guide():
    model = MyChain()
    assert [c.name for c in model.children()] == ["l1", "l2"]
    assert [(p, a.shape) for p, a in model.namedparams()] == [
        ("/l1/W", (3, 4)),
        ("/l1/b", (3,)),
        ("/l2/W", (2, 3)),
        ("/l2/b", (2,)),
    ]
    assert [p for p, _ in model.namedlinks()] == ["/", "/l1", "/l2"]
    assert [p for p, _ in model.namedlinks(skipself=True)] == ["/l1", "/l2"]
    assert list(model.links()) == [model, model.l1, model.l2]
    assert model["l1"] is model.l1
    assert model(ones(5, 4)).shape == (5, 2)
    model2 = MyChain2()
    assert [p for p, _ in model2.namedparams()] == ["/0/W", "/0/b", "/1/W", "/1/b"]
    assert len(model2) == 2 and model2(ones(5, 4)).shape == (5, 2)


def test_str_like_chainer():
    assert str(MyChain()) == (
        "MyChain(\n  (l1): Linear(in_size=4, out_size=3),\n  (l2): Linear(in_size=3, out_size=2),\n)"
    )
    assert str(MyChain2()) == (
        "MyChain2(\n  (0): Linear(in_size=4, out_size=3),\n  (1): Linear(in_size=3, out_size=2),\n)"
    )
    nested = Chain(inner=MyChain2())
    assert str(nested).splitlines()[1:3] == [
        "  (inner): MyChain2(",
        "    (0): Linear(in_size=4, out_size=3),",
    ]
    assert str(Link()) == "Link()" and str(Chain()) == "Chain()" and str(ChainList()) == "ChainList()"


def test_uninitialized_params():
    model = Chain(lazy=Linear(2))
    assert [p for p, _ in model.namedparams()] == ["/lazy/W", "/lazy/b"]
    assert [p for p, _ in model.namedparams(include_uninit=False)] == ["/lazy/b"]
    assert len(list(model.params(include_uninit=False))) == 1
    with pytest.warns(UserWarning, match="Parameter '/lazy/W' has not been initialized"):
        assert model.count_params() == 2
    model.lazy(ones(1, 5))
    assert model.count_params() == 12


def test_chain_registration_errors():
    chain = Chain(l1=Linear(2, 2))
    with pytest.raises(AttributeError, match="cannot register a new link l1: attribute exists"):
        chain.add_link("l1", Linear(2, 2))
    with pytest.raises(TypeError, match="cannot register a non-link object as a child"):
        chain.add_link("f", F.relu)
    with pytest.raises(AttributeError, match="cannot register a new link l1: attribute exists"):
        with chain.init_scope():
            chain.l1 = Linear(2, 2)
    chain.plain = Linear(2, 2)  # outside init_scope: not a child
    assert [c.name for c in chain.children()] == ["l1"]
    del chain.l1
    assert list(chain.children()) == []


def test_chainlist_is_a_mutable_sequence():
    a, b, c = Linear(1, 1), Linear(2, 2), Linear(3, 3)
    chain = ChainList(a)
    chain.add_link(c)
    chain.insert(1, b)
    assert list(chain) == [a, b, c] and [x.name for x in chain] == ["0", "1", "2"]
    assert chain[1:] == [b, c] and b in chain and chain.index(c) == 2
    del chain[0]
    assert [x.name for x in chain] == ["0", "1"]
    chain[0] = a
    assert list(chain) == [a, c] and a.name == "0"
    assert chain.pop() is c and len(chain) == 1
    with pytest.raises(TypeError, match="ChainList.insert: a ChainList holds links, got function"):
        chain.append(F.relu)
    with pytest.raises(TypeError, match="indices must be integers or slices, not str"):
        chain["0"] = b
    with pytest.raises(TypeError, match='within a "with chainlist.init_scope\\(\\):" block'):
        with chain.init_scope():
            chain.child = Linear(1, 1)


# -- gradients ------------------------------------------------------------------------------


def test_gradients_cleargrads_zerograds_addgrads():
    model = MyChain()
    assert numpy.isnan(model.l1.W.grad).all()  # as Chainer: clear grads before the first backward
    model.cleargrads()
    F.sum(model(ones(2, 4))).backward()
    assert model.l1.W.grad.shape == (3, 4)
    numpy.testing.assert_array_equal(model.l2.b.grad, [2, 2])
    other = model.copy("copy")
    model.addgrads(other)
    numpy.testing.assert_array_equal(model.l2.b.grad, [4, 4])
    model.cleargrads()
    assert all(p.grad is None for p in model.params())
    with pytest.warns(DeprecationWarning, match="Link.zerograds is deprecated"):
        model.zerograds()
    assert all((p.grad == 0).all() for p in model.params())


class _Rule:
    def __init__(self):
        self.enabled = True


def test_update_enabled():
    model = MyChain()
    assert not model.update_enabled  # no optimizer yet
    for p in model.params():
        p.update_rule = _Rule()
    assert model.update_enabled
    model.l1.disable_update()
    assert model.update_enabled and not model.l1.update_enabled
    model.disable_update()
    assert not model.update_enabled
    model.enable_update()
    assert all(p.update_rule.enabled for p in model.params())


# -- copies ---------------------------------------------------------------------------------


def test_copy_share():
    model = MyChain()
    F.sum(model(ones(1, 4))).backward()
    rule = model.l1.W.update_rule = _Rule()
    shared = model.copy()
    assert shared is not model and shared.l1 is not model.l1 and shared.l1.W is not model.l1.W
    assert shared.l1.W.array is model.l1.W.array
    assert shared.l1.W.grad is None and model.l1.W.grad is not None
    assert shared.l1.W.update_rule is rule
    assert shared.name is None and shared.l1.name == "l1"
    model.l1.W.array[...] = 5
    assert (shared.l1.W.array == 5).all()


def test_copy_copy_and_init():
    numpy.random.seed(0)
    model = Chain(net=MyChain(), lazy=Linear(3))
    model.net.name = "net"
    deep = model.net.copy("copy")
    assert deep.name == "net"  # as in Chainer, only 'share' resets the name
    assert deep.l1.W.array is not model.net.l1.W.array
    numpy.testing.assert_array_equal(deep.l1.W.array, model.net.l1.W.array)
    deep.l1.W.array[...] = 0
    assert not (model.net.l1.W.array == 0).all()
    fresh = model.copy("init")
    assert fresh.net.l1.W.shape == (3, 4) and fresh.lazy.W.array is None
    assert not numpy.array_equal(fresh.net.l1.W.array, model.net.l1.W.array)
    numpy.testing.assert_array_equal(fresh.net.l1.b.array, model.net.l1.b.array)  # a constant init
    with pytest.raises(ValueError, match="'mode' argument should be either 'init', 'copy', or 'share'"):
        model.copy("deep")


def test_copy_keeps_references_to_children_consistent():
    class Holder(Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.a = Linear(2, 2)
            self.order = [self.a]

    copied = Holder().copy("copy")
    assert copied.order[0] is copied.a


def test_chainlist_copy():
    model = MyChain2()
    for mode in ("share", "copy", "init"):
        copied = model.copy(mode)
        assert type(copied) is MyChain2 and len(copied) == 2
        assert [c.name for c in copied] == ["0", "1"] and copied[0] is not model[0]
    copied.append(Linear(1, 1))
    assert len(model) == 2


def test_copyparams():
    src, dst = Chain(s=WithState()), Chain(s=WithState())
    src.s.w.array[...] = 7
    src.s.mean[...] = 3
    src.s.count = 4
    mean = dst.s.mean
    dst.copyparams(src, copy_persistent=False)
    assert (dst.s.w.array == 7).all() and (dst.s.mean == 0).all() and dst.s.count == 0
    dst.copyparams(src)
    assert dst.s.mean is mean and (mean == 3).all() and dst.s.count == 4
    with pytest.raises(KeyError, match="copyparams: the source link Chain has no child link 's'"):
        dst.copyparams(Chain())


def test_repeat():
    block = MyChain()
    net = block.repeat(3)
    assert isinstance(net, Sequential) and len(net) == 3
    assert not numpy.array_equal(net[0].l1.W.array, net[1].l1.W.array)
    shared = block.repeat(2, mode="share")
    assert shared[0].l1.W.array is shared[1].l1.W.array is block.l1.W.array
    assert len(block.repeat(0)) == 0
    with pytest.raises(ValueError, match="'mode' argument"):
        block.repeat(2, mode="bad")


def test_pickle_round_trip():
    model = MyChain()
    restored = pickle.loads(pickle.dumps(model))
    numpy.testing.assert_array_equal(restored.l2.W.array, model.l2.W.array)
    assert [p for p, _ in restored.namedparams()] == [p for p, _ in model.namedparams()]
    assert copy.deepcopy(model).l1.name == "l1"


# -- serialization --------------------------------------------------------------------------


class DictSerializer:
    """Chainer's serializer protocol over a flat dict: saves, or loads like NpzDeserializer
    (arrays copied into the given array, other values returned)."""

    def __init__(self, target: dict, loading: bool, prefix: str = ""):
        self.target, self.loading, self.prefix = target, loading, prefix

    def __getitem__(self, name):
        return DictSerializer(self.target, self.loading, f"{self.prefix}{name}/")

    def __call__(self, key, value):
        key = self.prefix + key
        if not self.loading:
            self.target[key] = value
            return value
        loaded = self.target[key]
        if value is None:
            return loaded
        if isinstance(value, numpy.ndarray):
            value[...] = loaded
            return value
        return type(value)(loaded)


def test_serialize_round_trip():
    saved = {}
    model = Chain(net=MyChain(), state=WithState())
    model.state.mean[...] = 2
    model.state.count = 9
    model.serialize(DictSerializer(saved, loading=False))
    assert sorted(saved) == [
        "net/l1/W",
        "net/l1/b",
        "net/l2/W",
        "net/l2/b",
        "state/count",
        "state/mean",
        "state/w",
    ]
    other = Chain(net=MyChain(), state=WithState())
    W, mean = other.net.l1.W.array, other.state.mean
    other.serialize(DictSerializer(saved, loading=True))
    assert other.net.l1.W.array is W  # loaded in place
    numpy.testing.assert_array_equal(W, model.net.l1.W.array)
    assert other.state.mean is mean and (mean == 2).all() and other.state.count == 9


def test_deserialize_initializes_lazy_params():
    lazy = Chain(l=Linear(3))
    lazy.serialize(
        DictSerializer({"l/W": numpy.ones((3, 5), numpy.float64), "l/b": numpy.zeros(3)}, loading=True)
    )
    assert lazy.l.W.shape == (3, 5) and lazy.l.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(lazy.l.W.array, 1)


# -- calling and hooks ----------------------------------------------------------------------


class Recorder(LinkHook):
    name = "Recorder"

    def __init__(self, log):
        self.log = log

    def added(self, link):
        self.log.append(("added", link))

    def deleted(self, link):
        self.log.append(("deleted", link))

    def forward_preprocess(self, args):
        self.log.append(("pre", args.link, args.forward_name, args.args, args.kwargs))

    def forward_postprocess(self, args):
        self.log.append(("post", args.link, args.out.shape))


def test_local_hooks():
    log = []
    link = Linear(2, 3)
    hook = Recorder(log)
    assert link.add_hook(hook) is link and link.local_link_hooks == {"Recorder": hook}
    x = ones(1, 2)
    link(x)
    assert log[0] == ("added", link)
    assert log[1][:3] == ("pre", link, "forward") and log[1][3][0] is x and log[1][4] == {}
    assert log[2] == ("post", link, (1, 3))
    with pytest.raises(KeyError, match="Hook Recorder already exists"):
        link.add_hook(Recorder(log))
    link.add_hook(Recorder(log), name="second")
    link.delete_hook("Recorder")
    assert log[-1] == ("deleted", link) and list(link.local_link_hooks) == ["second"]
    with pytest.raises(KeyError, match="Hook Recorder does not exist"):
        link.delete_hook("Recorder")
    with pytest.raises(TypeError, match="Hook must be of type LinkHook"):
        link.add_hook(object())


def test_thread_wide_hooks_cover_nested_links():
    log = []
    model = MyChain()
    with Recorder(log) as hook:
        assert log == [("added", None)]
        model(ones(1, 4))
        with pytest.raises(KeyError, match="already active"):
            with Recorder(log):
                pass
    model(ones(1, 4))
    assert [(e[0], type(e[1]).__name__) for e in log[1:7]] == [
        ("pre", "MyChain"),
        ("pre", "Linear"),
        ("post", "Linear"),
        ("pre", "Linear"),
        ("post", "Linear"),
        ("post", "MyChain"),
    ]
    assert log[-1] == ("deleted", None) and hook.name == "Recorder"


def test_local_hook_replaces_thread_hook_of_same_name():
    outer, inner = [], []
    link = Linear(2, 2).add_hook(Recorder(inner))
    with Recorder(outer):
        link(ones(1, 2))
    assert [e[0] for e in inner] == ["added", "pre", "post"] and [e[0] for e in outer] == ["added", "deleted"]


def test_calling_without_forward():
    with pytest.raises(AttributeError, match="defines no forward|which it does not define"):
        Link()(1)


def test_v1_style_call_and_mixins():
    class OldStyle(Link):
        def __call__(self, x):
            return x + 1

    assert OldStyle()(1) == 2

    class Mixin:
        def __call__(self, x):
            return ("mixin", x)

    class Mixed(Link, Mixin):
        def forward(self, x):
            return ("forward", x)

    assert Mixed()(3) == ("mixin", 3)


# -- devices --------------------------------------------------------------------------------


def test_device_and_xp():
    model = Chain(s=WithState())
    assert str(model.device) == "@numpy" and model.xp is numpy
    assert model.to_device("@numpy") is model and model.s.device == fnet.backend.CPU
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        assert model.to_cpu() is model


@pytest.mark.skipif(fnet.backend.cupy_available(), reason="checks the message without CuPy")
def test_to_gpu_without_cupy():
    with pytest.warns(DeprecationWarning, match="to_gpu is deprecated"):
        with pytest.raises(RuntimeError, match="CuPy"):
            MyChain().to_gpu()


@pytest.mark.gpu
def test_to_device_moves_params_and_persistent_arrays():
    import cupy

    model = Chain(s=WithState(), lazy=Linear(3))
    model.to_device("@cupy:0")
    assert isinstance(model.s.w.array, cupy.ndarray) and isinstance(model.s.mean, cupy.ndarray)
    assert model.s.count == 0 and model.xp is cupy and str(model.lazy.device) == "@cupy:0"
    y = model.lazy(cupy.ones((2, 4), numpy.float32))
    assert isinstance(y.array, cupy.ndarray)
    model.to_device("@numpy")
    assert isinstance(model.s.mean, numpy.ndarray) and model.xp is numpy


def test_device_resident_accept_can_be_extended():
    class Stateful(Link):
        def __init__(self):
            super().__init__()
            self.h = numpy.zeros(2, numpy.float32)

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.h = visitor.visit_array(self.h)

    class Visitor:
        def __init__(self):
            self.seen = []

        def visit_device_resident(self, link):
            self.seen.append(type(link).__name__)

        def visit_variable(self, variable):
            self.seen.append(variable.name)

        def visit_array(self, array):
            self.seen.append(array.shape)
            return array

    visitor = Visitor()
    Chain(a=Stateful(), b=WithState()).device_resident_accept(visitor)
    assert visitor.seen == ["Chain", "Stateful", (2,), "WithState", "w", (3,)]


# -- bridges to the pure API ----------------------------------------------------------------


def test_params_and_grads_trees():
    model = Chain(net=MyChain(), layers=MyChain2(), state=WithState())
    params = model.params_tree()
    assert params["net"]["l1"]["W"] is model.net.l1.W.array
    paths = [fnet.tree.path_str(p) for p, _ in fnet.tree.flatten_with_paths(params)]
    assert paths == [name[1:] for name, _ in model.namedparams()]
    model.cleargrads()
    assert model.grads_tree()["layers"]["0"] == {"W": None, "b": None}
    F.sum(model.net(ones(1, 4))).backward()
    assert model.grads_tree()["net"]["l2"]["b"].shape == (2,)


def test_set_params_tree():
    model = MyChain()
    shared = model.copy("share")
    tree = fnet.tree.map(lambda a: a * 0 + 1, model.params_tree())
    W = model.l1.W.array
    model.set_params_tree(tree)
    assert model.l1.W.array is W and (W == 1).all() and (shared.l1.W.array == 1).all()
    lazy = Chain(l=Linear(2))
    lazy.set_params_tree({"l": {"W": ones(2, 5), "b": None}})
    assert lazy.l.W.shape == (2, 5) and (lazy.l.b.array == 0).all()
    model.set_params_tree({"l1": {"W": numpy.zeros((6, 1), numpy.float32), "b": W[0]}, "l2": tree["l2"]})
    assert model.l1.W.shape == (6, 1)  # another shape replaces the array


def test_set_params_tree_errors():
    model = MyChain()
    with pytest.raises(
        TreeStructureError, match="(?s)set_params_tree: tree structures differ at 'l2'.*keys \\['W'\\]"
    ):
        model.set_params_tree({"l1": model.l1.params_tree(), "l2": {"W": model.l2.W.array}})
    with pytest.raises(TreeStructureError, match="at the root"):
        model.set_params_tree([])
    with pytest.raises(TypeError, match="expected an array at 'l1/b', got str"):
        model.set_params_tree({"l1": {"W": model.l1.W.array, "b": "x"}, "l2": model.l2.params_tree()})


def test_state_trees():
    model = Chain(net=MyChain(), state=WithState())
    assert model.state_tree() == {"state": {"count": 0, "mean": model.state.mean}}
    mean = model.state.mean
    model.set_state_tree({"state": {"count": 3, "mean": numpy.full(3, 2, numpy.float32)}})
    assert model.state.mean is mean and (mean == 2).all() and model.state.count == 3
    with pytest.raises(TreeStructureError, match="set_state_tree"):
        model.set_state_tree({"state": {"count": 3}})


@attrs.frozen
class PureMLP(nn.Module):
    l1: nn.Linear
    l2: nn.Linear

    def apply(self, params, x):
        return self.l2(params["l2"], self.l1(params["l1"], x))


def test_params_tree_fits_the_pure_layers():
    model = MyChain()
    pure = PureMLP(nn.Linear(4, 3), nn.Linear(3, 2))
    assert fnet.tree.structure(pure.init(fnet.random.key(0))) == fnet.tree.structure(model.params_tree())
    x = numpy.random.RandomState(0).rand(2, 4).astype(numpy.float32)
    numpy.testing.assert_allclose(pure(model.params_tree(), x), model(x).array, rtol=1e-6)
    model.set_params_tree(pure.init(fnet.random.key(1)))
    numpy.testing.assert_allclose(pure(pure.init(fnet.random.key(1)), x), model(x).array, rtol=1e-6)


def test_variable_leaves_are_accepted():
    model = Linear(2, 2)
    model.set_params_tree({"W": Variable(numpy.eye(2, dtype=numpy.float32)), "b": None})
    numpy.testing.assert_array_equal(model.W.array, numpy.eye(2))


def test_a_chain_mixing_in_an_abc_can_be_made_and_a_mixins_call_object_runs():
    import abc
    from unittest import mock

    class Callable(abc.ABC):
        @abc.abstractmethod
        def __call__(self, x): ...

    class Doubler(Chain, Callable):
        def __call__(self, x):
            return 2 * x

    assert Doubler()(3) == 6  # Link.__init_subclass__ left no abstract name in the class
    call = mock.MagicMock(return_value=3)
    injected = type("Injected", (Link, type("CallMixin", (), {"__call__": call})), {})
    assert injected()(1, a=2) == 3
    call.assert_called_once_with(1, a=2)  # as Chainer: the mixin's attribute, not bound


def test_device_id_and_chainerx_conversions():
    from fnet.compat import backend

    link = Link(W=(2, 3))
    with pytest.warns(DeprecationWarning, match="_device_id"):
        assert link._device_id is None
    W = link.W.array
    assert link.from_chx() is link and link.W.from_chx() is None and link.W.array is W
    assert not isinstance(link.device, backend.ChainerxDevice)
    assert not isinstance(backend.get_device("@numpy"), backend.ChainerxDevice)
    with pytest.raises(TypeError, match="expected a chainerx.Device"):
        backend.ChainerxDevice(None)
    assert backend.from_chx((W, None))[0] is W and backend.to_chx(None) is None
    assert link.to_chx() is link and isinstance(link.device, backend.ChainerxDevice)
    assert backend.from_chx(link.W.array) is W  # the same memory, presented as ChainerX


def test_chainerx_ndarray_is_not_numpys():
    from fnet.compat import chainerx

    assert not isinstance(numpy.ones(1), chainerx.ndarray)
    assert isinstance(chainerx.ndarray((2,), "float32"), chainerx.ndarray)


def test_final_and_deprecated_overrides_of_the_device_methods():
    for name in ("to_device", "to_chx", "from_chx"):
        with pytest.raises(TypeError, match=f"overrides Link.{name}"):
            type("Child", (Link,), {name: lambda self, device=None: self})
    calls = []

    def to_cpu(self):
        calls.append(self)
        return Link.to_cpu(self)

    with pytest.warns(DeprecationWarning, match="overrides Link.to_cpu"):
        Child = type("Child", (Link,), {"to_cpu": to_cpu})
    parent = Chain()
    with parent.init_scope():
        parent.child = Child()
    with pytest.warns(DeprecationWarning):
        parent.to_device("@numpy")  # the child's own to_cpu runs
    assert calls == [parent.child]
    with pytest.warns(DeprecationWarning):
        parent.to_cpu()
    assert calls == [parent.child] * 2


def test_a_links_device_is_chainers_device_class():
    from fnet.compat import backend

    link = Link(W=(2, 3))
    assert isinstance(link.device, backend.CpuDevice)
    assert isinstance(link.to_device("@numpy").device, backend.CpuDevice)
    with pytest.warns(DeprecationWarning):
        assert isinstance(link.to_cpu().device, backend.CpuDevice)


def test_a_missing_init_call_is_reported_in_chainers_exact_words():
    class Derived(Link):
        def __init__(self):
            pass

        def forward(self):
            return 1

    with pytest.raises(RuntimeError, match=r"^Link\.__init__\(\) has not been called\.$"):
        Derived()()


def test_a_links_parameters_start_with_chainers_grads():
    from fnet.compat import links as L

    sized, lazy = L.Linear(3, 2), L.Linear(None, 2)
    assert numpy.isnan(sized.W.grad).all() and numpy.isnan(sized.b.grad).all()  # cleargrads() first
    with pytest.raises(RuntimeError, match="cannot retrieve the gradient"):
        _ = lazy.W.grad  # not drawn, not cleared: unreadable, as in Chainer
    assert lazy.grads_tree()["W"] is None  # the bridges and optimizers pass it by
    lazy(numpy.ones((1, 4), numpy.float32))
    assert numpy.isnan(lazy.W.grad).all()
    sized.cleargrads()
    target = L.Linear(3, 2)
    target.addgrads(sized)  # a None grad adds nothing: the NaN stays
    assert numpy.isnan(target.W.grad).all()


def test_a_shared_copy_of_a_lazy_link_draws_the_parameters_of_both():
    from fnet.compat import links as L

    original = L.Linear(None, 2)
    copied = original.copy()  # mode='share', before the first call (as Chainer's evaluators do)
    x = numpy.ones((1, 3), numpy.float32)
    y = copied(x)
    assert original.W.array is copied.W.array
    numpy.testing.assert_array_equal(original(x).array, y.array)
