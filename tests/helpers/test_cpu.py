"""Unit tests for ``helpers.cpu``: bfloat16 flags, oneDNN's cap, the verdict, matmul rates.

The flags come from made-up ``/proc/cpuinfo`` files and made-up environments, so every verdict is
tried on a machine with both flags, one, none, a capped oneDNN, oneDNN off, and unreadable flags.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest

from helpers import cpu
from helpers.problems import UsageProblem

SAPPHIRE_RAPIDS = frozenset({"fpu", "avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16"})
COOPER_LAKE = frozenset({"fpu", "avx2", "avx512f", "avx512_vnni", "avx512_bf16"})
ICE_LAKE = frozenset({"fpu", "avx2", "avx512f", "avx512_vnni"})


def cpuinfo(tmp_path, flags, key="flags"):
    path = tmp_path / "cpuinfo"
    text = "".join(
        f"processor\t: {n}\nmodel name\t: Test CPU\n{key}\t\t: {' '.join(sorted(flags))}\n\n"
        for n in range(2)
    )
    path.write_text(text)
    return path


def test_read_flags_from_a_linux_cpuinfo(tmp_path):
    assert cpu.read_flags(cpuinfo(tmp_path, SAPPHIRE_RAPIDS)) == SAPPHIRE_RAPIDS


def test_read_flags_from_an_arm_cpuinfo(tmp_path):
    assert cpu.read_flags(cpuinfo(tmp_path, {"fp", "asimd", "bf16"}, key="Features")) == {
        "fp",
        "asimd",
        "bf16",
    }


def test_read_flags_without_the_file_is_none(tmp_path):
    assert cpu.read_flags(tmp_path / "missing") is None


def test_read_flags_of_a_file_without_flags_is_empty(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text("processor\t: 0\n")
    assert cpu.read_flags(path) == frozenset()


@pytest.mark.parametrize(
    "environ, cap",
    [
        ({}, None),
        ({"ONEDNN_MAX_CPU_ISA": "ALL"}, None),
        ({"ONEDNN_MAX_CPU_ISA": "avx512_core"}, "AVX512_CORE"),
        ({"DNNL_MAX_CPU_ISA": "AVX2"}, "AVX2"),
        ({"ONEDNN_MAX_CPU_ISA": "AVX10_1_512_AMX"}, "AVX512_CORE_AMX"),
    ],
)
def test_onednn_cap(environ, cap):
    assert cpu.onednn_cap(environ) == cap


def test_an_unknown_cap_is_named():
    with pytest.raises(UsageProblem, match="ONEDNN_MAX_CPU_ISA=AVX9 is not one of oneDNN's"):
        cpu.onednn_cap({"ONEDNN_MAX_CPU_ISA": "avx9"})


@pytest.mark.parametrize(
    "flags, environ, usable, words",
    [
        (SAPPHIRE_RAPIDS, {}, ("avx512_bf16", "amx_bf16"), "oneDNN may use avx512_bf16 and amx"),
        (COOPER_LAKE, {}, ("avx512_bf16",), "this CPU has avx512_bf16, and oneDNN may use"),
        (
            SAPPHIRE_RAPIDS,
            {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_BF16"},
            ("avx512_bf16",),
            "may use avx512_bf16: bfloat16 runs natively",
        ),
        (SAPPHIRE_RAPIDS, {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_VNNI"}, (), "ends the process"),
        (SAPPHIRE_RAPIDS, {"ONEDNN_MAX_CPU_ISA": "AVX2"}, (), "ONEDNN_MAX_CPU_ISA=AVX2 keeps"),
        (SAPPHIRE_RAPIDS, {"TF_ENABLE_ONEDNN_OPTS": "0"}, (), "TF_ENABLE_ONEDNN_OPTS=0 turns"),
        (ICE_LAKE, {}, (), "neither avx512_bf16 nor amx_bf16"),
        (None, {}, (), "cannot be read"),
    ],
)
def test_the_verdict(flags, environ, usable, words):
    support = cpu.bf16_support(flags, environ)
    assert support.usable == usable
    assert support.native == bool(usable)
    assert words in support.summary()
    assert support.summary().count(".") <= 1  # one sentence


def test_a_zh_tw_learner_reads_the_verdict_in_chinese(zh_tw, monkeypatch):
    sentences = zh_tw()
    template = "this CPU has {found}, and oneDNN may use {usable}: bfloat16 runs natively"
    verdict = cpu.bf16_support(SAPPHIRE_RAPIDS, {}).summary()
    assert verdict == sentences[template].format(
        found="avx512_bf16 和 amx_bf16", usable="avx512_bf16 和 amx_bf16"
    )
    assert cpu.bf16_support(None, {}).summary().startswith("在 ")
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "en")
    assert cpu.bf16_support(SAPPHIRE_RAPIDS, {}).summary().startswith("this CPU has avx512_bf16")


def test_the_machine_itself_is_read():
    support = cpu.bf16_support(environ={})
    assert support.flags is None or isinstance(support.flags, frozenset)
    assert support.summary()


def test_usable_cores():
    assert len(cpu.usable_cores()) >= 1


def test_matmul_gflops_counts_two_size_cubed_operations_per_product():
    clock = (0.5 * n for n in itertools.count())  # each product takes 0.5 s on this clock
    rate = cpu.matmul_gflops("float32", size=64, repeats=3, clock=lambda: next(clock))
    assert rate == pytest.approx(2 * 64**3 / 0.5 / 1e9)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_matmul_gflops_measures_both_types(dtype):
    assert cpu.matmul_gflops(dtype, size=128, repeats=2) > 0


def test_matmul_gflops_refuses_zero_repeats():
    with pytest.raises(UsageProblem, match="repeats=0"):
        cpu.matmul_gflops(repeats=0)


@pytest.mark.slow(reason="starts TensorFlow in a child process")
def test_a_cap_below_the_flags_ends_a_bfloat16_product():
    """Why notebook 11 runs no bfloat16 under such a cap (and why the verdict says so): TensorFlow
    2.15 reads the CPU's own flags and hands the product to oneDNN, which cannot build it."""
    if not cpu.bf16_support(environ={}).found:
        pytest.skip("this CPU has no bfloat16 flags: the cap changes nothing here")
    program = "import tensorflow as tf; x = tf.ones((64, 64), tf.bfloat16); tf.matmul(x, x)"
    environ = {**os.environ, "ONEDNN_MAX_CPU_ISA": "AVX2", "TF_CPP_MIN_LOG_LEVEL": "3"}
    capped = subprocess.run([sys.executable, "-c", program], env=environ, capture_output=True)
    assert capped.returncode < 0  # a signal (a segmentation fault or an abort), not an error
    environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # what the notebook suggests instead
    assert subprocess.run([sys.executable, "-c", program], env=environ).returncode == 0
