"""Tabular datasets: rows with named columns, read in column-wise batches (Chainer's
``chainer.dataset.tabular``)."""

from .delegate_dataset import DelegateDataset
from .from_data import from_data
from .tabular_dataset import TabularDataset

__all__ = ["TabularDataset", "DelegateDataset", "from_data"]
