"""Checks of ChainerMN's API in fnet.compat.chainermn, run on 2 ranks (``comm`` is the pure
communicator the launcher made; each check makes the ChainerMN one it needs)."""

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.chainermn as chainermn
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet.compat import chainerx


class _Model(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = L.Linear(2, 3)
            self.b = L.Linear(3, 1)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))


def check_create_communicator_and_ranks(comm):
    mn = chainermn.create_communicator("naive")
    assert (mn.rank, mn.size, mn.intra_rank, mn.intra_size, mn.inter_size) == (comm.rank, 2, comm.rank, 2, 1)
    assert type(chainermn.create_communicator("flat")).__name__ == "FlatCommunicator"
    with pytest.raises(RuntimeError, match="PureNcclCommunicator requires NCCL 2.0"):
        chainermn.create_communicator("pure_nccl")
    assert type(chainermn.create_communicator("dummy")).__name__ == "DummyCommunicator"
    with pytest.raises(ValueError, match="Unrecognized communicator"):
        chainermn.create_communicator("smoke signals")
    with pytest.raises(ValueError, match="Unknown config"):
        mn.set_config("blah")


def check_bcast_data_and_mean_grad(comm):
    mn = chainermn.create_communicator("flat")
    model = _Model()
    for _, p in model.namedparams():
        p.array[...] = mn.rank
        p.grad = numpy.full_like(p.array, mn.rank * 2.0)
    model.b.b.grad = None if mn.rank == 1 else model.b.b.grad
    mn.bcast_data(model)
    mn.multi_node_mean_grad(model, zero_fill=True)
    assert all((p.array == 0).all() for _, p in model.namedparams())
    numpy.testing.assert_array_equal(model.a.W.grad, numpy.ones((3, 2), numpy.float32))
    numpy.testing.assert_array_equal(model.b.b.grad, [0.0])  # 0 on rank 0, a zero fill on rank 1


def check_bcast_data_and_mean_grad_on_a_chainerx_model(comm):
    mn = chainermn.create_communicator("naive")
    model = _Model()
    model.to_device("native:0")
    for _, p in model.namedparams():
        p.array[...] = mn.rank + 1  # ChainerX's item assignment
        p.grad = chainerx.full(p.shape, mn.rank * 2.0, "float32")
    mn.bcast_data(model)
    mn.multi_node_mean_grad(model)
    for _, p in model.namedparams():
        assert isinstance(p.array, chainerx.ndarray) and isinstance(p.grad, chainerx.ndarray)
        numpy.testing.assert_array_equal(chainerx.to_numpy(p.array), numpy.ones(p.shape))  # rank 0's
        numpy.testing.assert_array_equal(chainerx.to_numpy(p.grad), numpy.ones(p.shape))  # (0 + 2) / 2


def check_recv_obj_takes_any_tag_and_fills_a_status(comm):
    from mpi4py import MPI

    mn = chainermn.create_communicator("naive")
    if mn.rank == 0:
        mn.send_obj("first", dest=1, tag=7)
        mn.send_obj("second", dest=1, tag=9)
    else:
        status = MPI.Status()
        assert mn.recv_obj(source=0, status=status) == "first"  # no tag given: any tag
        assert (status.Get_source(), status.Get_tag()) == (0, 7)
        assert mn.recv_obj(source=0, tag=9) == "second"


def check_debug_mode_catches_diverged_gradients(comm):
    mn = chainermn.create_communicator("naive")
    model = _Model()
    for _, p in model.namedparams():
        p.grad = numpy.full_like(p.array, numpy.nan if mn.rank else 1.0)
    with chainer.using_config("debug", True), pytest.raises(ValueError, match="diverged"):
        mn.multi_node_mean_grad(model)


def check_array_and_object_methods(comm):
    mn = chainermn.create_communicator("naive")
    x = numpy.full((2, 2), mn.rank, numpy.float32)
    numpy.testing.assert_array_equal(mn.allreduce(x), numpy.ones((2, 2)))
    assert [int(a[0, 0]) for a in mn.allgather(x)] == [0, 1]
    numpy.testing.assert_array_equal(mn.bcast(x, root=1), numpy.ones((2, 2)))
    assert mn.allreduce_obj(mn.rank + 1) == 3 and mn.bcast_obj("s" if mn.rank == 0 else None) == "s"
    if mn.rank == 0:
        mn.send((numpy.ones(3), numpy.zeros((2, 2))), dest=1, tag=0)
    else:
        got = mn.recv(source=0, tag=0)
        assert isinstance(got, tuple) and got[1].shape == (2, 2)


def check_chainerx_arrays_travel_in_object_messages(comm):
    mn = chainermn.create_communicator("naive")
    x = chainerx.full((2, 3), mn.rank + 1, "float32", device="native:1")
    got = mn.bcast_obj({"x": x, "pair": (x, 1)} if mn.rank == 0 else None)
    assert isinstance(got["x"], chainerx.ndarray) and str(got["x"].device) == "native:1"
    assert got["x"].dtype == numpy.float32 and got["pair"][1] == 1
    numpy.testing.assert_array_equal(chainerx.to_numpy(got["pair"][0]), numpy.ones((2, 3)))
    gathered = mn.gather_obj(x)
    if mn.rank == 0:
        assert [float(a[0, 0]) for a in gathered] == [1.0, 2.0]


def check_multi_node_optimizer_keeps_ranks_together(comm):
    mn = chainermn.create_communicator("flat")
    numpy.random.seed(mn.rank)  # different initial weights on each rank
    model = _Model()
    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(lr=0.1), mn).setup(model)
    rng = numpy.random.RandomState(10 + mn.rank)
    for _ in range(3):  # the first update broadcasts rank 0's parameters
        x = rng.randn(4, 2).astype(numpy.float32)
        optimizer.update(lambda: F.sum(model(x) ** 2))
    for _, p in sorted(model.namedparams()):
        every = mn.allgather(p.array)
        numpy.testing.assert_array_equal(every[0], every[1])
    assert optimizer.t == 2
    with pytest.raises(ValueError, match="double_buffering needs the 'pure_nccl'"):
        chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(), mn, double_buffering=True)


def check_send_recv_functions_carry_gradients(comm):
    mn = chainermn.create_communicator("naive")
    if mn.rank == 0:
        x = chainer.Variable(numpy.arange(3, dtype=numpy.float32))
        y = chainer.Variable(numpy.ones((2, 2), numpy.float32))
        phi = chainermn.functions.send((x * 2, y), mn, rank=1)
        phi.backward()
        numpy.testing.assert_array_equal(x.grad, [0.0, 8.0, 16.0])  # d/dx sum((2x)^2) = 8x
        numpy.testing.assert_array_equal(y.grad, numpy.full((2, 2), 3.0))
    else:
        a, b = chainermn.functions.recv(mn, rank=0)
        loss = F.sum(a * a) + F.sum(b * 3)
        loss.backward()


def check_collective_functions(comm):
    mn = chainermn.create_communicator("naive")
    x = chainer.Variable(numpy.full(3, mn.rank + 1.0, numpy.float32))
    ys = chainermn.functions.allgather(mn, x)
    assert len(ys) == 2
    F.sum(ys[0] + 2 * ys[1]).backward()
    # both ranks weigh row 0 by 1 and row 1 by 2: rank 0 gets 1 + 1, rank 1 gets 2 + 2
    numpy.testing.assert_array_equal(x.grad, numpy.full(3, 2.0 if mn.rank == 0 else 4.0))


def check_scatter_dataset(comm):
    mn = chainermn.create_communicator("naive")
    data = (
        chainer.datasets.TupleDataset(numpy.arange(10, dtype=numpy.float32), numpy.arange(10))
        if mn.rank == 0
        else None
    )
    mine = chainermn.scatter_dataset(data, mn, shuffle=True, seed=0)
    assert len(mine) == 5
    every = mn.gather_obj([int(t) for _, t in mine])
    if mn.rank == 0:
        assert sorted(every[0] + every[1]) == list(range(10))


def check_multi_node_batch_normalization_matches_one_process_on_the_union(comm):
    mn = chainermn.create_communicator("naive")
    rng = numpy.random.RandomState(0)
    both = rng.randn(2, 4, 3, 2).astype(numpy.float64)  # each rank's batch of 4
    gamma = rng.rand(3) + 0.5
    mnbn = chainermn.links.MultiNodeBatchNormalization(3, mn, dtype=numpy.float64)
    bn = L.BatchNormalization(3, dtype=numpy.float64)
    for link in (mnbn, bn):
        link.gamma.array[...] = gamma
    x = chainer.Variable(both[mn.rank])
    y = mnbn(x)
    union = chainer.Variable(both.reshape(8, 3, 2))
    expected = bn(union)
    numpy.testing.assert_allclose(
        y.array, expected.array[4 * mn.rank : 4 * mn.rank + 4], rtol=1e-10, atol=1e-12
    )
    numpy.testing.assert_allclose(mnbn.avg_mean, bn.avg_mean, rtol=1e-10)
    numpy.testing.assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-10)
    weights = numpy.arange(48.0).reshape(2, 4, 3, 2)
    F.sum(y * weights[mn.rank]).backward()
    F.sum(expected * weights.reshape(8, 3, 2)).backward()
    numpy.testing.assert_allclose(x.grad, union.grad[4 * mn.rank : 4 * mn.rank + 4], rtol=1e-9, atol=1e-10)
    copied = mnbn.copy(mode="copy")  # shares the communicator, copies the rest
    assert copied.comm is mn and copied.avg_mean is not mnbn.avg_mean
    converted = chainermn.links.create_mnbn_model(chainer.Sequential(L.BatchNormalization(3)), mn)
    assert isinstance(converted[0], chainermn.links.MultiNodeBatchNormalization)


def check_multi_node_chain_list_splits_a_model(comm):
    mn = chainermn.create_communicator("naive")

    class Part(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(2, 2, initialW=numpy.eye(2, dtype=numpy.float32) * 2)

        def forward(self, x):
            return self.l(x)

    model = chainermn.MultiNodeChainList(mn)
    if mn.rank == 0:  # 0 -> 1 -> 0: the output comes back here
        model.add_link(Part(), rank_in=None, rank_out=1)
        model.add_link(Part(), rank_in=1, rank_out=None)
        x = chainer.Variable(numpy.ones((1, 2), numpy.float32))
        y = model(x)
        numpy.testing.assert_array_equal(y.array, [[8.0, 8.0]])  # three doublings
        F.sum(y).backward()
        numpy.testing.assert_array_equal(x.grad, [[8.0, 8.0]])
    else:
        model.add_link(Part(), rank_in=0, rank_out=0)
        model().backward()
        assert model[0].l.W.grad is not None


def check_iterators(comm):
    mn = chainermn.create_communicator("naive")
    data = [numpy.float32(i) for i in range(6)]
    it = chainermn.iterators.create_multi_node_iterator(
        chainer.iterators.SerialIterator(data, 2, repeat=False, shuffle=True), mn
    )
    seen = [[float(v) for v in batch] for batch in it]
    every = comm.allgather_obj(seen)
    assert every[0] == every[1] and len(seen) == 3
    synced = chainermn.iterators.create_synchronized_iterator(chainer.iterators.SerialIterator(data, 3), mn)
    first = [float(v) for v in synced.next()]
    every = comm.allgather_obj(first)
    assert every[0] == every[1]


def check_observation_aggregator_and_allreduce_persistent(comm):
    mn = chainermn.create_communicator("naive")
    aggregator = chainermn.extensions.ObservationAggregator(
        mn, "loss", "loss_mean", comm_trigger=lambda trainer: True
    )

    class _Trainer:
        observation = {"loss": numpy.float64(mn.rank * 2.0)}

    trainer = _Trainer()
    aggregator(trainer)
    assert float(trainer.observation["loss_mean"]) == 1.0
    bn = L.BatchNormalization(2)
    bn.avg_mean[...] = mn.rank
    chainermn.extensions.AllreducePersistent(bn, mn)()
    numpy.testing.assert_array_equal(bn.avg_mean, [0.5, 0.5])


def check_chainerx_models_in_multi_node_batch_normalization_and_allreduce_persistent(comm):
    mn = chainermn.create_communicator("naive")
    bn = chainermn.links.MultiNodeBatchNormalization(2, mn)
    bn.to_device("native:0")
    x = chainerx.array(numpy.full((3, 2), mn.rank, numpy.float32))  # the union's mean is 0.5
    y = bn(x)
    assert isinstance(y.array, chainerx.ndarray)
    assert isinstance(bn.avg_mean, chainerx.ndarray)
    numpy.testing.assert_allclose(chainerx.to_numpy(bn.avg_mean), [0.05, 0.05], rtol=1e-6)  # decay 0.9
    bn.avg_var.fill(mn.rank * 2.0)
    chainermn.extensions.AllreducePersistent(bn, mn)()
    numpy.testing.assert_array_equal(chainerx.to_numpy(bn.avg_var), [1.0, 1.0])


def check_configurations(comm):
    made = chainermn.create_communicator("naive")
    assert made.batched_copy and made.get_config("batched_copy")
    direct = chainermn.communicators.NaiveCommunicator(None)
    assert direct.batched_copy is False
    direct.set_config("batched_copy")
    assert direct.get_config() == {"batched_copy": True}
    with direct.config_scope():
        direct.extra = 3
    direct.outside = 4
    assert direct.get_config("extra") == 3 and "outside" not in direct.get_config()
