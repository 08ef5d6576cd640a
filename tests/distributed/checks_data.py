"""Checks of fnet.distributed.data, run on 3 ranks (shards of uneven length)."""

import numpy

from fnet.distributed import create_empty_dataset, scatter_dataset, scatter_index, shard_bounds


def check_equal_length_shards_cover_everything(comm):
    data = [(numpy.float32(i), i) for i in range(10)] if comm.rank == 0 else None
    mine = scatter_dataset(data, comm)
    assert len(mine) == 4  # ceil(10 / 3) on every rank
    every = comm.allgather_obj([int(label) for _, label in mine])
    assert sorted(set(sum(every, []))) == list(range(10))


def check_disjoint_shards_without_force_equal_length(comm):
    data = list(range(10)) if comm.rank == 2 else None
    mine = scatter_dataset(data, comm, root=2, force_equal_length=False)
    every = comm.allgather_obj(mine)
    assert [len(s) for s in every] == [4, 3, 3]
    assert sorted(sum(every, [])) == list(range(10))


def check_a_seed_fixes_the_shuffle(comm):
    data = list(range(20)) if comm.rank == 0 else None
    first = scatter_dataset(data, comm, shuffle=True, seed=7)
    again = scatter_dataset(data, comm, shuffle=True, seed=7)
    assert first == again
    order = numpy.random.RandomState(7).permutation(20)
    b, e = shard_bounds(20, 3)[comm.rank]
    assert first == [int(i) for i in order[b:e]]


def check_scatter_index(comm):
    assert scatter_index(10 if comm.rank == 0 else None, comm) == shard_bounds(10, 3)[comm.rank]
    assert scatter_index(10, comm, force_equal_length=False) == [(0, 4), (4, 7), (7, 10)][comm.rank]


def check_create_empty_dataset(comm):
    assert create_empty_dataset(list(range(5))) == [()] * 5
