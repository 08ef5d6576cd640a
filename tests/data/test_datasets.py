"""The general datasets: DatasetMixin, TupleDataset, DictDataset, ConcatenatedDataset,
SubDataset and the splits, TransformDataset; and the "Chainer at a Glance" use."""

from __future__ import annotations

import os

import numpy
import pytest

from fnet.data import (
    ConcatenatedDataset,
    DatasetMixin,
    DictDataset,
    SubDataset,
    TransformDataset,
    TupleDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)

MUSHROOMS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "mushrooms.csv")


class Range(DatasetMixin):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def get_example(self, i):
        if not -self.n <= i < self.n:
            raise IndexError(i)
        return int(i) % self.n * 10


def test_dataset_mixin_indexing():
    ds = Range(6)
    assert ds[2] == 20
    assert ds[numpy.int64(3)] == 30
    assert ds[1:5:2] == [10, 30]
    assert ds[::-2] == [50, 30, 10]
    assert ds[[4, 0]] == [40, 0]
    assert ds[numpy.arange(3)] == [0, 10, 20]
    with pytest.raises(IndexError):
        ds[6]


def test_dataset_mixin_abstract_methods_name_the_class():
    class Incomplete(DatasetMixin):
        pass

    with pytest.raises(NotImplementedError, match="Incomplete must define __len__"):
        len(Incomplete())
    with pytest.raises(NotImplementedError, match=r"Incomplete must define get_example\(i\)"):
        Incomplete()[0]


def test_tuple_dataset():
    x = numpy.arange(12).reshape(4, 3)
    ds = TupleDataset(x, [8, 0, 5, 1])
    assert len(ds) == 4
    first = ds[0]
    assert isinstance(first, tuple) and first[1] == 8
    numpy.testing.assert_array_equal(first[0], [0, 1, 2])
    batch = ds[1:3]
    assert isinstance(batch, list) and [b[1] for b in batch] == [0, 5]
    numpy.testing.assert_array_equal(batch[1][0], [6, 7, 8])
    fancy = TupleDataset(x, numpy.array([8, 0, 5, 1]))[[3, 0]]  # passed to each dataset, as in Chainer
    assert isinstance(fancy, tuple)
    numpy.testing.assert_array_equal(fancy[1], [1, 8])


def test_tuple_dataset_errors():
    with pytest.raises(ValueError, match="no datasets are given"):
        TupleDataset()
    with pytest.raises(ValueError, match="dataset of index 1 has length 2 while the first has length 3"):
        TupleDataset([1, 2, 3], [1, 2])


def test_dict_dataset():
    ds = DictDataset(x=numpy.arange(3), y=["a", "b", "c"])
    assert len(ds) == 3
    assert ds[2] == {"x": 2, "y": "c"}
    assert ds[::2] == [{"x": 0, "y": "a"}, {"x": 2, "y": "c"}]
    with pytest.raises(ValueError, match="no datasets are given"):
        DictDataset()
    with pytest.raises(ValueError, match="'y' has length 1 while 'x' has length 3"):
        DictDataset(x=[1, 2, 3], y=[1])


def test_concatenated_dataset():
    ds = ConcatenatedDataset([0, 1], [], numpy.array([2, 3, 4]))
    assert len(ds) == 5
    assert [ds[i] for i in range(5)] == [0, 1, 2, 3, 4]
    assert ds[3:] == [3, 4]
    assert ds[-2:] == [3, 4]
    with pytest.raises(IndexError, match="negative index -1"):  # Chainer refuses negative indices
        ds[-1]
    with pytest.raises(IndexError, match="index 5 is out of range for length 5"):
        ds[5]
    assert len(ConcatenatedDataset()) == 0


def test_sub_dataset():
    base = list("abcdef")
    sub = SubDataset(base, 1, 4)
    assert len(sub) == 3 and sub[:] == ["b", "c", "d"] and sub[-1] == "d"
    sub = SubDataset(base, 1, 4, order=[5, 4, 3, 2, 1, 0])
    assert sub[:] == ["e", "d", "c"] and sub[-3] == "e"
    with pytest.raises(IndexError):
        sub[3]
    with pytest.raises(IndexError):
        sub[-4]
    with pytest.raises(ValueError, match=r"subset \[2, 7\) overruns the base dataset of length 6"):
        SubDataset(base, 2, 7)
    with pytest.raises(ValueError, match="len\\(order\\) = 2 while len\\(dataset\\) = 6"):
        SubDataset(base, 0, 2, order=[0, 1])


def test_split_dataset():
    first, second = split_dataset(list(range(5)), 2, order=[4, 3, 2, 1, 0])
    assert first[:] == [4, 3] and second[:] == [2, 1, 0]
    first, second = split_dataset(list(range(5)), numpy.int64(5))
    assert len(first) == 5 and len(second) == 0
    with pytest.raises(TypeError, match="split_at must be int, got float"):
        split_dataset([1, 2], 1.0)
    with pytest.raises(ValueError, match="split_at must be non-negative"):
        split_dataset([1, 2], -1)
    with pytest.raises(ValueError, match=r"split_at \(3\) exceeds the dataset size \(2\)"):
        split_dataset([1, 2], 3)


def test_random_splits_use_chainers_permutation():
    data = list(range(20))
    order = numpy.random.RandomState(7).permutation(20)
    first, second = split_dataset_random(data, 6, seed=7)
    assert first[:] == list(order[:6]) and second[:] == list(order[6:])
    parts = split_dataset_n_random(data, 3, seed=7)
    assert [part[:] for part in parts] == [list(order[0:6]), list(order[6:12]), list(order[12:18])]
    unseeded, _ = split_dataset_random(data, 10)
    assert len(unseeded) == 10


def test_split_dataset_n():
    parts = split_dataset_n(list(range(10)), 3, order=list(range(9, -1, -1)))
    assert [part[:] for part in parts] == [[9, 8, 7], [6, 5, 4], [3, 2, 1]]
    with pytest.raises(TypeError, match="split_dataset_n: n must be a positive int, got int 0"):
        split_dataset_n([1], 0)


def test_cross_validation():
    folds = get_cross_validation_datasets(list(range(7)), 3)
    assert [(train[:], test[:]) for train, test in folds] == [
        ([0, 1, 2, 3], [4, 5, 6]),
        ([4, 5, 6, 0, 1], [2, 3]),
        ([2, 3, 4, 5, 6], [0, 1]),
    ]
    tests = sorted(x for _, test in folds for x in test[:])
    assert tests == list(range(7))
    order = numpy.random.RandomState(1).permutation(7)
    random_folds = get_cross_validation_datasets_random(list(range(7)), 3, seed=1)
    expected = get_cross_validation_datasets(list(range(7)), 3, order=order)
    assert [(a[:], b[:]) for a, b in random_folds] == [(a[:], b[:]) for a, b in expected]


def test_cross_validation_arguments():
    with pytest.warns(DeprecationWarning, match="n_fold is deprecated"):
        folds = get_cross_validation_datasets(list(range(4)), n_fold=2)
    assert len(folds) == 2
    with pytest.warns(DeprecationWarning):
        assert len(get_cross_validation_datasets_random(list(range(4)), None, n_fold=4, seed=0)) == 4
    with pytest.raises(TypeError, match="n_folds must be a positive int, got NoneType"):
        get_cross_validation_datasets(list(range(4)))
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['folds'\]"):
        get_cross_validation_datasets(list(range(4)), folds=2)


def test_transform_dataset():
    ds = TransformDataset(TupleDataset(numpy.arange(4.0), [0, 1, 0, 1]), lambda ex: (ex[0] - 0.5, ex[1]))
    assert len(ds) == 4
    assert ds[1] == (0.5, 1)
    assert [ex[0] for ex in ds[2:]] == [1.5, 2.5]
    with pytest.raises(TypeError, match="expected transform to be callable, got int"):
        TransformDataset([1], 3)


@pytest.mark.skipif(not os.path.exists(MUSHROOMS), reason="needs ../shared/data/mushrooms.csv")
def test_chainer_at_a_glance_dataset():
    data_array = numpy.genfromtxt(MUSHROOMS, delimiter=",", dtype=str, skip_header=1)
    for col in range(data_array.shape[1]):
        data_array[:, col] = numpy.unique(data_array[:, col], return_inverse=True)[1]
    X = data_array[:, 1:].astype(numpy.float32)
    Y = data_array[:, 0].astype(numpy.int32)[:, None]
    train, test = split_dataset_random(TupleDataset(X, Y), int(data_array.shape[0] * 0.7))
    assert len(train) == int(len(X) * 0.7) and len(train) + len(test) == len(X) == 8124
    x, y = train[0]
    assert x.shape == (22,) and x.dtype == numpy.float32 and y.shape == (1,) and y.dtype == numpy.int32
    seen = {tuple(ex[0]) + tuple(ex[1]) for ex in train[:] + test[:]}
    assert seen == {tuple(a) + tuple(b) for a, b in zip(X, Y)}
