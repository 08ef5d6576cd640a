"""``chainer.dataset.tabular``: helpers to build tabular datasets (fnet.data.datasets.tabular)."""

from ...data.datasets.tabular import DelegateDataset, from_data

__all__ = ["DelegateDataset", "from_data"]
