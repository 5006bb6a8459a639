"""The course's performance: training speed, input pipeline, model_dir size, notebook run times.

Run it with ``make benchmark`` (or ``.venv/bin/python benchmarks/performance.py``).
It measures, in this order and on the same machine:

1. training speed: the course CNN trained by ``Estimator.train`` and by Keras
   ``Model.fit`` (``build_cnn``, defined in notebook 10's cells) on the same
   input pipeline at the same batch size, in alternating rounds;
2. the input pipeline's throughput beside the examples per second the model
   consumes (notebook 02's question, with the steps per second of part 1);
3. the size of a ``model_dir`` after the same training steps when the input
   function reads the IDX files and when it embeds the arrays in the graph
   (notebook 02's lesson);
4. float32 against bfloat16 (notebook 11): the course CNN's steps per second
   in float32, with oneDNN's bfloat16 rewrite and with the Keras
   ``mixed_bfloat16`` policy (notebook 11's ``bf16_cnn_model_fn``); the time
   to 99 % test accuracy in float32 and with the policy (notebook 11's
   ``time_to_accuracy``, evaluated every 250 steps); the machine's float32 and
   bfloat16 peaks on 2048² matrix products, and the share of each peak the CNN
   reaches. In alternating rounds, the medians reported; on a CPU without
   native bfloat16 (``helpers.cpu``) only the float32 runs;
5. the run time of every notebook in fast and in full mode, each executed by
   ``tools/run_notebooks.py`` into a temporary folder (the committed notebooks
   are not touched). This part takes most of the time (about 17 minutes on
   2 cores: the two totals of the run-time table); ``--parts
   training,pipeline,model_dir,bf16`` leaves it out.

The measurements are kept in ``benchmarks/results.json``. With
``--update-docs`` the report goes into the generated section of
``benchmarks/results.md`` and its headline figures into the README's one
Performance line (``performance_report`` and ``readme_line``; ``--parts none``
only rewrites them from the JSON file). ``--parts`` re-measures some parts and
keeps the others from the previous run; the report says when each part was
measured. Run it on an otherwise idle machine: the load average before and
after each part is recorded.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from reporting import (  # noqa: E402
    describe,
    duration,
    load_average,
    notebooks_named,
    record_machine,
    timestamp,
    write_section,
)

from helpers import settings  # noqa: E402  (also quiets TensorFlow's C++ start-up logs)

RESULTS = ROOT / "benchmarks" / "results.json"
RESULTS_PAGE = ROOT / "benchmarks" / "results.md"
README = ROOT / "README.md"
SECTION = "performance"  # the generated section of results.md
README_SECTION = "performance-line"  # the README's one line of headline figures
BATCH_SIZE = 100
SPEED_NOTEBOOK = "11_training_speed.ipynb"  # bf16_cnn_model_fn and time_to_accuracy are its cells
MATMUL_SIZE = 2048


def libraries() -> dict:
    """The versions of the libraries the figures depend on."""
    import numpy as np
    import tensorflow as tf

    try:
        import keras

        keras_version = keras.__version__
    except ImportError:  # pragma: no cover
        keras_version = "not installed"
    return {"tensorflow": tf.__version__, "keras": keras_version, "numpy": np.__version__}


# ----------------------------------------------------------------------------- parts 1 and 2


def estimator_steps_per_second(
    steps: int, round_index: int, model_fn=None, session_config=None
) -> float:
    """Steps/s of ``Estimator.train`` on the course CNN (after its first step); ``model_fn`` and
    ``session_config`` another form of it (notebook 11's bfloat16 ones)."""
    import tensorflow as tf

    from helpers import inputs, models, throughput

    model_dir = settings.fresh_model_dir(f"benchmark_estimator_{round_index}")
    config = tf.estimator.RunConfig(
        tf_random_seed=settings.SEED,
        save_checkpoints_steps=None,
        save_checkpoints_secs=None,
        save_summary_steps=steps * 10,
        log_step_count_steps=steps * 10,
        session_config=session_config,
    )
    estimator = tf.estimator.Estimator(
        model_fn or models.cnn_model_fn,
        model_dir=model_dir,
        params={"learning_rate": 2e-3},
        config=config,
    )
    timer = throughput.StepTimer()
    train_input_fn = inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)
    estimator.train(train_input_fn, steps=steps, hooks=[timer])
    shutil.rmtree(model_dir, ignore_errors=True)
    return timer.rate.per_second


def keras_steps_per_second(steps: int) -> float:
    """Steps/s of Keras ``fit`` on the same CNN and pipeline (after its first batch)."""
    import tensorflow as tf

    from helpers import inputs

    tool_path = ROOT / "tools" / "keras_latest.py"
    tool_spec = importlib.util.spec_from_file_location("keras_latest", tool_path)
    tool = importlib.util.module_from_spec(tool_spec)
    tool_spec.loader.exec_module(tool)
    build_cnn = tool.definitions()["build_cnn"]  # notebook 10's own cell (tools/keras_latest.py)

    class BatchTimes(tf.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.times = []

        def on_train_batch_end(self, batch, logs=None):
            self.times.append(time.perf_counter())

    tf.keras.backend.clear_session()
    model = build_cnn({"learning_rate": 2e-3})
    times = BatchTimes()
    model.fit(
        inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)(),
        steps_per_epoch=steps,
        epochs=1,
        verbose=0,
        callbacks=[times],
    )
    return (len(times.times) - 1) / (times.times[-1] - times.times[0])


def training_speed(steps: int, rounds: int) -> dict:
    """Alternate Estimator and Keras rounds; report each round and the medians."""
    estimator_rates, keras_rates = [], []
    for index in range(rounds):
        estimator_rates.append(estimator_steps_per_second(steps, index))
        keras_rates.append(keras_steps_per_second(steps))
        print(
            f"  round {index + 1}: Estimator {estimator_rates[-1]:.1f} steps/s, "
            f"Keras {keras_rates[-1]:.1f} steps/s",
            flush=True,
        )
    return {
        "steps": steps,
        "rounds": rounds,
        "estimator": estimator_rates,
        "keras": keras_rates,
        "estimator_median": statistics.median(estimator_rates),
        "keras_median": statistics.median(keras_rates),
    }


def pipeline_speed(batches: int) -> float:
    """Examples/s the training input pipeline delivers on its own."""
    from helpers import inputs, throughput

    rate = throughput.pipeline_rate(
        inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)(), batches=batches
    )
    return rate.per_second


# ----------------------------------------------------------------------------- part 3


def model_dir_sizes(steps: int) -> dict:
    """Bytes in ``model_dir`` after ``steps`` steps: reading the files vs arrays in the graph."""
    import tensorflow as tf

    from helpers import data, inputs, model_dirs, models

    mnist = data.load("mnist")

    def embedded_input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((mnist.train_images, mnist.train_labels))
        return (
            dataset.map(
                lambda image, label: (
                    {"image": tf.cast(image, tf.float32) / 255.0},
                    tf.cast(label, tf.int32),
                )
            )
            .shuffle(10_000, seed=settings.SEED)
            .repeat()
            .batch(BATCH_SIZE)
            .prefetch(tf.data.AUTOTUNE)
        )

    sizes = {}
    for name, input_fn in (
        ("files", inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)),
        ("embedded", embedded_input_fn),
    ):
        model_dir = settings.fresh_model_dir(f"benchmark_{name}")
        config = tf.estimator.RunConfig(tf_random_seed=settings.SEED)
        estimator = tf.estimator.Estimator(
            models.cnn_model_fn, model_dir=model_dir, params={}, config=config
        )
        started = time.perf_counter()
        estimator.train(input_fn, steps=steps)
        sizes[name] = {
            "bytes": model_dirs.size_bytes(model_dir),
            "seconds": time.perf_counter() - started,
        }
        shutil.rmtree(model_dir, ignore_errors=True)
    return sizes


# ----------------------------------------------------------------------------- part 4


def cnn_train_flops(params: dict | None = None, batch_size: int = BATCH_SIZE) -> float:
    """Floating-point operations of one training step of the course CNN: each layer's
    multiply-adds (2 operations) in the forward pass, twice more for the gradients with respect to
    its input and to its weights (the first layer has no input gradient)."""
    from helpers.cnn_params import DEFAULT_PARAMS

    params = {**DEFAULT_PARAMS, **(params or {})}
    size, channels, layers = 28, 1, []
    for filters in params["filters"]:  # 3×3 convolution, "same" padding, then 2×2 pooling
        layers.append(size * size * filters * 9 * channels)
        size, channels = size // 2, filters
    layers.append(size * size * channels * params["dense_units"])
    layers.append(params["dense_units"] * 10)
    multiply_adds = sum(layers) * 3 - layers[0]  # forward, input gradient, weight gradient
    return 2.0 * multiply_adds * batch_size


def notebook_speed_code() -> dict:
    """Notebook 11's ``bf16_cnn_model_fn``, ``time_to_accuracy`` and what they use, from its cells
    (tools/notebook_code.py): the benchmark measures what the notebook teaches."""
    from tools import notebook_code

    names = ("bf16_cnn_model_fn", "EvaluateEvery", "time_to_accuracy")
    return notebook_code.definitions(SPEED_NOTEBOOK, names=names)


def bf16_rewrite_config():
    """A session config with oneDNN's bfloat16 auto-mixed-precision rewrite on (notebook 11)."""
    import tensorflow as tf
    from tensorflow.core.protobuf import rewriter_config_pb2

    config = tf.compat.v1.ConfigProto()
    config.graph_options.rewrite_options.auto_mixed_precision_onednn_bfloat16 = (
        rewriter_config_pb2.RewriterConfig.ON
    )
    return config


def precision_speed(steps: int, rounds: int, target: float, every: int, max_steps: int) -> dict:
    """float32 against bfloat16, in alternating rounds: steps/s of the three forms of the CNN, the
    time to ``target`` test accuracy of float32 and of the Keras policy, and the matmul peaks."""
    from helpers import cpu, models

    support = cpu.bf16_support()
    code = notebook_speed_code()
    forms = {"float32": (models.cnn_model_fn, None)}
    if support.native:
        forms["rewrite"] = (models.cnn_model_fn, bf16_rewrite_config())
        forms["policy"] = (code["bf16_cnn_model_fn"], None)
    targets = {"float32": models.cnn_model_fn}
    if support.native:
        targets["policy"] = code["bf16_cnn_model_fn"]
    rates = {name: [] for name in forms}
    runs = {name: [] for name in targets}
    for index in range(rounds):
        for name, (model_fn, session_config) in forms.items():
            rates[name].append(estimator_steps_per_second(steps, index, model_fn, session_config))
        for name, model_fn in targets.items():
            run = code["time_to_accuracy"](
                model_fn, f"benchmark_to_target_{name}", target, every, max_steps
            )
            last = run.iloc[-1]
            runs[name].append(
                {
                    "seconds": float(last["seconds"]),
                    "step": int(last["step"]),
                    "accuracy": float(last["accuracy"]),
                }
            )
        print(
            f"  round {index + 1}: "
            + ", ".join(f"{name} {rate[-1]:.1f} steps/s" for name, rate in rates.items())
            + "; to target: "
            + ", ".join(
                f"{name} {run[-1]['seconds']:.1f} s (step {run[-1]['step']}, "
                f"{run[-1]['accuracy']:.4f})"
                for name, run in runs.items()
            ),
            flush=True,
        )
    peaks = {
        dtype: cpu.matmul_gflops(dtype, size=MATMUL_SIZE, repeats=10)
        for dtype in (("float32", "bfloat16") if support.native else ("float32",))
    }
    return {
        "steps": steps,
        "rounds": rounds,
        "target": target,
        "every": every,
        "max_steps": max_steps,
        "bf16": support.summary(),
        "native": support.native,
        "rates": rates,
        "rate_medians": {name: statistics.median(rate) for name, rate in rates.items()},
        "to_target": runs,
        "to_target_medians": {
            name: statistics.median(run["seconds"] for run in found) for name, found in runs.items()
        },
        "flops_per_step": cnn_train_flops(),
        "matmul_size": MATMUL_SIZE,
        "peaks_gflops": peaks,
    }


# ----------------------------------------------------------------------------- part 5


def notebook_run_times(modes: list, notebooks: list, keep: Path | None = None) -> dict:
    """Seconds to execute each notebook with the project's tool, per mode (kernel start included).

    With ``keep``, the executed notebooks of the last mode are left there (``make notebooks``
    would write the same), so one full-mode run gives both the times and the committed outputs.
    """
    times = {}
    with tempfile.TemporaryDirectory(prefix="workbook-benchmark-") as scratch:
        out = str(keep.resolve()) if keep else scratch
        for mode in modes:
            for notebook in notebooks:
                command = [sys.executable, "-m", "tools.run_notebooks", "--out", out]
                if mode == "fast":
                    command.append("--fast")
                started = time.perf_counter()
                finished = subprocess.run(
                    command + [str(notebook)], cwd=ROOT, capture_output=True, text=True
                )
                seconds = time.perf_counter() - started
                if finished.returncode != 0:
                    last = (finished.stderr.strip().splitlines() or ["(no output)"])[-1]
                    raise SystemExit(f"{notebook.name} failed in {mode} mode: {last}")
                times.setdefault(notebook.name, {})[mode] = seconds
                print(f"  {notebook.name} ({mode}): {seconds:.0f} s", flush=True)
    return times


def nbval_times(junit_xml: Path) -> dict:
    """Seconds per notebook from a JUnit report of ``make test`` (``PYTEST_ARGS=--junitxml=…``).

    nbval runs each notebook in fast mode as one test per cell; a notebook's time is
    the sum of its cells' times (the kernel start is not counted).
    """
    import xml.etree.ElementTree as ElementTree

    times = {}
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        match = re.fullmatch(r"notebooks\.(\d\d_[\w-]+\.ipynb)", case.get("classname", ""))
        if match:  # nbval names each cell's test after the notebook: notebooks.NN_name.ipynb
            times[match.group(1)] = times.get(match.group(1), 0.0) + float(case.get("time", 0))
    if not times:
        raise SystemExit(f"{junit_xml}: no notebook cells in this JUnit report")
    return times


# ----------------------------------------------------------------------------- report


def measured_line(part: dict) -> str:
    return (
        f"_Measured {part['measured']}, load average (1/5/15 min) {part['load_before']} "
        f"before, {part['load_after']} after._"
    )


def training_lines(speed: dict) -> list:
    ratio = speed["keras_median"] / speed["estimator_median"]

    def row(name: str, key: str) -> str:
        rounds = ", ".join(f"{rate:.1f}" for rate in speed[key])
        median = speed[f"{key}_median"]
        return f"| {name} | {median:.1f} | {rounds} | {median * BATCH_SIZE:,.0f} |"

    return [
        f"**Training speed**, the course CNN at batch size {BATCH_SIZE} on the same input "
        f"pipeline, {speed['steps']} steps per run, {speed['rounds']} alternating rounds "
        "(each rate leaves out the run's first step: graph building, session start, tracing):",
        "",
        "| | steps/s (median) | every round | examples/s |",
        "|---|---:|---|---:|",
        row("`Estimator.train`", "estimator"),
        row("Keras `Model.fit`", "keras"),
        "",
        f"Keras / Estimator: **{ratio:.2f}×**. {measured_line(speed)}",
        "",
    ]


def precision_lines(part: dict) -> list:
    """float32 against bfloat16: steps/s, the time to the target, the peaks and their shares."""
    names = {
        "float32": "float32 (the course's `cnn_model_fn`)",
        "rewrite": "oneDNN bfloat16 rewrite in `RunConfig(session_config=…)`, same `model_fn`",
        "policy": "Keras `mixed_bfloat16` policy in the `model_fn` (notebook 11)",
    }
    peak_of = {"float32": "float32", "rewrite": "bfloat16", "policy": "bfloat16"}
    medians, base = part["rate_medians"], part["rate_medians"]["float32"]
    gflop = part["flops_per_step"] / 1e9
    lines = [
        f"**float32 against bfloat16** (notebook 11), the course CNN at batch size {BATCH_SIZE}: "
        f"{part['steps']} steps per speed run and a run to {part['target']:.0%} test accuracy "
        f"(evaluated every {part['every']} steps, at most {part['max_steps']}) for each form, "
        f"{part['rounds']} alternating rounds. The machine: {part['bf16']}.",
        "",
        "| | steps/s (median) | every round | × float32 | share of the peak |",
        "|---|---:|---|---:|---:|",
    ]
    for name, median in medians.items():
        rounds = ", ".join(f"{rate:.1f}" for rate in part["rates"][name])
        peak = part["peaks_gflops"].get(peak_of[name])
        share = f"{median * gflop / peak:.0%} of {peak_of[name]}'s" if peak else "—"
        lines.append(
            f"| {names[name]} | {median:.1f} | {rounds} | {median / base:.2f}× | {share} |"
        )
    lines += ["", "| time to the target | seconds (median) | every round (step, accuracy) |"]
    lines.append("|---|---:|---|")
    for name, median in part["to_target_medians"].items():
        rounds = ", ".join(
            f"{run['seconds']:.1f} s ({run['step']}, {run['accuracy']:.2%})"
            for run in part["to_target"][name]
        )
        lines.append(f"| {names[name]} | {median:.1f} | {rounds} |")
    peaks = ", ".join(
        f"{dtype} {rate:,.0f} GFLOP/s" for dtype, rate in part["peaks_gflops"].items()
    )
    text = (
        f"Peaks on {part['matmul_size']}² matrix products (the best of 10): {peaks}. One training "
        f"step of the CNN is {gflop:.2f} GFLOP (`cnn_train_flops`: each layer's multiply-adds, "
        "three times, for the forward pass and the two gradients)."
    )
    medians_to_target = part["to_target_medians"]
    if "policy" in medians_to_target:
        ratio = medians_to_target["policy"] / medians_to_target["float32"]
        text += f" Time to {part['target']:.0%}, bfloat16 / float32: **{ratio:.2f}×**."
    return [*lines, "", f"{text} {measured_line(part)}", ""]


def consumed(speed: dict) -> float:
    """Examples per second the faster of the two trainings consumes."""
    return max(speed["estimator_median"], speed["keras_median"]) * BATCH_SIZE


def pipeline_lines(pipeline: dict, speed: dict | None) -> list:
    rate = pipeline["examples_per_second"]
    text = (
        f"**Input pipeline vs model** (notebook 02): the training `input_fn`'s dataset alone "
        f"delivered **{rate:,.0f} examples/s**"
    )
    if speed:
        text += (
            f", {rate / consumed(speed):.1f}× what the faster of the two trainings above "
            f"consumes ({consumed(speed):,.0f} examples/s): the model, not the input, sets "
            "the pace."
        )
    else:
        text += "."
    return [f"{text} {measured_line(pipeline)}", ""]


def model_dir_lines(sizes: dict) -> list:
    files, embedded = sizes["files"], sizes["embedded"]
    return [
        f"**`model_dir` size** after {sizes['steps']} training steps (notebook 02):",
        "",
        "| input function | model_dir | train() time |",
        "|---|---:|---:|",
        f"| reads the IDX files | {files['bytes'] / 1e6:.1f} MB | {files['seconds']:.0f} s |",
        f"| `from_tensor_slices` on NumPy arrays (embedded in the graph) "
        f"| {embedded['bytes'] / 1e6:.1f} MB | {embedded['seconds']:.0f} s |",
        "",
        f"Embedding the arrays makes the `model_dir` {embedded['bytes'] / files['bytes']:.0f}× "
        f"larger. {measured_line(sizes)}",
        "",
    ]


def run_time_lines(runs: dict) -> list:
    """The notebooks' run times, one column per mode in ``runs`` ({mode: part})."""
    modes = list(runs)
    names = sorted({name for run in runs.values() for name in run["seconds"]})
    lines = [
        "**Notebook run times**, one notebook after another (by `tools/run_notebooks.py`, "
        "kernel start included, unless the line under the table says otherwise):",
        "",
        "| notebook | " + " | ".join(f"{mode} mode" for mode in modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    for name in names:
        cells = [
            duration(runs[m]["seconds"][name]) if name in runs[m]["seconds"] else "—" for m in modes
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    totals = " | ".join(f"**{duration(sum(runs[m]['seconds'].values()))}**" for m in modes)
    lines += [f"| all | {totals} |", ""]
    for mode in modes:
        source = f", timed by {runs[mode]['source']}" if "source" in runs[mode] else ""
        lines.append(f"{mode.capitalize()} mode{source}: {measured_line(runs[mode])}")
    return lines + [""]


def run_times(parts: dict) -> dict:
    return {
        mode: parts[f"notebooks_{mode}"]
        for mode in ("fast", "full")
        if f"notebooks_{mode}" in parts
    }


def performance_report(results: dict) -> str:
    """The generated section of benchmarks/results.md: every part measured, with when and how."""
    software = results.get("libraries", {})
    parts = results["parts"]
    lines = [
        f"Measured on one machine: {describe(results['machine'])}; "
        f"TensorFlow {software.get('tensorflow', '?')}, Keras {software.get('keras', '?')}, "
        f"NumPy {software.get('numpy', '?')}.",
        "",
    ]
    if parts.get("training"):
        lines += training_lines(parts["training"])
    if parts.get("pipeline"):
        lines += pipeline_lines(parts["pipeline"], parts.get("training"))
    if parts.get("model_dir"):
        lines += model_dir_lines(parts["model_dir"])
    if parts.get("bf16"):
        lines += precision_lines(parts["bf16"])
    if run_times(parts):
        lines += run_time_lines(run_times(parts))
    return "\n".join(lines).rstrip() + "\n"


def readme_line(results: dict) -> str:
    """The README's one line of headline figures, from the same measurements."""
    parts = results["parts"]
    figures = []
    speed = parts.get("training")
    if speed:
        figures.append(
            f"`Estimator.train` {speed['estimator_median']:.1f} steps/s, Keras `fit` "
            f"{speed['keras_median']:.1f} on the course CNN"
        )
    if parts.get("pipeline") and speed:
        rate = parts["pipeline"]["examples_per_second"]
        figures.append(
            f"the input pipeline {rate:,.0f} examples/s, {rate / consumed(speed):.1f}× "
            "what the model takes"
        )
    precision = parts.get("bf16")
    if precision and "policy" in precision["to_target_medians"]:
        to_target, rates = precision["to_target_medians"], precision["rate_medians"]
        figures.append(
            f"bfloat16 (Keras policy) {rates['policy'] / rates['float32']:.2f}× float32's steps/s "
            f"and {to_target['policy']:.0f} s against {to_target['float32']:.0f} s to "
            f"{precision['target']:.0%} test accuracy"
        )
    runs = run_times(parts)
    if runs:
        totals = [
            f"{duration(sum(run['seconds'].values()))} in {mode} mode"
            for mode, run in reversed(list(runs.items()))
        ]
        figures.append(
            f"all {len(next(iter(runs.values()))['seconds'])} notebooks " + " and ".join(totals)
        )
    cores = results["machine"].get("cores", "?")
    return (
        f"**Performance** on {cores} cores: "
        + "; ".join(figures)
        + " ([benchmarks/results.md](benchmarks/results.md) has every figure and how it is "
        "measured).\n"
    )


def update_docs(results: dict, page: Path = RESULTS_PAGE, readme: Path = README) -> None:
    write_section(page, SECTION, performance_report(results))
    write_section(readme, README_SECTION, readme_line(results))


# ----------------------------------------------------------------------------- measuring


def measure(name: str, function, *args) -> dict:
    """Run one part and stamp it with the time and the load around it."""
    print(f"{name} …", flush=True)
    load_before = load_average()
    result = function(*args)
    record = result if isinstance(result, dict) else {"value": result}
    record.update(measured=timestamp(), load_before=load_before, load_after=load_average())
    return record


def measure_run_times(args, previous: dict) -> dict:
    """{"notebooks_<mode>": part} for each mode asked; with ``--only``, the others' times kept."""
    notebooks = notebooks_named(ROOT / "notebooks", args.only)
    found = {}
    for mode in [m.strip() for m in args.notebooks.split(",") if m.strip()]:
        key = f"notebooks_{mode}"
        record = measure(
            f"notebook run times, {mode} mode",
            lambda: {
                "seconds": {
                    name: times[mode]
                    for name, times in notebook_run_times([mode], notebooks, args.keep).items()
                }
            },
        )
        if args.only and key in previous:  # keep the other notebooks' times
            record["seconds"] = {**previous[key]["seconds"], **record["seconds"]}
        found[key] = record
    return found


def measure_parts(parts: set, args, results: dict) -> None:
    """Measure ``parts`` into ``results``; the machine is recorded when anything is measured."""
    if parts:
        every = {"training", "pipeline", "model_dir", "bf16", "notebooks"}
        record_machine(results, partial=bool(args.only) or parts != every)
        results.update(libraries=libraries())
    measured = results["parts"]
    if "training" in parts:
        measured["training"] = measure(
            "training speed: Estimator.train vs Keras fit", training_speed, args.steps, args.rounds
        )
    if "pipeline" in parts:
        measured["pipeline"] = measure(
            "input pipeline alone", lambda: {"examples_per_second": pipeline_speed(batches=300)}
        )
    if "model_dir" in parts:
        measured["model_dir"] = measure(
            "model_dir size: files vs embedded arrays",
            lambda: {"steps": 200, **model_dir_sizes(steps=200)},
        )
    if "bf16" in parts:
        measured["bf16"] = measure(
            "float32 against bfloat16",
            precision_speed,
            args.steps,
            args.rounds,
            args.target,
            args.every,
            args.max_steps,
        )
    if "notebooks" in parts:
        measured.update(measure_run_times(args, measured))
    if args.nbval_junit:
        measured["notebooks_fast"] = {
            "seconds": nbval_times(args.nbval_junit),
            "source": "nbval in `make test` (kernel start not counted)",
            "measured": time.strftime(
                "%Y-%m-%d %H:%M", time.localtime(args.nbval_junit.stat().st_mtime)
            ),
            "load_before": "not recorded",
            "load_after": "not recorded",
        }


def arguments(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts",
        default="training,pipeline,model_dir,bf16,notebooks",
        help="comma-separated: training, pipeline, model_dir, bf16, notebooks "
        "(none: measure nothing, only rewrite the report)",
    )
    parser.add_argument(
        "--notebooks", default="fast,full", help="modes to time: fast,full | fast | full"
    )
    parser.add_argument(
        "--only", nargs="*", help="time only these notebooks: a number, a file name or a path"
    )
    parser.add_argument("--steps", type=int, default=600, help="training steps per speed run")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (training, bf16)")
    parser.add_argument("--target", type=float, default=0.99, help="bf16: test accuracy to reach")
    parser.add_argument("--every", type=int, default=250, help="bf16: steps between evaluations")
    parser.add_argument("--max-steps", type=int, default=4000, help="bf16: give up after these")
    parser.add_argument(
        "--nbval-junit",
        type=Path,
        help="take the fast-mode times from this JUnit report of make test instead of running them",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="leave the executed notebooks in this folder (to commit them: copy into notebooks/)",
    )
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="write the report into benchmarks/results.md and the README's line",
    )
    args = parser.parse_args(argv)
    args.parts = {
        part.strip() for part in args.parts.split(",") if part.strip() not in ("", "none")
    }
    unknown = args.parts - {"training", "pipeline", "model_dir", "bf16", "notebooks"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    return args


def main(argv=None) -> int:
    args = arguments(argv)
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    results.setdefault("parts", {})
    if args.parts or args.nbval_junit:
        from helpers import course_setup

        course_setup.start(show=False)
        measure_parts(args.parts, args, results)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(results, indent=1) + "\n")
    print("\n" + performance_report(results) + "\n" + readme_line(results))
    if args.update_docs:
        update_docs(results)
        print("benchmarks/results.md and the README's Performance line updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
