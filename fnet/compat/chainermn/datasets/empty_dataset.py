"""``chainermn.datasets.empty_dataset``: examples with nothing in them."""

from ....distributed.data import create_empty_dataset

__all__ = ["create_empty_dataset"]
