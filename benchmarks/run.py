"""The course's performance figures, measured side by side in one run on one machine.

Run it with ``make benchmark`` (or ``.venv/bin/python benchmarks/run.py``). It
measures, in this order and on the same machine:

1. training speed: the course CNN trained by ``Estimator.train`` and by Keras
   ``Model.fit`` (``build_cnn``, defined in notebook 10's cells) on the same
   input pipeline at the same batch size, in alternating rounds;
2. the input pipeline's throughput beside the examples per second the model
   consumes (notebook 02's question, with the steps per second of part 1);
3. the size of a ``model_dir`` after the same training steps when the input
   function reads the IDX files and when it embeds the arrays in the graph
   (notebook 02's lesson);
4. the run time of every notebook in fast and in full mode, each executed by
   ``tools/run_notebooks.py`` into a temporary folder (the committed notebooks
   are not touched). This part takes most of the time (about 45 minutes on
   2 cores); ``--notebooks none`` leaves it out.

The measurements are kept in ``benchmarks/results.json`` and written as Markdown
to ``benchmarks/results.md`` and, with ``--update-readme``, into the README's
"Performance" section between its markers. ``--parts`` re-measures some parts
and keeps the others from the previous run; the report then says when each part
was measured. Run it on an otherwise idle machine: the script records the load
average before and after each part.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
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

from helpers import settings  # noqa: E402  (also quiets TensorFlow's C++ start-up logs)

README_START = "<!-- benchmark:start -->"
README_END = "<!-- benchmark:end -->"
BATCH_SIZE = 100


# ----------------------------------------------------------------------------- machine

def machine() -> dict:
    """What the figures were measured on."""
    import numpy as np
    import tensorflow as tf

    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = re.findall(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), flags=re.M)
        if names:
            cpu = names[0].strip()
    memory_gib = None
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        match = re.search(r"^MemTotal:\s+(\d+) kB", meminfo.read_text(), flags=re.M)
        if match:
            memory_gib = int(match.group(1)) / 2**20
    try:
        import keras
        keras_version = keras.__version__
    except ImportError:  # pragma: no cover
        keras_version = "not installed"
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory": f"{memory_gib:.0f} GiB" if memory_gib else "unknown",
        "os": platform.platform(terse=True),
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "keras": keras_version,
        "numpy": np.__version__,
    }


def load_average() -> str:
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


# ----------------------------------------------------------------------------- parts 1 and 2

def estimator_steps_per_second(steps: int, round_index: int) -> float:
    """Steps/s of ``Estimator.train`` on the course CNN (after its first step)."""
    import tensorflow as tf
    from helpers import inputs, models, throughput

    model_dir = settings.fresh_model_dir(f"benchmark_estimator_{round_index}")
    config = tf.estimator.RunConfig(tf_random_seed=settings.SEED, save_checkpoints_steps=None,
                                    save_checkpoints_secs=None, save_summary_steps=steps * 10,
                                    log_step_count_steps=steps * 10)
    estimator = tf.estimator.Estimator(models.cnn_model_fn, model_dir=model_dir,
                                       params={"learning_rate": 2e-3}, config=config)
    timer = throughput.StepTimer()
    estimator.train(inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE), steps=steps, hooks=[timer])
    shutil.rmtree(model_dir, ignore_errors=True)
    return timer.rate.per_second


def keras_steps_per_second(steps: int) -> float:
    """Steps/s of Keras ``fit`` on the same CNN and pipeline (after its first batch)."""
    import tensorflow as tf
    from helpers import inputs

    tool_spec = importlib.util.spec_from_file_location("keras_latest", ROOT / "tools" / "keras_latest.py")
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
    model.fit(inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)(), steps_per_epoch=steps,
              epochs=1, verbose=0, callbacks=[times])
    return (len(times.times) - 1) / (times.times[-1] - times.times[0])


def training_speed(steps: int, rounds: int) -> dict:
    """Alternate Estimator and Keras rounds; report each round and the medians."""
    estimator_rates, keras_rates = [], []
    for index in range(rounds):
        estimator_rates.append(estimator_steps_per_second(steps, index))
        keras_rates.append(keras_steps_per_second(steps))
        print(f"  round {index + 1}: Estimator {estimator_rates[-1]:.1f} steps/s, "
              f"Keras {keras_rates[-1]:.1f} steps/s", flush=True)
    return {"steps": steps, "rounds": rounds,
            "estimator": estimator_rates, "keras": keras_rates,
            "estimator_median": statistics.median(estimator_rates),
            "keras_median": statistics.median(keras_rates)}


def pipeline_speed(batches: int) -> float:
    """Examples/s the training input pipeline delivers on its own."""
    from helpers import inputs, throughput

    rate = throughput.pipeline_rate(inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)(),
                                    batches=batches)
    return rate.per_second


# ----------------------------------------------------------------------------- part 3

def model_dir_sizes(steps: int) -> dict:
    """Bytes in ``model_dir`` after ``steps`` steps: reading the files vs arrays embedded in the graph."""
    import tensorflow as tf
    from helpers import data, inputs, model_dirs, models

    mnist = data.load("mnist")

    def embedded_input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((mnist.train_images, mnist.train_labels))
        return (dataset
                .map(lambda image, label: ({"image": tf.cast(image, tf.float32) / 255.0},
                                           tf.cast(label, tf.int32)))
                .shuffle(10_000, seed=settings.SEED).repeat().batch(BATCH_SIZE).prefetch(tf.data.AUTOTUNE))

    sizes = {}
    for name, input_fn in (("files", inputs.make_train_input_fn("mnist", batch_size=BATCH_SIZE)),
                           ("embedded", embedded_input_fn)):
        model_dir = settings.fresh_model_dir(f"benchmark_{name}")
        config = tf.estimator.RunConfig(tf_random_seed=settings.SEED)
        estimator = tf.estimator.Estimator(models.cnn_model_fn, model_dir=model_dir, params={}, config=config)
        started = time.perf_counter()
        estimator.train(input_fn, steps=steps)
        sizes[name] = {"bytes": model_dirs.size_bytes(model_dir), "seconds": time.perf_counter() - started}
        shutil.rmtree(model_dir, ignore_errors=True)
    return sizes


# ----------------------------------------------------------------------------- part 4

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
                command = [sys.executable, str(ROOT / "tools" / "run_notebooks.py"), "--out", out]
                if mode == "fast":
                    command.append("--fast")
                started = time.perf_counter()
                finished = subprocess.run(command + [str(notebook)], cwd=ROOT, capture_output=True, text=True)
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

def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:02.0f} s" if seconds >= 60 else f"{seconds:.0f} s"


def measured_line(part: dict) -> str:
    return (f"_Measured {part['measured']}, load average (1/5/15 min) {part['load_before']} before, "
            f"{part['load_after']} after._")


def report(results: dict) -> str:
    info = results["machine"]
    parts = results["parts"]
    lines = [
        f"Measured by `make benchmark` ([benchmarks/run.py](benchmarks/run.py)) on one machine: {info['cpu']}, "
        f"{info['cores']} cores, {info['memory']}; {info['os']}; Python {info['python']}, "
        f"TensorFlow {info['tensorflow']}, Keras {info['keras']}, NumPy {info['numpy']}.",
        "",
    ]
    speed = parts.get("training")
    if speed:
        ratio = speed["keras_median"] / speed["estimator_median"]
        lines += [
            f"**Training speed**, the course CNN at batch size {BATCH_SIZE} on the same input pipeline, "
            f"{speed['steps']} steps per run, {speed['rounds']} alternating rounds (each rate leaves out "
            "the run's first step: graph building, session start, tracing):",
            "",
            "| | steps/s (median) | every round | examples/s |",
            "|---|---:|---|---:|",
            f"| `Estimator.train` | {speed['estimator_median']:.1f} | "
            f"{', '.join(f'{r:.1f}' for r in speed['estimator'])} | {speed['estimator_median'] * BATCH_SIZE:,.0f} |",
            f"| Keras `Model.fit` | {speed['keras_median']:.1f} | "
            f"{', '.join(f'{r:.1f}' for r in speed['keras'])} | {speed['keras_median'] * BATCH_SIZE:,.0f} |",
            "",
            f"Keras / Estimator: **{ratio:.2f}×**. {measured_line(speed)}",
            "",
        ]
    pipeline = parts.get("pipeline")
    if pipeline:
        text = (f"**Input pipeline vs model** (notebook 02): the training `input_fn`'s dataset alone delivered "
                f"**{pipeline['examples_per_second']:,.0f} examples/s**")
        if speed:
            consumed = max(speed["estimator_median"], speed["keras_median"]) * BATCH_SIZE
            text += (f", {pipeline['examples_per_second'] / consumed:.1f}× what the faster of the two trainings "
                     f"above consumes ({consumed:,.0f} examples/s): the model, not the input, sets the pace.")
        else:
            text += "."
        lines += [text + f" {measured_line(pipeline)}", ""]
    sizes = parts.get("model_dir")
    if sizes:
        files, embedded = sizes["files"], sizes["embedded"]
        lines += [
            f"**`model_dir` size** after {sizes['steps']} training steps (notebook 02):",
            "",
            "| input function | model_dir | train() time |",
            "|---|---:|---:|",
            f"| reads the IDX files | {files['bytes'] / 1e6:.1f} MB | {files['seconds']:.0f} s |",
            f"| `from_tensor_slices` on NumPy arrays (embedded in the graph) | {embedded['bytes'] / 1e6:.1f} MB "
            f"| {embedded['seconds']:.0f} s |",
            "",
            f"Embedding the arrays makes the `model_dir` {embedded['bytes'] / files['bytes']:.0f}× larger. "
            f"{measured_line(sizes)}",
            "",
        ]
    runs = {mode: parts[f"notebooks_{mode}"] for mode in ("fast", "full") if f"notebooks_{mode}" in parts}
    if runs:
        modes = list(runs)
        names = sorted({name for run in runs.values() for name in run["seconds"]})
        lines += [
            "**Notebook run times**, one notebook after another (by `tools/run_notebooks.py`, kernel start "
            "included, unless the line under the table says otherwise):",
            "",
            "| notebook | " + " | ".join(f"{mode} mode" for mode in modes) + " |",
            "|---|" + "---:|" * len(modes),
        ]
        for name in names:
            cells = [minutes(runs[m]["seconds"][name]) if name in runs[m]["seconds"] else "—" for m in modes]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        totals = " | ".join(f"**{minutes(sum(runs[m]['seconds'].values()))}**" for m in modes)
        lines += [f"| all | {totals} |", ""]
        lines += [f"{mode.capitalize()} mode" + (f", timed by {runs[mode]['source']}" if "source" in runs[mode] else "")
                  + f": {measured_line(runs[mode])}" for mode in modes]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def update_readme(text: str, readme: Path = ROOT / "README.md", start: str = README_START,
                  end: str = README_END, where: str = "its Performance section") -> None:
    """Put ``text`` between the markers ``start`` and ``end`` of ``readme`` (README.md, TEACHING.md)."""
    content = readme.read_text()
    if start not in content or end not in content:
        raise SystemExit(f"{readme.name} has no {start} … {end} markers: add them to {where}")
    before, rest = content.split(start, 1)
    _, after = rest.split(end, 1)
    readme.write_text(f"{before}{start}\n{text}{end}{after}")


def measure(name: str, function, *args) -> dict:
    """Run one part and stamp it with the time and the load around it."""
    print(f"{name} …", flush=True)
    load_before = load_average()
    result = function(*args)
    record = result if isinstance(result, dict) else {"value": result}
    record.update(measured=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
                  load_before=load_before, load_after=load_average())
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="training,pipeline,model_dir,notebooks",
                        help="comma-separated: training, pipeline, model_dir, notebooks (none: only rewrite the report)")
    parser.add_argument("--notebooks", default="fast,full", help="modes to time: fast,full | fast | full")
    parser.add_argument("--only", nargs="*", type=Path, help="time only these notebooks")
    parser.add_argument("--steps", type=int, default=600, help="training steps per speed run")
    parser.add_argument("--rounds", type=int, default=3, help="alternating Estimator/Keras rounds")
    parser.add_argument("--nbval-junit", type=Path,
                        help="take the fast-mode times from this JUnit report of make test instead of running them")
    parser.add_argument("--keep", type=Path,
                        help="leave the executed notebooks in this folder (to commit them: copy into notebooks/)")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results.json")
    parser.add_argument("--update-readme", action="store_true", help="write the results into README.md")
    args = parser.parse_args(argv)
    parts = {part.strip() for part in args.parts.split(",") if part.strip() not in ("", "none")}
    unknown = parts - {"training", "pipeline", "model_dir", "notebooks"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")

    from helpers import course_setup
    course_setup.start(show=False)
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    results["machine"] = machine()
    results.setdefault("parts", {})
    if "training" in parts:
        results["parts"]["training"] = measure("training speed: Estimator.train vs Keras fit",
                                               training_speed, args.steps, args.rounds)
    if "pipeline" in parts:
        results["parts"]["pipeline"] = measure("input pipeline alone", lambda: {
            "examples_per_second": pipeline_speed(batches=300)})
    if "model_dir" in parts:
        results["parts"]["model_dir"] = measure("model_dir size: files vs embedded arrays",
                                                lambda: {"steps": 200, **model_dir_sizes(steps=200)})
    if "notebooks" in parts:
        notebooks = args.only or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
        for mode in [m.strip() for m in args.notebooks.split(",") if m.strip()]:
            key = f"notebooks_{mode}"
            record = measure(f"notebook run times, {mode} mode", lambda: {
                "seconds": {name: t[mode] for name, t in notebook_run_times([mode], notebooks, args.keep).items()}})
            if args.only and key in results["parts"]:  # keep the other notebooks' earlier times
                record["seconds"] = {**results["parts"][key]["seconds"], **record["seconds"]}
            results["parts"][key] = record
    if args.nbval_junit:
        results["parts"]["notebooks_fast"] = {
            "seconds": nbval_times(args.nbval_junit), "source": "nbval in `make test` (kernel start not counted)",
            "measured": datetime.datetime.fromtimestamp(args.nbval_junit.stat().st_mtime).strftime("%Y-%m-%d %H:%M"),
            "load_before": "not recorded", "load_after": "not recorded"}
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(results, indent=1) + "\n")
    text = report(results)
    args.results.with_suffix(".md").write_text("# Performance\n\n" + text)
    print("\n" + text)
    if args.update_readme:
        update_readme(text)
        print("README.md: Performance section updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
