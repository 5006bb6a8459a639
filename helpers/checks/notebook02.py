"""Exercise checks of notebook 02 (the notebook is being written)."""

__all__: list = []
