"""Exercise checks of notebook 04 (the notebook is being written)."""

__all__: list = []
