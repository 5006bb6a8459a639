"""TensorFlow's log without its noise: the one place that sets log levels and filters records.

Introduced in notebook 00 (through ``course_setup.start``). On TF 2.15 one ``train`` call logs ~13
deprecation warnings on the ``tensorflow`` logger, the logger that also carries
``loss = …, step = …`` and every hook's output, so a level would hide both: ``NoiseFilter`` drops
the deprecations and the ``Using config`` dump and makes project paths relative. ``logger_level``
sets a level for a block; ``captured_log`` collects a block's lines (notebooks 01, 04, 05, 07).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import warnings
from collections.abc import Iterable, Iterator

from .paths import PROJECT_ROOT

DEPRECATION = re.compile(r"is deprecated( and will be removed|\. Please use)")
DROPPED_PREFIXES = ("Using config: ",)


def quiet_native_logs() -> None:
    """Silence TensorFlow's C++ logging; must run before ``import tensorflow``."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


class NoiseFilter(logging.Filter):
    """Drop deprecation and config-dump records; make project paths relative."""

    def __init__(self, root=PROJECT_ROOT):
        super().__init__("workbook-noise")
        self.root = str(root)
        # The root as a whole path: not when it is the start of a sibling's name.
        self.root_pattern = re.compile(
            r"(?<![\w./])" + re.escape(self.root) + r"(?=[/\\]|$|[^\w.-])"
        )

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: let logging report it as usual
            return True
        if DEPRECATION.search(message) or message.startswith(DROPPED_PREFIXES):
            return False
        if self.root_pattern.search(message):
            cwd = os.getcwd()
            if cwd == self.root or cwd.startswith(self.root + os.sep):
                relative_root = os.path.relpath(self.root, cwd)
            else:
                relative_root = "<course>"
            record.msg = self.root_pattern.sub(lambda _: relative_root, message)
            record.args = None
        return True


def install_noise_filter(logger: logging.Logger) -> NoiseFilter:
    """Put one ``NoiseFilter`` on TensorFlow's logger (idempotent); set it to INFO."""
    for existing in logger.filters:
        if isinstance(existing, NoiseFilter):
            return existing
    noise_filter = NoiseFilter()
    logger.addFilter(noise_filter)
    logger.setLevel(logging.INFO)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", message=r".*is deprecated.*", category=UserWarning)
    return noise_filter


@contextlib.contextmanager
def logger_level(level: int | str, name: str = "tensorflow") -> Iterator[None]:
    """Inside the block, the logger ``name`` passes only ``level`` and above; restored after."""
    logger = logging.getLogger(name)
    before = logger.level
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.setLevel(before)


@contextlib.contextmanager
def captured_log(show: Iterable[str] | None = None) -> Iterator[list[str]]:
    """Yield a list that fills with every line TensorFlow logs in the block; show all of them, or
    with ``show`` only those starting with one of its prefixes (a cell can assert on lines it
    hides)."""
    prefixes = None if show is None else tuple(show)
    lines = []

    class _Collect(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            message = record.getMessage()
            lines.append(message)
            return prefixes is None or message.startswith(prefixes)

    logger = logging.getLogger("tensorflow")  # the logger tf.get_logger() returns
    collect = _Collect()
    logger.addFilter(collect)
    try:
        yield lines
    finally:
        logger.removeFilter(collect)
