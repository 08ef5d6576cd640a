"""``DelegateDataset``: a TabularDataset that shows another one, to subclass for custom datasets."""

from __future__ import annotations

from .tabular_dataset import TabularDataset

__all__ = ["DelegateDataset"]


class DelegateDataset(TabularDataset):
    """Shows the rows, keys and mode of ``dataset`` (kept as the attribute ``dataset``); a
    subclass builds its table in ``__init__`` and adds its own methods.

    >>> from fnet.data.datasets.tabular import from_data
    >>> class Squares(DelegateDataset):
    ...     def __init__(self, n):
    ...         super().__init__(from_data((('x', list(range(n))), ('y', self.square)), size=n))
    ...     def square(self, i):
    ...         return i * i
    >>> ds = Squares(4)
    >>> len(ds), ds.keys, ds[3]
    (4, ('x', 'y'), (3, 9))
    """

    def __init__(self, dataset: TabularDataset):
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def keys(self):
        return self.dataset.keys

    @property
    def mode(self):
        return self.dataset.mode

    def get_examples(self, indices, key_indices):
        return self.dataset.get_examples(indices, key_indices)
