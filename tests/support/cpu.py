"""TensorFlow's oneDNN setting the other way round from this CPU's default, for the runs of
`make test` that check the course on the other rounding (tests/nbval_plugin.py, the Makefile).

TensorFlow 2.15 turns oneDNN on by default only on CPUs with AVX-512 VNNI, AVX-512 bf16, AVX-VNNI
or AMX (most Intel CPUs since 2019) and leaves it off on the others (AMD's, older Intel ones);
`TF_ENABLE_ONEDNN_OPTS` overrides the default. The two round differently: float32 softmax of a
logit 40 above the rest gives 1.0 with oneDNN and 0.99999994 without, on the same machine. So a
test or a compared output green on one kind of CPU can be red on the other, and a run with the
setting flipped shows it on the machine at hand.

`python -m tests.support.cpu` prints the flipped value (0 or 1), for the Makefile.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

ONEDNN_ENV = "TF_ENABLE_ONEDNN_OPTS"


@functools.lru_cache(maxsize=None)
def onednn_flipped() -> str:
    """``"0"`` where TensorFlow turns oneDNN on by default on this CPU, else ``"1"`` (asked of
    TensorFlow in a process of its own, without ``TF_ENABLE_ONEDNN_OPTS``)."""
    env = {name: value for name, value in os.environ.items() if name != ONEDNN_ENV}
    code = "from tensorflow.python.util import _pywrap_util_port as p; print(p.IsMklEnabled())"
    found = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(env, TF_CPP_MIN_LOG_LEVEL="3"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return "0" if found[-1] == "True" else "1"


if __name__ == "__main__":
    print(onednn_flipped())
