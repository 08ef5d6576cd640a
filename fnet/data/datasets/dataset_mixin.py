"""``DatasetMixin``: integer, slice and index-list access for datasets that define ``get_example``."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["DatasetMixin"]


class DatasetMixin:
    """Base of datasets that read one example at a time: a subclass defines ``__len__`` and
    ``get_example(i)``, and gets ``dataset[i]``, ``dataset[start:stop:step]`` and
    ``dataset[[i, j, ...]]`` (a list or a 1-d integer array), the last two as lists.

    >>> class Squares(DatasetMixin):
    ...     def __len__(self):
    ...         return 5
    ...     def get_example(self, i):
    ...         return i * i
    >>> ds = Squares()
    >>> ds[3], ds[1:4], ds[[4, 0]]
    (9, [1, 4, 9], [16, 0])
    """

    def __getitem__(self, index) -> Any:
        """The example at ``index`` (an int), or a list of examples (a slice, a list, an array)."""
        if isinstance(index, slice):
            return [self.get_example(i) for i in range(*index.indices(len(self)))]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in index]
        return self.get_example(index)

    def __len__(self) -> int:
        """The number of examples: each dataset class defines it."""
        raise NotImplementedError(
            f"{type(self).__name__} must define __len__ (DatasetMixin leaves it to each dataset)"
        )

    def get_example(self, i: int) -> Any:
        """The ``i``-th example: each dataset class defines it, raising IndexError past the end."""
        raise NotImplementedError(
            f"{type(self).__name__} must define get_example(i) (DatasetMixin leaves it to each dataset)"
        )
