"""crf1d (being written)."""

__all__: list[str] = []
