"""The course's tests, laid out like what they test:
helpers/, notebooks/, tools/, benchmarks/, docs/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The project's folder: every test finds files from here."""
