"""``chainermn.datasets``: a dataset scattered from one rank, and the empty dataset."""

from . import empty_dataset, scatter
from .empty_dataset import create_empty_dataset
from .scatter import DataSizeError, scatter_dataset, scatter_index

__all__ = [
    "empty_dataset",
    "scatter",
    "DataSizeError",
    "create_empty_dataset",
    "scatter_dataset",
    "scatter_index",
]
