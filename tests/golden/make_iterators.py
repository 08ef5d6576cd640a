"""Golden data for the iterators and converters, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``iterators.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_iterators.py

``iterator_runs(iterators)`` records, step by step, the batches and the position
(``epoch``, ``epoch_detail``, ``previous_epoch_detail``, ``is_new_epoch``,
``current_position``) of ``SerialIterator``, ``MultithreadIterator`` and
``MultiprocessIterator`` on small datasets with fixed ``ShuffleOrderSampler``s (the same for
the three in Chainer, so they are stored once), and what their ``serialize`` saves and how they
go on after loading it (also from a snapshot of an older Chainer, without
``previous_epoch_detail``). ``convert_cases(convert)`` records the arrays
``concat_examples`` makes (dtype, shape, values) or the error it raises, ``to_device`` and the
``converter`` decorator. The tests call both with fnet's modules and compare with the JSON.
"""

from __future__ import annotations

import json
import pathlib

import numpy

OUT = pathlib.Path(__file__).with_name("iterators.json")
KINDS = ("SerialIterator", "MultithreadIterator", "MultiprocessIterator")


def _plain(value):
    """``value`` with arrays and NumPy scalars made lists and Python numbers (for JSON)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (numpy.ndarray, numpy.generic)):
        return value.tolist()
    return value


class Saver:
    """A serializer that keeps the values in a dict."""

    def __init__(self):
        self.target = {}

    def __call__(self, key, value):
        self.target[key] = value.copy() if isinstance(value, numpy.ndarray) else value
        return value


class Loader:
    """A deserializer reading a dict as Chainer's do: arrays are filled in place, a missing key
    raises KeyError."""

    def __init__(self, target):
        self.target = target

    def __call__(self, key, value):
        saved = self.target[key]
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, saved)
            return value
        if value is None or saved is None:
            return saved
        return type(value)(saved)


def _position(it) -> dict:
    return {
        "epoch": it.epoch,
        "epoch_detail": it.epoch_detail,
        "previous_epoch_detail": it.previous_epoch_detail,
        "is_new_epoch": bool(it.is_new_epoch),
        "current_position": int(it.current_position),
    }


def _steps(it, n: int) -> list:
    """``n`` calls of ``next``: each batch (or "stop") and the position after it."""
    steps = []
    for _ in range(n):
        try:
            batch = _plain(next(it))
        except StopIteration:
            batch = "stop"
        steps.append({"batch": batch, **_position(it)})
    return steps


def _make(iterators, kind: str, size: int, batch_size: int, *, repeat=True, seed=None):
    """An iterator over ``range(size)``: shuffled by a seeded sampler, or in order if ``seed`` is None."""
    cls = getattr(iterators, kind)
    extra = {"n_processes": 2} if kind == "MultiprocessIterator" else {}
    if seed is None:
        return cls(list(range(size)), batch_size, repeat=repeat, shuffle=False, **extra)
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(seed))
    return cls(list(range(size)), batch_size, repeat=repeat, order_sampler=sampler, **extra)


# name: (dataset size, batch size, repeat, seed of the order sampler or None for shuffle=False, steps)
SEQUENCES = {
    "shuffled": (10, 3, True, 0, 12),
    "ordered_wrapping": (5, 2, True, None, 7),
    "ordered_once": (7, 3, False, None, 5),
    "shuffled_once": (7, 3, False, 1, 5),
    "exact_once": (6, 3, False, None, 4),
    "batch_over_dataset": (3, 7, True, 2, 4),
    "exact_epochs": (6, 3, True, 3, 6),
}


def _serialized(iterators, kind: str) -> dict:
    """What ``serialize`` saves after 4 batches, and how an iterator goes on from it."""
    out = {}
    orders = {"shuffled": 0} if kind == "MultiprocessIterator" else {"shuffled": 0, "ordered": None}
    for name, seed in orders.items():
        it = _make(iterators, kind, 10, 3, seed=seed)
        _steps(it, 4)
        saver = Saver()
        it.serialize(saver)
        it.finalize()
        # fnet also saves the order sampler's random state, under a key of its own that Chainer's
        # loaders ignore; left out here, the resumed iterator goes on with its own sampler, as
        # Chainer's does (tests/data/test_iterators.py checks fnet's exact resume)
        saved = {key: value for key, value in saver.target.items() if key != "order_sampler_state"}
        out[name] = {key: _plain(value) for key, value in saved.items()}
        other = _make(iterators, kind, 10, 3, seed=None if seed is None else 7)
        next(other)
        other.serialize(Loader(saved))
        out[name + "_resumed"] = {"start": _position(other), "steps": _steps(other, 5)}
        other.finalize()
        if seed is not None and kind != "MultithreadIterator":
            # a snapshot of Chainer v2: the order under "_order", no previous_epoch_detail (Chainer's
            # MultithreadIterator raises KeyError for it, fnet's infers it as the other iterators do)
            old = dict(saved)
            old["_order"] = old.pop("order")
            old.pop("previous_epoch_detail")
            other = _make(iterators, kind, 10, 3, seed=7)
            other.serialize(Loader(old))
            out[name + "_from_v2"] = {"start": _position(other), "steps": _steps(other, 2)}
            other.finalize()
    return out


def iterator_runs(iterators) -> dict:
    """Per iterator class: the step sequences, and serialization (saved entries, then steps)."""
    sequences, serialized = {}, {}
    for kind in KINDS:
        sequences[kind] = {}
        for name, (size, batch_size, repeat, seed, n) in SEQUENCES.items():
            it = _make(iterators, kind, size, batch_size, repeat=repeat, seed=seed)
            sequences[kind][name] = {"start": _position(it), "steps": _steps(it, n)}
            it.finalize()
        serialized[kind] = _serialized(iterators, kind)
    return {"sequences": sequences, "serialized": serialized}


def _described(result):
    if isinstance(result, tuple):
        return {"tuple": [_described(r) for r in result]}
    if isinstance(result, dict):
        return {"dict": {k: _described(v) for k, v in result.items()}}
    return {"dtype": str(result.dtype), "shape": list(result.shape), "values": result.tolist()}


def convert_cases(convert) -> dict:
    """What ``concat_examples`` gives for each case (or the type of the error it raises), and
    what ``to_device`` and converters made by ``converter()`` see and give."""
    a = numpy.array
    cases = {
        "tuples": ([(a([1, 2]), 1), (a([3, 4]), 2), (a([5, 6]), 3)], None),
        "tuples_float32": ([(a([1, 2], "f"), a(0, "i")), (a([3, 4], "f"), a(1, "i"))], None),
        "padding_scalar": ([(a([1, 2]), 0), (a([3]), 1), (a([], "l"), 2)], 100),
        "padding_tuple": ([(a([1, 2]), a([0])), (a([3]), a([], "l")), (a([], "l"), a([2]))], (100, 200)),
        "dicts": ([{"feature": a([1, 2]), "label": 0}, {"feature": a([3, 4]), "label": 1}], None),
        "dicts_padding_dict": ([{"x": a([1.5]), "y": 0}, {"x": a([2.0, 3.0]), "y": 1}], {"x": -1, "y": 9}),
        "dicts_padding_scalar": ([{"x": a([1, 2, 3]), "y": a([4])}, {"x": a([5]), "y": a([6, 7])}], 0),
        "arrays": ([a([1.0, 2.0]), a([3.0, 4.0]), a([5.0, 6.0])], None),
        "python_floats": ([1.0, 2.5, -3.0], None),
        "python_ints": ([1, 2, 3], None),
        "numpy_scalars": ([numpy.float32(1.5), numpy.float32(2.5)], None),
        "zero_dim": ([a(1, "i"), a(2, "i"), a(3, "i")], None),
        "zero_dim_padding": ([a(1.5, "f"), a(2.5, "f")], 0),
        "lists": ([[1, 2], [3, 4]], None),
        "mixed_dtypes": ([a([1, 2], "i"), a([0.5, 1.5], "f")], None),
        "padding_first_dtype": ([a([1, 2]), a([0.5, 1.5, 2.5])], -1),
        "padding_2d": ([a([[1, 2], [3, 4]]), a([[5], [6], [7]])], 0),
        "padding_uint8": ([a([1, 2], "B"), a([3], "B")], 0),
        "bools": ([a([True, False]), a([False, True])], None),
        "tuple_of_scalars": ([(1, 2.0), (3, 4.5)], None),
        "empty_batch": ([], None),
        "shape_mismatch": ([a([1, 2]), a([3])], None),
        "tuple_shape_mismatch": ([(a([1, 2]), 0), (a([3]), 1)], None),
    }
    out = {}
    for name, (batch, padding) in cases.items():
        try:
            out[name] = _described(convert.concat_examples(batch, padding=padding))
        except Exception as error:  # the error's type is the golden value
            out[name] = {"error": type(error).__name__}
    x = a([1.0, 2.0])
    out["with_device"] = _described(convert.concat_examples([(x, 1), (x, 2)], -1))
    out["with_device_string"] = _described(convert.concat_examples([(x, 1), (x, 2)], "@numpy"))
    sent = convert.to_device(-1, [x, None, x])
    out["to_device_list"] = {
        "type": type(sent).__name__,
        "none": sent[1] is None,
        "same": sent[0] is sent[2],
        "kept": sent[0] is x,
    }
    out["to_device_scalars"] = {
        name: {"type": type(r).__name__, "value": _plain(r), "dtype": str(getattr(r, "dtype", None))}
        for name, value in {"float": 3.0, "int": 2, "float32": numpy.float32(1.5)}.items()
        for r in [convert.to_device(-1, value)]
    }
    out["to_device_none"] = _plain(convert.to_device(None, 3.0))

    seen = []

    @convert.converter()
    def record(batch, device):
        seen.append(None if device is None else str(device))
        return batch

    for spec in (-1, "@numpy", None):
        record([1], spec)
    record([1], device=-1)
    out["converter_devices"] = seen
    out["converter_is_converter"] = isinstance(record, convert.Converter)
    old_style = []
    cpu = convert._get_device("@numpy")
    convert._call_converter(lambda batch, device: old_style.append(device), [1], cpu)
    convert._call_converter(lambda batch, device: old_style.append(device), [1], None)
    convert._call_converter(record, [1], cpu)
    out["call_converter_old_style"] = old_style
    out["call_converter_new_style"] = seen[-1]
    return out


def main() -> None:
    import chainer.dataset.convert
    import chainer.iterators

    runs = json.loads(json.dumps(iterator_runs(chainer.iterators)))
    sequences = runs["sequences"]
    assert all(sequences[kind] == sequences["SerialIterator"] for kind in KINDS)  # stored once
    golden = {
        "iterators": {"sequences": sequences["SerialIterator"], "serialized": runs["serialized"]},
        "convert": convert_cases(chainer.dataset.convert),
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()
