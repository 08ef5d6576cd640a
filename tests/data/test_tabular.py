"""The tabular dataset API: TabularDataset's views, from_data, DelegateDataset."""

from __future__ import annotations

import numpy
import pytest

from fnet.data import DelegateDataset, TabularDataset, from_data, tabular


class Table(TabularDataset):
    """Rows ``i`` of columns a = i, b = 10 i, c = 100 i, in mode tuple (or ``mode``)."""

    def __init__(self, n=5, mode=tuple):
        self.n = n
        self._mode = mode
        self.calls = []

    def __len__(self):
        return self.n

    @property
    def keys(self):
        return ("a", "b", "c")

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        data = numpy.arange(self.n)[:, None] * numpy.array([1, 10, 100])
        if indices is not None:
            data = data[indices]
        if key_indices is not None:
            data = data[:, list(key_indices)]
        return tuple(data.T)


def rows(dataset):
    """Every example, with array scalars as ints."""

    def plain(example):
        if isinstance(example, tuple):
            return tuple(int(v) for v in example)
        if isinstance(example, dict):
            return {k: int(v) for k, v in example.items()}
        return int(example)

    return [plain(ex) for ex in dataset]


def test_modes_and_access():
    table = Table(3)
    assert len(table) == 3 and table.keys == ("a", "b", "c")
    assert rows(table) == [(0, 0, 0), (1, 10, 100), (2, 20, 200)]
    assert rows(table.asdict())[1] == {"a": 1, "b": 10, "c": 100}
    assert table.asdict().astuple().mode is tuple
    assert [tuple(map(int, ex)) for ex in table[1:]] == [(1, 10, 100), (2, 20, 200)]
    assert [int(v) for v in table.fetch()[2]] == [0, 100, 200]
    assert sorted(table.asdict().fetch()) == ["a", "b", "c"]


def test_slice_rows_and_keys():
    table = Table(5)
    view = table.slice[[3, -1], ("c", 0)]
    assert len(view) == 2 and view.keys == ("c", "a") and view.mode is tuple
    assert rows(view) == [(300, 3), (400, 4)]
    assert rows(table.slice[1:4, "b"]) == [10, 20, 30]
    assert table.slice[:, 1].mode is None
    assert rows(table.slice[[True, False, True, False, False]]) == [(0, 0, 0), (2, 20, 200)]
    assert rows(table.slice[numpy.array([4, 2])].slice[::-1, ("a",)]) == [(2,), (4,)]
    assert len(table.slice[[]]) == 0
    assert rows(table.asdict().slice[2:, ("b",)]) == [{"b": 20}, {"b": 30}, {"b": 40}]


def test_nested_slices_compose_into_one_read():
    table = Table(10)
    view = table.slice[::-1].slice[2:8:2].slice[1:]
    assert rows(view) == [(5, 50, 500), (3, 30, 300)]
    table.calls.clear()
    view.fetch()
    [(indices, key_indices)] = table.calls  # one read, by a slice
    assert isinstance(indices, slice) and list(range(10))[indices] == [5, 3] and key_indices is None
    assert len(table.slice[::-1].slice[20:]) == 0
    assert rows(table.slice[::-1].slice[20:]) == []
    assert rows(table.slice[[1, 5, 7]].slice[1:]) == [(5, 50, 500), (7, 70, 700)]
    assert rows(table.slice[2:].slice[[0, 2]]) == [(2, 20, 200), (4, 40, 400)]


def test_slice_errors():
    table = Table(3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dataset with size 3"):
        table.slice[[3]]
    with pytest.raises(ValueError, match="got 2 booleans for a dataset of length 3"):
        table.slice[[True, False]]
    with pytest.raises(KeyError, match="'d' does not exist"):
        table.slice[:, ("d",)]
    with pytest.raises(IndexError, match="index -4 is out of bounds for keys with size 3"):
        table.slice[:, -4]
    with pytest.raises(TypeError, match="keys must be a tuple, a str or an int, got list"):
        table.slice[:, ["a"]]
    with pytest.raises(TypeError, match="rows must be a slice or a list"):
        table.slice[1]


def test_concat():
    first, second = Table(3), Table(2).slice[::-1]
    both = first.concat(second, Table(0))
    assert len(both) == 5 and both.keys == ("a", "b", "c")
    assert rows(both) == [(0, 0, 0), (1, 10, 100), (2, 20, 200), (1, 10, 100), (0, 0, 0)]
    assert rows(both.slice[::-2, ("c",)]) == [(0,), (200,), (0,)]
    assert rows(both.slice[[4, 0, 3]]) == [(0, 0, 0), (0, 0, 0), (1, 10, 100)]
    columns = both.fetch()
    assert isinstance(columns[0], list) and [int(v) for v in columns[0]] == [0, 1, 2, 1, 0]
    only_first = both.slice[1:3].fetch()  # rows of one dataset: its own columns come back
    assert isinstance(only_first[0], numpy.ndarray)
    with pytest.raises(ValueError, match="all datasets must have the same keys"):
        first.concat(first.slice[:, ("a",)])


@pytest.mark.parametrize(
    ("rows_asked", "first_asked", "second_asked"),
    [
        (slice(1, 9, 3), slice(1, 9, 3), None),  # 1, 4, 7 | none of the second
        (slice(13, 6, -2), slice(9, 6, -2), slice(3, None, -2)),  # 13, 11 | 9, 7
        (slice(None, None, -4), slice(6, None, -4), slice(4, None, -4)),  # 14, 10 | 6, 2
        (slice(10, 15), None, slice(0, 5, 1)),  # the second dataset only
    ],
)
def test_concat_asks_each_dataset_for_its_part_of_a_slice_as_a_slice(rows_asked, first_asked, second_asked):
    first, second = Table(10), Table(5)
    both = first.concat(second)
    got = both.get_examples(rows_asked, None)
    numpy.testing.assert_array_equal(
        numpy.asarray(got, int)[0], numpy.r_[numpy.arange(10), numpy.arange(5)][rows_asked]
    )
    asked = [[call[0] for call in table.calls] for table in (first, second)]
    assert asked == [[] if part is None else [part] for part in (first_asked, second_asked)]


def test_join():
    left = Table(3)
    right = from_data((("d", [7, 8, 9]), ("e", numpy.array([1.5, 2.5, 3.5]))))
    joined = left.join(right)
    assert joined.keys == ("a", "b", "c", "d", "e") and joined.mode is tuple
    assert joined[2] == (2, 20, 200, 9, 3.5)
    assert rows(joined.slice[:2, ("e", "a", "d", "a")]) == [(1, 0, 7, 0), (2, 1, 8, 1)]
    assert from_data([1, 2, 3]).join(from_data({"x": [4, 5, 6]})).mode is dict
    assert from_data([1, 2]).join(from_data([3, 4])).mode is tuple
    with pytest.raises(ValueError, match="all datasets must have the same length, got 3 and 2"):
        left.join(from_data(("d", [1, 2])))
    with pytest.raises(ValueError, match=r"all keys must be unique among all datasets; \['a'\] repeat"):
        left.join(from_data(("a", [1, 2, 3])))


def test_transform():
    table = Table(3)
    sums = table.transform(("sum", "a"), lambda a, b, c: (a + b + c, a))
    assert sums.keys == ("sum", "a") and sums.mode is tuple
    assert rows(sums) == [(0, 0), (111, 1), (222, 2)]
    by_name = table.asdict().transform("twice", lambda a, b, c: {"twice": 2 * b})
    assert by_name.mode is dict and rows(by_name) == [{"twice": 0}, {"twice": 20}, {"twice": 40}]
    single = table.slice[:, "c"].transform("half", lambda c: c // 2)
    assert single.mode is None and rows(single) == [0, 50, 100]
    assert rows(sums.slice[[2], ("a",)]) == [(2,)]
    flaky = table.transform("x", lambda a, b, c: a if a else (a,))
    with pytest.raises(ValueError, match="transform must not change its return type"):
        flaky.fetch()


def test_transform_batch():
    table = Table(4)
    scaled = table.transform_batch(("a", "s"), lambda a, b, c: (a, a * 2 + c))
    assert rows(scaled.slice[1:3]) == [(1, 102), (2, 204)]
    assert scaled.mode is tuple
    as_dict = table.asdict().transform_batch(("t",), lambda a, b, c: {"t": b - a})
    assert as_dict.mode is dict and [int(v) for v in as_dict.fetch()["t"]] == [0, 9, 18, 27]
    shrink = table.transform_batch("x", lambda a, b, c: a[:1])
    with pytest.raises(
        ValueError, match=r"must not change the length of data: 4 rows in, columns of lengths \[1\]"
    ):
        shrink.fetch()


def test_convert_and_with_converter():
    table = Table(2)
    converted = table.convert(table.fetch())
    assert all(isinstance(column, numpy.ndarray) for column in converted)
    listed = from_data({"x": [1, 2], "y": [3.0, 4.0]})
    arrays = listed.convert(listed.fetch())
    assert arrays["y"].dtype == numpy.float64 and list(arrays["x"]) == [1, 2]
    assert list(from_data([5, 6]).convert([5, 6])) == [5, 6]
    custom = table.with_converter(lambda a, b, c: int(a.sum() + b.sum() + c.sum()))
    assert custom.convert(custom.fetch()) == 111
    assert custom.slice[:1].convert(custom.slice[:1].fetch()) == 0  # views keep the converter
    assert custom.asdict().with_converter(lambda **kw: sorted(kw)).convert({"a": 1, "b": 2}) == ["a", "b"]
    assert table.concat(table).with_converter(len).slice[:, "a"].convert([1, 2, 3]) == 3


def test_from_data_forms():
    assert from_data(numpy.arange(3)).mode is None
    named = from_data(("x", [4, 5]))
    assert named.keys == ("x",) and named[1] == 5
    pairs = from_data(((("p", "q"), lambda i: (i, -i)), ("r", [7, 8, 9])))
    assert pairs.keys == ("p", "q", "r") and pairs[2] == (2, -2, 9)
    anonymous = from_data(([1, 2], numpy.array([3, 4])))
    assert len(anonymous.keys) == 2 and anonymous[0] == (1, 3)
    calls = from_data({"sq": lambda i: i * i, "x": [0, 1, 2, 3]})
    assert calls[3] == {"sq": 9, "x": 3}
    with pytest.raises(ValueError, match="size must be specified for callable"):
        from_data(("f", lambda i: i))
    with pytest.raises(ValueError, match="key\\(s\\) must be specified for callable"):
        from_data((lambda i: i, [1, 2]))
    with pytest.raises(TypeError, match="a column must be a list, an array or a function"):
        from_data("text")


def test_delegate_dataset():
    class Squares(DelegateDataset):
        def __init__(self, n):
            super().__init__(from_data((("x", numpy.arange(n)), ("y", self.square))))

        def square(self, i):
            return i * i

    ds = Squares(4)
    assert len(ds) == 4 and ds.keys == ("x", "y") and ds.mode is tuple
    assert rows(ds) == [(0, 0), (1, 1), (2, 4), (3, 9)]
    assert isinstance(ds.dataset, TabularDataset)
    assert tabular.DelegateDataset is DelegateDataset


def test_abstract_members_name_the_class():
    class Empty(TabularDataset):
        pass

    with pytest.raises(NotImplementedError, match="Empty must define the property keys"):
        _ = Empty().keys
    with pytest.raises(NotImplementedError, match=r"Empty must define get_examples\(indices, key_indices\)"):
        Empty().get_examples(None, None)
