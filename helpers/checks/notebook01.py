"""Exercise checks of notebook 01 (the notebook is being written)."""

__all__: list = []
