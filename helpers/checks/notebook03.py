"""Exercise checks of notebook 03 (the notebook is being written)."""

__all__: list = []
