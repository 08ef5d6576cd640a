"""sampled_loss (being written)."""

__all__: list[str] = []
