"""Tests of the dataset iterators: batches and positions against Chainer 7.8.1
(``tests/golden/make_iterators.py``), serialization, and the worker processes of
``MultiprocessIterator`` (same batches as ``SerialIterator``, errors, crashes, shutdown)."""

from __future__ import annotations

import copy
import json
import multiprocessing
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy
import pytest

import fnet.compat.iterators
from fnet.compat import serializers
from fnet.data import iterators
from fnet.data.iterator import Iterator
from fnet.data.iterators import (
    MultiprocessIterator,
    MultithreadIterator,
    OrderSampler,
    SerialIterator,
    ShuffleOrderSampler,
)

from .._scripts import GOLDEN, load_golden

ROOT = pathlib.Path(__file__).resolve().parents[2]
KINDS = ("SerialIterator", "MultithreadIterator", "MultiprocessIterator")
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="reads process states from /proc")


@pytest.fixture(scope="module")
def golden():
    module = load_golden("make_iterators")
    got = json.loads(json.dumps(module.iterator_runs(iterators)))
    return got, json.loads((GOLDEN / "iterators.json").read_text())["iterators"]


# Datasets at module level, so that the spawn start method can pickle them to the workers.


class Examples:
    """Example ``i`` is ``(float32 array of i's, int i, dict with an int8 image)``; some indices
    raise, sleep or end the worker process."""

    def __init__(self, n, *, fail=(), sleep=None, seconds=0.0, crash_once=None):
        self.n = n
        self.fail = set(fail)
        self.sleep = sleep
        self.seconds = seconds
        self.crash_once = crash_once  # (index, marker path): os._exit(3) the first time only

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i in self.fail:
            raise ValueError(f"example {i} is broken")
        if i == self.sleep:
            time.sleep(self.seconds)
        if self.crash_once is not None and i == self.crash_once[0] and not os.path.exists(self.crash_once[1]):
            open(self.crash_once[1], "w").close()
            os._exit(3)
        return (numpy.full(3, i, numpy.float32), int(i), {"image": numpy.full((2, 2), i % 128, numpy.int8)})


class Unpicklable(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} {b}")


class RaisesUnpicklable:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise Unpicklable(1, 2)
        return i


def assert_same_batch(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if isinstance(e, tuple):
            assert type(g) is tuple and g[1] == e[1] and type(g[1]) is int
            numpy.testing.assert_array_equal(g[0], e[0])
            assert g[0].dtype == e[0].dtype
            numpy.testing.assert_array_equal(g[2]["image"], e[2]["image"])
            assert g[2]["image"].dtype == numpy.int8
        else:
            assert g == e


def positions(it):
    return (it.epoch, it.epoch_detail, it.previous_epoch_detail, it.is_new_epoch, it.current_position)


def seeded(seed=0):
    return ShuffleOrderSampler(numpy.random.RandomState(seed))


def worker_pids():
    return {p.pid for p in multiprocessing.active_children() if p.name == "MultiprocessIterator-worker"}


def gone(pid):
    """Whether process ``pid`` has ended (a zombie that nobody reaps counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(condition, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def run_script(code, timeout=60, **kwargs):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


# --- against Chainer ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_batches_and_positions_match_chainer(golden, kind):
    got, expected = golden
    assert got["sequences"][kind] == expected["sequences"]


@pytest.mark.parametrize("kind", KINDS)
def test_serialization_matches_chainer(golden, kind):
    got, expected = golden
    expected = copy.deepcopy(expected["serialized"][kind])
    if kind == "MultithreadIterator":
        # Chainer's saves "_order": None for an iterator without order; fnet's skips it as the
        # other iterators do (fnet's save_npz never writes None, and loading a file with it works)
        assert expected["ordered"].pop("_order") is None
    assert got["serialized"][kind] == expected


def test_compat_reexports():
    for name in fnet.compat.iterators.__all__:
        assert getattr(fnet.compat.iterators, name) is getattr(iterators, name)


# --- the Iterator interface and SerialIterator --------------------------------------------------


def test_iterator_base_protocol():
    finalized = []

    class Countdown(Iterator):
        def __init__(self, n):
            self.n = n

        def __next__(self):
            if not self.n:
                raise StopIteration
            self.n -= 1
            return [self.n]

        def finalize(self):
            finalized.append(True)

    it = Countdown(2)
    assert iter(it) is it and it.next() == [1]
    assert it.serialize(lambda key, value: value) is None
    with it:
        assert list(it) == [[0]]
    assert finalized == [True]
    del it
    assert finalized == [True, True]  # garbage collection finalizes too
    with pytest.raises(TypeError):
        Iterator()  # __next__ is abstract
    with pytest.raises(TypeError):
        OrderSampler()


def test_serial_iterator_defaults_to_shuffling():
    numpy.random.seed(3)
    expected = numpy.random.permutation(10).tolist()
    numpy.random.seed(3)
    it = SerialIterator(list(range(10)), 10)
    assert isinstance(it.order_sampler, ShuffleOrderSampler) and it.repeat
    assert next(it) == expected
    assert SerialIterator(list(range(4)), 2, shuffle=False).order_sampler is None
    assert isinstance(SerialIterator(list(range(4)), 2, shuffle=True).order_sampler, ShuffleOrderSampler)


def test_serial_iterator_one_epoch_and_reset():
    it = SerialIterator(list(range(7)), 3, repeat=False, shuffle=False)
    assert list(it) == [[0, 1, 2], [3, 4, 5], [6]]
    assert positions(it) == (1, 1.0, 1.0, True, 0)
    it.reset()
    assert positions(it) == (0, 0.0, None, False, 0)
    assert list(it) == [[0, 1, 2], [3, 4, 5], [6]]


def test_a_batch_at_the_epoch_end_is_filled_from_the_next_order():
    it = SerialIterator(list(range(5)), 3, order_sampler=seeded(5))
    rng = numpy.random.RandomState(5)
    first, second = rng.permutation(5), rng.permutation(5)
    assert next(it) == first[:3].tolist()
    batch = next(it)
    assert batch == first[3:].tolist() + second[:1].tolist()
    assert (it.epoch, it.is_new_epoch, it.current_position) == (1, True, 1)
    assert it.epoch_detail == pytest.approx(1.2) and it.previous_epoch_detail == pytest.approx(0.6)


def test_examples_are_indexed_as_chainer_does():
    seen = []

    class Recording:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            seen.append(type(i))
            return i

    next(SerialIterator(Recording(), 2, shuffle=False))
    assert seen == [numpy.intp, numpy.intp]  # NumPy integers, as in Chainer


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="shuffle=True and an order_sampler"):
        SerialIterator(list(range(3)), 1, shuffle=True, order_sampler=seeded())
    with pytest.raises(TypeError, match="dataset must support len"):
        SerialIterator(iter(range(3)), 1)
    with pytest.raises(TypeError, match="batch_size must be an int, got float"):
        SerialIterator(list(range(3)), 2.0)
    with pytest.raises(ValueError, match="batch_size must be positive, got 0"):
        SerialIterator(list(range(3)), 0)
    with pytest.raises(TypeError, match="order_sampler must be callable"):
        SerialIterator(list(range(3)), 1, order_sampler=[2, 1, 0])
    with pytest.raises(TypeError, match="random_state must be a numpy.random.RandomState"):
        ShuffleOrderSampler(0)
    with pytest.raises(ValueError, match="epoch size is 0"):
        next(SerialIterator([], 2))
    with pytest.raises(ValueError, match="n_threads must be a positive int"):
        MultithreadIterator(list(range(3)), 1, n_threads=0)
    for bad in ({"n_processes": -1}, {"n_prefetch": 1.5}, {"shared_mem": -2}, {"maxtasksperchild": 0}):
        with pytest.raises(ValueError, match=f"{next(iter(bad))} must be an int"):
            MultiprocessIterator(list(range(3)), 1, **bad)
    with pytest.raises(ValueError, match="dataset_timeout must be a positive number"):
        MultiprocessIterator(list(range(3)), 1, dataset_timeout=0)


def test_an_empty_dataset_that_does_not_repeat_gives_one_empty_batch():
    it = SerialIterator([], 2, repeat=False)
    assert next(it) == [] and it.epoch == 1 and it.epoch_detail == 1.0
    with pytest.raises(StopIteration):
        next(it)


def test_an_order_sampler_must_keep_the_epoch_size():
    class Growing(OrderSampler):
        def __call__(self, current_order, current_position):
            return numpy.arange(len(current_order) + 1)

    it = SerialIterator(list(range(3)), 2, order_sampler=Growing())
    next(it)
    with pytest.raises(ValueError, match="order of length 5 for an epoch of length 4"):
        next(it)


def test_shuffle_order_sampler_takes_a_generator():
    sampler = ShuffleOrderSampler(numpy.random.default_rng(0))
    assert sorted(sampler(numpy.arange(6), 0).tolist()) == list(range(6))


@pytest.mark.parametrize("kind", KINDS)
def test_npz_round_trip_keeps_chainer_keys(tmp_path, kind):
    cls = getattr(iterators, kind)
    it = cls(list(range(10)), 3, order_sampler=seeded(0))
    for _ in range(4):
        next(it)
    serializers.save_npz(tmp_path / "it.npz", it)
    with numpy.load(tmp_path / "it.npz") as npz:
        order_key = "_order" if kind == "MultithreadIterator" else "order"
        assert sorted(npz.files) == sorted(
            [
                "current_position",
                "epoch",
                "is_new_epoch",
                order_key,
                "previous_epoch_detail",
                "order_sampler_state",
            ]
        )
    resumed = cls(list(range(10)), 3, order_sampler=seeded(0))
    serializers.load_npz(tmp_path / "it.npz", resumed)
    assert positions(resumed) == positions(it)
    expected = SerialIterator(list(range(10)), 3, order_sampler=seeded(0))
    serializers.load_npz(tmp_path / "it.npz", expected)
    for _ in range(5):
        assert next(resumed) == next(expected)
    it.finalize()
    resumed.finalize()


def _make_iterator(kind, sampler, size=10, batch_size=3):
    cls = getattr(iterators, kind)
    extra = {"n_processes": 2, "n_prefetch": 2} if kind == "MultiprocessIterator" else {}
    return cls(list(range(size)), batch_size, order_sampler=sampler, **extra)


def _snapshot(it) -> dict:
    saver = serializers.DictionarySerializer()
    it.serialize(saver)
    return {key: numpy.array(value, copy=True) for key, value in saver.target.items()}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("at", [1, 2, 3, 4, 6, 7])
def test_a_resumed_iterator_gives_the_batches_of_an_uninterrupted_one(kind, at):
    """Resumed with a sampler seeded otherwise, the iterator goes on with the saved random state,
    also when it had loaded batches of the next epoch ahead (at 3, 6: the next batch crosses it)."""
    with _make_iterator(kind, seeded(0)) as it:
        for _ in range(at):
            next(it)
        snapshot = _snapshot(it)
        expected = [next(it) for _ in range(12)]
    with _make_iterator(kind, seeded(99)) as resumed:
        serializers.NpzDeserializer(snapshot).load(resumed)
        assert [next(resumed) for _ in range(12)] == expected


@pytest.mark.parametrize("kind", KINDS)
def test_taking_a_snapshot_does_not_change_the_batches(kind):
    with _make_iterator(kind, seeded(0)) as it:
        plain = [next(it) for _ in range(15)]
    with _make_iterator(kind, seeded(0)) as it:
        snapshotted = []
        for _ in range(15):
            snapshotted.append(next(it))
            _snapshot(it)
    assert snapshotted == plain


def test_resuming_restores_numpys_global_random_state_of_the_snapshot():
    """With the default sampler (NumPy's global generator, which Chainer code also draws dropout
    masks from), a resumed run draws what an uninterrupted one draws."""
    numpy.random.seed(0)
    with SerialIterator(list(range(10)), 3) as it:
        for _ in range(4):
            next(it), numpy.random.standard_normal()
        snapshot = _snapshot(it)
        expected = [(next(it), numpy.random.standard_normal()) for _ in range(8)]
    numpy.random.seed(1)
    with SerialIterator(list(range(10)), 3) as resumed:
        serializers.NpzDeserializer(snapshot).load(resumed)
        assert [(next(resumed), numpy.random.standard_normal()) for _ in range(8)] == expected


def test_a_snapshot_without_the_sampler_state_leaves_the_sampler_as_it_is():
    with SerialIterator(list(range(10)), 3, order_sampler=seeded(0)) as it:
        next(it)
        snapshot = _snapshot(it)
    del snapshot["order_sampler_state"]  # as Chainer saves it
    with SerialIterator(list(range(10)), 3, order_sampler=seeded(5)) as resumed:
        serializers.NpzDeserializer(snapshot).load(resumed)
        assert resumed.current_position == 3 and resumed._state.order.tolist() == it._state.order.tolist()
        for _ in range(3):
            next(resumed)  # into the next epoch
    replica = seeded(5)
    replica(numpy.arange(10), 0)  # the order drawn when the resumed iterator was made
    assert resumed._state.order.tolist() == replica(numpy.arange(10), 0).tolist()


def test_a_sampler_state_of_another_generator_is_refused():
    with pytest.raises(ValueError, match="a state of 3 bytes was given to a MT19937 generator"):
        seeded(5).state = numpy.zeros(3, numpy.uint8)
    with pytest.raises(TypeError, match="the state of a Chooser cannot be set"):

        class Chooser:
            def permutation(self, n):
                return numpy.arange(n)

        sampler = ShuffleOrderSampler(Chooser())
        assert sampler.state is None
        sampler.state = numpy.zeros(3, numpy.uint8)


def test_multithread_loads_chainers_snapshot_without_order(tmp_path):
    # Chainer's MultithreadIterator pickles None as "_order" when it visits the examples in order
    saved = {"current_position": 6, "epoch": 0, "is_new_epoch": False, "previous_epoch_detail": 0.3}
    numpy.savez(tmp_path / "chainer.npz", _order=numpy.asarray(None), **saved)
    it = MultithreadIterator(list(range(10)), 3, shuffle=False)
    serializers.load_npz(tmp_path / "chainer.npz", it)
    assert positions(it) == (0, 0.6, 0.3, False, 6) and next(it) == [6, 7, 8]
    it.finalize()


# --- MultithreadIterator ------------------------------------------------------------------------


def test_multithread_errors_are_raised_and_skip_their_batch():
    with MultithreadIterator(Examples(12, fail={4}), 3, shuffle=False, n_threads=2) as it:
        assert [e[1] for e in next(it)] == [0, 1, 2]
        with pytest.raises(ValueError, match="example 4 is broken"):
            next(it)
        assert [e[1] for e in next(it)] == [6, 7, 8] and it.current_position == 9
    assert it._pool is None
    assert [e[1] for e in next(it)] == [9, 10, 11]  # new threads after finalize
    it.finalize()


# --- MultiprocessIterator -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"shared_mem": None},
        {"shared_mem": 0},
        {"shared_mem": 64, "n_prefetch": 3},
        {"shared_mem": 8},  # too small for the examples' arrays: pickled, with a warning
        {"shared_mem": None, "maxtasksperchild": 2},
    ],
)
def test_multiprocess_gives_the_batches_of_serial(options):
    dataset = Examples(23)
    serial = SerialIterator(dataset, 5, order_sampler=seeded(0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with MultiprocessIterator(dataset, 5, order_sampler=seeded(0), n_processes=2, **options) as it:
            for _ in range(14):
                assert_same_batch(next(it), next(serial))
                assert positions(it) == positions(serial)
    small = [w for w in caught if "shared memory" in str(w.message)]
    assert bool(small) == (options["shared_mem"] == 8)
    if small:
        assert "pass shared_mem=12 (or more)" in str(small[0].message)


def test_multiprocess_one_epoch_then_reset_keeps_its_workers():
    with MultiprocessIterator(Examples(10), 4, repeat=False, shuffle=False, n_processes=2) as it:
        for _ in range(2):
            assert [[e[1] for e in batch] for batch in it] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
            pids = worker_pids()
            it.reset()
        assert worker_pids() == pids


def test_multiprocess_reset_after_finalize_is_refused_as_in_chainer():
    it = MultiprocessIterator(list(range(4)), 2, repeat=False, shuffle=False, n_processes=1)
    assert next(it) == [0, 1]
    it.finalize()
    with pytest.raises(NotImplementedError, match="make a new MultiprocessIterator"):
        it.reset()
    assert next(it) == [2, 3]  # batches still come: next starts new workers
    it.finalize()


def test_multiprocess_worker_error_surfaces_within_a_second():
    # dataset[6] raises while dataset[5], in the same batch, is still loading: no waiting for it
    dataset = Examples(32, fail={6}, sleep=5, seconds=1.5)
    serial = SerialIterator(Examples(32), 8, shuffle=False)
    with MultiprocessIterator(dataset, 8, shuffle=False, n_processes=2, shared_mem=64) as it:
        started = time.monotonic()
        with pytest.raises(ValueError, match="example 6 is broken") as raised:
            next(it)
        assert time.monotonic() - started < 1.0
        assert "raised in a MultiprocessIterator worker while loading dataset[6]" in raised.value.__notes__[0]
        assert "in __getitem__" in raised.value.__notes__[0]  # the worker's traceback
        assert positions(it) == (0, 0.25, 0.0, False, 8)  # moved past the batch, as SerialIterator does
        next(serial)
        for _ in range(3):  # the rest of the epoch (the next one has dataset[6] again)
            assert_same_batch(next(it), next(serial))


def test_multiprocess_unpicklable_error_becomes_runtime_error():
    with MultiprocessIterator(RaisesUnpicklable(), 4, shuffle=False, n_processes=2, shared_mem=0) as it:
        next(it)
        with pytest.raises(RuntimeError, match=r"(?s)could not be pickled.*Unpicklable: 1 2"):
            next(it)


class GivesLambdas:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return (lambda: i) if i == 6 else i


def test_multiprocess_examples_that_cannot_be_pickled_fail_their_batch():
    with MultiprocessIterator(GivesLambdas(), 4, shuffle=False, n_processes=2, shared_mem=0) as it:
        assert next(it) == [0, 1, 2, 3]
        with pytest.raises(Exception, match="lambda") as raised:
            next(it)
        assert "while sending its examples to the main process" in raised.value.__notes__[0]
        assert next(it) == [0, 1, 2, 3]


def test_multiprocess_error_in_the_measured_first_batch():
    with MultiprocessIterator(Examples(8, fail={1}), 4, shuffle=False, n_processes=2) as it:
        with pytest.raises(ValueError, match="example 1 is broken"):
            next(it)
        assert it.current_position == 4 and [e[1] for e in next(it)] == [4, 5, 6, 7]


def test_multiprocess_worker_crash_raises_then_restarts(tmp_path):
    dataset = Examples(24, crash_once=(9, str(tmp_path / "crashed")))
    with MultiprocessIterator(dataset, 4, shuffle=False, n_processes=2, shared_mem=64) as it:
        assert [e[1] for e in next(it)] == [0, 1, 2, 3]
        started = time.monotonic()
        with pytest.raises(RuntimeError, match="worker process [0-9]+ exited with code 3"):
            for _ in range(3):
                next(it)
        assert time.monotonic() - started < 1.0
        before = it.current_position
        assert [e[1] for e in next(it)] == list(range(before, before + 4))


@linux_only
def test_multiprocess_finalize_stops_stalled_workers():
    it = MultiprocessIterator(
        Examples(64, sleep=6, seconds=60), 4, shuffle=False, n_processes=2, shared_mem=0
    )
    next(it)
    pids = worker_pids()
    assert len(pids) == 2
    started = time.monotonic()
    it.finalize()
    it.finalize()
    assert time.monotonic() - started < 3.0
    assert not worker_pids() and all(gone(pid) for pid in pids)


def test_multiprocess_timeout_warning():
    for shared_mem in (None, 0):  # the first batch loaded here, or by the workers
        dataset = Examples(8, sleep=1, seconds=0.5)
        with MultiprocessIterator(
            dataset, 4, shuffle=False, n_processes=2, shared_mem=shared_mem, dataset_timeout=0.2
        ) as it:
            with pytest.warns(MultiprocessIterator.TimeoutWarning, match="seems stalled"):
                next(it)


def test_multiprocess_reset_while_loading_restarts_workers():
    serial = SerialIterator(Examples(30), 4, shuffle=False)
    with MultiprocessIterator(Examples(30), 4, shuffle=False, n_processes=2, n_prefetch=2) as it:
        for _ in range(3):
            assert_same_batch(next(it), next(serial))
        it.reset()
        serial.reset()
        for _ in range(9):
            assert_same_batch(next(it), next(serial))
            assert positions(it) == positions(serial)


def test_multiprocess_copy_and_pickle():
    with MultiprocessIterator(Examples(20), 3, shuffle=False, n_processes=2) as it:
        next(it)
        twin = copy.copy(it)
        assert twin._workers is None and positions(twin) == positions(it)
        for _ in range(3):
            assert_same_batch(next(twin), next(it))
        twin.finalize()


@linux_only
def test_multiprocess_workers_stop_at_exit_and_when_the_parent_dies():
    code = """
        import multiprocessing, sys, time
        from tests.data.test_iterators import Examples
        from fnet.data.iterators import MultiprocessIterator
        dataset = Examples(64, sleep=6, seconds=60)
        it = MultiprocessIterator(dataset, 4, shuffle=False, n_processes=2, shared_mem=0)
        next(it)
        print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
        if sys.argv[-1] == "hang":
            time.sleep(60)
    """
    done = run_script(code, timeout=30, input="")  # exits without finalize while a worker is stalled
    assert done.returncode == 0, done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 2 and wait_until(lambda: all(gone(pid) for pid in pids), 5)

    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), "hang"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        pids = [int(pid) for pid in process.stdout.readline().split()]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert len(pids) == 2 and wait_until(lambda: all(gone(pid) for pid in pids), 5)
    finally:
        process.kill()
        process.stdout.close()


@pytest.mark.slow
def test_multiprocess_under_spawn():
    code = """
        import multiprocessing, time, numpy
        from numpy.random import RandomState
        from tests.data.test_iterators import Examples, assert_same_batch
        from fnet.data.iterators import MultiprocessIterator, SerialIterator, ShuffleOrderSampler
        if __name__ == "__main__":
            multiprocessing.set_start_method("spawn")
            dataset = Examples(40)
            serial = SerialIterator(dataset, 6, order_sampler=ShuffleOrderSampler(RandomState(0)))
            sampler = ShuffleOrderSampler(RandomState(0))
            with MultiprocessIterator(dataset, 6, order_sampler=sampler, n_processes=2, shared_mem=64) as it:
                for _ in range(5):
                    assert_same_batch(next(it), next(serial))
            it = MultiprocessIterator(Examples(40, fail={33}), 6, shuffle=False, n_processes=2)
            try:
                for _ in range(7):
                    next(it)
            except ValueError as error:
                print("raised", error)
            it.finalize()
            unpicklable = MultiprocessIterator([lambda: 0] * 8, 2, n_processes=2, shared_mem=0)
            try:
                next(unpicklable)
            except TypeError as error:
                print(str(error).splitlines()[1])
    """
    done = run_script(code, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "raised example 33 is broken" in done.stdout
    assert "the start method 'spawn' pickles the dataset" in done.stdout
