"""Exercise checks of notebook 07 (the notebook is being written)."""

__all__: list = []
