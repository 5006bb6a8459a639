"""Exercise checks of notebook 05 (the notebook is being written)."""

__all__: list = []
