"""Exercise checks of notebook 06 (the notebook is being written)."""

__all__: list = []
