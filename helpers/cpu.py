"""What this computer's CPU offers bfloat16 (notebook 11): its flags, oneDNN's cap, matmul rates.

``read_flags`` is notebook 11's ``#@save`` cell (the block at the end, written by ``make lib``).

bfloat16 is fast on a CPU only where oneDNN, TensorFlow's CPU kernel library, has instructions for
it: ``avx512_bf16`` (Intel Cooper Lake and Sapphire Rapids Xeons and later, AMD Zen 4 and later)
or ``amx_bf16`` (Intel Sapphire Rapids and later). Elsewhere it is emulated, slower than float32.
Linux lists the flags in ``/proc/cpuinfo``; oneDNN uses none above the ISA named by the environment
variable ``ONEDNN_MAX_CPU_ISA`` (how the course simulates a CPU without bfloat16), and none at all
when ``TF_ENABLE_ONEDNN_OPTS=0``.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .language import _, all_of, listed
from .problems import UsageProblem

# the flags with bfloat16 arithmetic, and the lowest oneDNN ISA that uses each
BF16_FLAGS = {"avx512_bf16": "AVX512_CORE_BF16", "amx_bf16": "AVX512_CORE_AMX"}
# oneDNN's CPU ISA names (ONEDNN_MAX_CPU_ISA), lowest first; ALL or DEFAULT is no cap
ONEDNN_ISAS = (
    "SSE41",
    "AVX",
    "AVX2",
    "AVX2_VNNI",
    "AVX2_VNNI_2",
    "AVX512_CORE",
    "AVX512_CORE_VNNI",
    "AVX512_CORE_BF16",
    "AVX512_CORE_FP16",
    "AVX512_CORE_AMX",
    "AVX512_CORE_AMX_FP16",
)
ONEDNN_ALIASES = {
    "AVX10_1_512": "AVX512_CORE_FP16",
    "AVX10_1_512_AMX": "AVX512_CORE_AMX",
    "AVX10_1_512_AMX_FP16": "AVX512_CORE_AMX_FP16",
}
NO_CAP = ("", "ALL", "DEFAULT")


def onednn_cap(environ: Mapping[str, str] = os.environ) -> str | None:
    """The ISA ``ONEDNN_MAX_CPU_ISA`` (or its old name ``DNNL_MAX_CPU_ISA``) caps oneDNN at, in
    oneDNN's own spelling; None when it is not set or set to ALL."""
    value = environ.get("ONEDNN_MAX_CPU_ISA", environ.get("DNNL_MAX_CPU_ISA", ""))
    value = value.strip().upper()
    if value in NO_CAP:
        return None
    value = ONEDNN_ALIASES.get(value, value)
    if value not in ONEDNN_ISAS:
        raise UsageProblem(
            _(
                "ONEDNN_MAX_CPU_ISA={value} is not one of oneDNN's ISA names ({names}): correct "
                "it or unset it"
            ).format(value=value, names=listed(ONEDNN_ISAS))
        )
    return value


def _allows(cap: str | None, isa: str) -> bool:
    return cap is None or ONEDNN_ISAS.index(cap) >= ONEDNN_ISAS.index(isa)


@dataclass(frozen=True)
class Bf16Support:
    """What this machine offers bfloat16: the flags found (None: unreadable), oneDNN's cap and
    whether oneDNN is on at all."""

    flags: frozenset | None
    cap: str | None = None
    onednn: bool = True
    system: str = "Linux"

    @property
    def found(self) -> tuple:
        """The bfloat16 flags the CPU has, in ``BF16_FLAGS``'s order."""
        return tuple(flag for flag in BF16_FLAGS if self.flags and flag in self.flags)

    @property
    def usable(self) -> tuple:
        """The bfloat16 flags oneDNN may use here: the CPU has them and nothing turns them off."""
        if not self.onednn:
            return ()
        return tuple(flag for flag in self.found if _allows(self.cap, BF16_FLAGS[flag]))

    @property
    def native(self) -> bool:
        """True when bfloat16 runs on the CPU's own instructions, so it can be faster."""
        return bool(self.usable)

    def summary(self) -> str:
        """One sentence: what was found, and what it means for bfloat16."""
        found, usable = all_of(self.found), all_of(self.usable)
        if self.flags is None:
            return _(
                "the CPU's flags cannot be read on {system} (the course reads them from "
                "/proc/cpuinfo on Linux): bfloat16 is taken as not native, and float32 is used"
            ).format(system=self.system)
        if not self.found:
            return _(
                "this CPU has neither avx512_bf16 nor amx_bf16: bfloat16 would be emulated, "
                "slower than float32; it needs an Intel Xeon of the Cooper Lake or Sapphire "
                "Rapids generation or later, or an AMD Zen 4 or later"
            )
        if not self.onednn:
            return _(
                "this CPU has {found}, but TF_ENABLE_ONEDNN_OPTS=0 turns oneDNN off: bfloat16 "
                "would run on slower kernels than float32; unset it to use them"
            ).format(found=found)
        if not self.usable:
            return _(
                "this CPU has {found}, but ONEDNN_MAX_CPU_ISA={cap} keeps oneDNN below them, and "
                "TensorFlow 2.15 would still hand it bfloat16, which ends the process: the course "
                "runs no bfloat16 here; unset it to use them"
            ).format(found=found, cap=self.cap)
        return _(
            "this CPU has {found}, and oneDNN may use {usable}: bfloat16 runs natively"
        ).format(found=found, usable=usable)


def bf16_support(
    flags: frozenset | None | str = "read", environ: Mapping[str, str] = os.environ
) -> Bf16Support:
    """This machine's ``Bf16Support`` (``flags`` given: another CPU's, for tests)."""
    return Bf16Support(
        flags=read_flags() if flags == "read" else flags,
        cap=onednn_cap(environ),
        onednn=environ.get("TF_ENABLE_ONEDNN_OPTS", "1").strip() != "0",
        system=platform.system(),
    )


def usable_cores() -> tuple:
    """The cores this process may run on (all of them where the system cannot say)."""
    if hasattr(os, "sched_getaffinity"):
        return tuple(sorted(os.sched_getaffinity(0)))
    return tuple(range(os.cpu_count() or 1))  # pragma: no cover (macOS, Windows)


def matmul_gflops(
    dtype: str = "float32",
    size: int = 2048,
    repeats: int = 5,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The best rate of ``repeats`` products of two ``size``² matrices of ``dtype``, in GFLOP/s
    (2·size³ operations each), after one untimed product: what the CPU's matrix units deliver."""
    import tensorflow as tf

    if repeats < 1 or size < 1:
        raise UsageProblem(
            _("size={size}, repeats={repeats}: both must be at least 1").format(
                size=size, repeats=repeats
            )
        )
    generator = tf.random.Generator.from_seed(0)
    a = tf.cast(generator.uniform((size, size)), dtype)
    b = tf.cast(generator.uniform((size, size)), dtype)
    product = tf.function(lambda x, y: tf.matmul(x, y)[0, 0])  # one number back, not size²
    product(a, b).numpy()  # trace and warm up
    best = float("inf")
    for _repeat in range(repeats):
        started = clock()
        product(a, b).numpy()
        best = min(best, clock() - started)
    return 2 * size**3 / best / 1e9


# ---- generated by make lib: edit the notebook cell, not this block ----
# fmt: off


# From notebooks/11_training_speed.ipynb, cell 5a1e0b7c (#@save).
def read_flags(cpuinfo="/proc/cpuinfo"):
    """The CPU's feature flags as Linux lists them (the `flags` line of /proc/cpuinfo,
    `Features` on Arm); None where there is no such file (macOS, Windows)."""
    path = Path(cpuinfo)
    if not path.is_file():
        return None
    for line in path.read_text(errors="replace").splitlines():
        key, _colon, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


# fmt: on
# ---- end of the block generated by make lib ----
