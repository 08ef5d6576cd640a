"""Checks of fnet.distributed.checkpoint, run on 2 ranks."""

import os
import tempfile

import numpy
import pytest

import fnet
from fnet import optim
from fnet.distributed import checkpoint
from fnet.errors import CheckpointError


def _folder(comm):
    """A fresh folder that only rank 0 knows of (the others never look into it)."""
    return comm.bcast_obj(tempfile.mkdtemp() if comm.rank == 0 else None)


def check_only_roots_tree_is_written_and_complete_on_return(comm):
    path = os.path.join(_folder(comm), "run.ckpt")
    tree = {"W": numpy.full((2, 3), 7.0, numpy.float32)} if comm.rank == 0 else None  # ignored off root
    checkpoint.save(comm, path, tree)
    if comm.rank == 0:
        assert fnet.io.load(path)["W"].shape == (2, 3)
        assert [n for n in os.listdir(os.path.dirname(path)) if n != "run.ckpt"] == []  # no temporaries
    numpy.testing.assert_array_equal(checkpoint.load(comm, path)["W"], numpy.full((2, 3), 7.0))


def check_loaded_tree_has_likes_structure(comm):
    path = os.path.join(_folder(comm), "run.ckpt")
    params = {"W": numpy.full((2, 3), 7.0, numpy.float32)}
    state = optim.Adam().init(params)
    checkpoint.save(comm, path, {"params": params, "state": state, "epoch": 3})
    like = {
        "params": {"W": numpy.zeros((2, 3), numpy.float32)},
        "state": optim.Adam().init(params),
        "epoch": 0,
    }
    got = checkpoint.load(comm, path, like)
    numpy.testing.assert_array_equal(got["params"]["W"], params["W"])
    assert type(got["state"]) is type(state) and got["epoch"] == 3


def check_an_error_on_root_is_raised_on_every_rank(comm):
    missing = os.path.join(_folder(comm), "absent.ckpt")
    with pytest.raises(CheckpointError, match="on rank 0: CheckpointError"):
        checkpoint.load(comm, missing)
    with pytest.raises(CheckpointError, match="on rank 0"):
        checkpoint.save(comm, os.path.join(missing, "no", "such", "folder.ckpt"), {"a": numpy.zeros(1)})
